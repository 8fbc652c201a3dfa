"""Stage aggregate_task: the scores of one evaluation task's runs -> one table (what the analyses of the task read),
and the task's score curves (ep/gr, nxCG, iP, EPRUM) per run drawn from it as one SVG; the top 10 runs by the task's
main measure when it has more (Pal et al., Figure 4)."""
from pathlib import Path

from inexflow.analysis.aggregate import read_run_scores
from inexflow.analysis.plots import task_curves
from inexflow.campaign.stage import merged_keys, recorded_run_keys, run_stage
from inexflow.io.tables import write_parquet


def main(smk, log):
    task = smk.wildcards.task
    scores, warnings = read_run_scores(smk.input.scores, {task: [Path(p).stem for p in smk.input.scores]})
    log.info("task %s: %d score tables, %d values", task, len(smk.input.scores), len(scores))
    write_parquet(scores, smk.output.scores, {"task": task, "warnings": warnings[task],
                                              "run_keys": recorded_run_keys(smk.input.scores),
                                              **merged_keys(smk.input.scores, ["input_keys", "settings"])})
    task_curves(scores, task, smk.output.plot, smk.params.main_measure)
    log.info("plotted %s", smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
