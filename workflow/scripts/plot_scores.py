"""Stage plot_scores: the score curves of every task (ep/gr, nxCG, iP, EPRUM) per run, one PNG per task;
the top 10 runs by the task's main measure when it has more (Pal et al., Figure 4)."""
from inexflow.stageserver import hand_over

hand_over()  # a local run's stage server runs this script with the library imported (inexflow.stageserver)

from inexflow.analysis.plots import task_curves
from inexflow.stage import run_stage
from inexflow.tables import read_parquet


def main(smk, log):
    from pathlib import Path

    scores = read_parquet(smk.input.scores)
    for path in smk.output.plots:
        task = Path(path).stem
        task_curves(scores, task, path, smk.params.main_measures[task])
        log.info("plotted %s", path)


run_stage(main, snakemake)  # noqa: F821
