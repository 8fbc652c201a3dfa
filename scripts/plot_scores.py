"""Stage plot_scores: the score curves of one task (ep/gr, nxCG, iP) per run."""
from inexflow.analysis.plots import task_curves
from inexflow.stage import run_stage
from inexflow.tables import read_parquet


def main(smk, log):
    scores = read_parquet(smk.input.scores)
    task_curves(scores, smk.wildcards.task, smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
