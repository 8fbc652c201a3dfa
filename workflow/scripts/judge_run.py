"""Stage judge_run: one analysed run judged against the analysis' assessments, once
(results/CAMPAIGN/judged/RUN.parquet), for the analyses that re-judge it (pool_analysis,
leave_one_group_out): they read these small tables instead of every run again."""
from pathlib import Path

from inexflow.analysis.rejudge import JudgedRuns
from inexflow.campaign.stage import made_from, run_stage
from inexflow.io.tables import write_parquet
from inexflow.model.assessments import Assessments
from inexflow.model.runs import Run


def main(smk, log):
    a = Assessments.load(Path(smk.input.documents).parent)
    run = Run.load(smk.input.run, name=smk.wildcards.run, categorical=True)
    part = JudgedRuns.from_parts(a, {}).judge(run)
    log.info("run %s: %d results retrieve highlighted text", smk.wildcards.run, len(part))
    write_parquet(part, smk.output.judged, {"name": smk.wildcards.run, "participant": run.participant,
                                            "made_from": made_from(smk)})


run_stage(main, snakemake)  # noqa: F821
