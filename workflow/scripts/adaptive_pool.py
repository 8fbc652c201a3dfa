"""Stage adaptive_pool: Pal et al.'s adaptive pool-depth strategy (their Discussion) over the judged runs and
the pool regenerated from the analysed runs."""
from inexflow.stageserver import hand_over

hand_over()  # a local run's stage server runs this script with the library imported (inexflow.stageserver)

from inexflow.analysis.adaptive import adaptive_pool_analysis
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.pool import regenerated_entries
from inexflow.stage import run_stage
from inexflow.tables import read_parquet, write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    measures, relabel = labelled(cfg["measures"])
    ad = cfg["adaptive_pool"]
    per_topic, summary = adaptive_pool_analysis(judged, measures, regenerated_entries(smk.input.firstpos),
                                                read_parquet(smk.input.pool), ad["step"], ad["min_rate"],
                                                ad["max_judged"] or smk.params.pool_target)
    log.info("adaptive pool over %d topics", len(per_topic))
    write_tsv(per_topic, smk.output.adaptive)
    write_tsv(relabel(summary), smk.output.adaptive_summary)


run_stage(main, snakemake)  # noqa: F821
