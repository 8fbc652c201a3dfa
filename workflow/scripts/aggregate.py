"""Stage aggregate: all per-run scores -> one tidy table, the means, one ranked summary per task."""
from pathlib import Path

from inexflow.aggregate import combine_scores, task_summary
from inexflow.stage import run_stage
from inexflow.tables import check_identity, read_parquet, read_parquet_metadata, write_parquet, write_tsv


def read_scores(path):
    """One score table, checked to be the one of its run and family (results/scores/RUN/FAMILY)."""
    check_identity(path, read_parquet_metadata(path), run=Path(path).parent.name, family=Path(path).stem)
    return read_parquet(path)


def main(smk, log):
    scores = combine_scores([read_scores(p) for p in smk.input.scores])
    write_parquet(scores, smk.output.scores)
    write_tsv(scores, smk.output.scores_tsv)
    write_tsv(scores[scores["topic"] == "all"], smk.output.means)
    participants = dict(smk.params.participants)
    for path in smk.output.summaries:
        task = Path(path).stem
        summary = task_summary(scores, task, smk.params.main_measures[task], participants)
        log.info("task %s: %d ranked rows", task, len(summary))
        write_tsv(summary, path)


run_stage(main, snakemake)  # noqa: F821
