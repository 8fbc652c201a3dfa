"""Stage plot_scores: the score curves of every task (ep/gr, nxCG, iP) per run, one PNG per task."""
from inexflow.analysis.plots import task_curves
from inexflow.stage import run_stage
from inexflow.tables import read_parquet


def main(smk, log):
    from pathlib import Path

    scores = read_parquet(smk.input.scores)
    for path in smk.output.plots:
        task_curves(scores, Path(path).stem, path)
        log.info("plotted %s", path)


run_stage(main, snakemake)  # noqa: F821
