"""Stage aggregate_task: the per-run score tables of one evaluation task -> one table."""
from pathlib import Path

from inexflow.analysis.aggregate import combine_scores
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import check_identity, read_parquet, read_parquet_metadata, write_parquet


def read_scores(path):
    """One score table, checked to be the one of its task, run and family (results/scores/TASK/RUN/FAMILY)."""
    p = Path(path)
    check_identity(path, read_parquet_metadata(path), task=p.parent.parent.name, run=p.parent.name, family=p.stem)
    return read_parquet(path)


def main(smk, log):
    task = smk.wildcards.task
    scores = combine_scores([read_scores(p) for p in smk.input.scores])
    log.info("task %s: %d score tables, %d values", task, len(smk.input.scores), len(scores))
    write_parquet(scores, smk.output.scores, {"task": task})


run_stage(main, snakemake)  # noqa: F821
