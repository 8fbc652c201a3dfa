"""Stage aggregate_task: the scores of one evaluation task's runs -> one table, and the task's score curves
(ep/gr, nxCG, iP, EPRUM) per run drawn from it as one SVG; the top 10 runs by the task's main measure when it has
more (Pal et al., Figure 4)."""
from pathlib import Path

from inexflow.analysis.aggregate import combine_scores
from inexflow.analysis.plots import task_curves
from inexflow.campaign.stage import merged_keys, recorded_run_keys, run_stage
from inexflow.io.tables import CachedTableError, check_identity, read_parquet, read_parquet_metadata, write_parquet


def read_scores(path, task):
    """One run's scores for ``task``, from its table of every task it belongs to
    (results/scores/by_run/RUN.parquet), checked to be that run's (and, by run_stage, made from
    the run file's current content), scored for that task, and the warnings about the run in
    that task."""
    meta = read_parquet_metadata(path)
    check_identity(path, meta, run=Path(path).stem)
    if task not in (meta.get("tasks") or []):
        raise CachedTableError(path, f"cached table holds no scores for task {task!r} (the file was replaced "
                                     "or is left from another campaign)")
    scores = read_parquet(path)
    return scores[scores["task"] == task], (meta.get("warnings") or {}).get(task, [])


def main(smk, log):
    task = smk.wildcards.task
    parts = {Path(p).stem: read_scores(p, task) for p in smk.input.scores}
    scores = combine_scores([s for s, _ in parts.values()])
    log.info("task %s: %d score tables, %d values", task, len(smk.input.scores), len(scores))
    write_parquet(scores, smk.output.scores, {"task": task, "warnings": {r: w for r, (_, w) in parts.items() if w},
                                              "run_keys": recorded_run_keys(smk.input.scores),
                                              **merged_keys(smk.input.scores, ["input_keys", "settings"])})
    task_curves(scores, task, smk.output.plot, smk.params.main_measure)
    log.info("plotted %s", smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
