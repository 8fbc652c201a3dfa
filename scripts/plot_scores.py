"""Stage plot_scores: one evaluation task's score curves (ep/gr, nxCG, iP, EPRUM) per run, as one PNG;
the top 10 runs by the task's main measure when it has more (Pal et al., Figure 4)."""
from inexflow.analysis.aggregate import read_task_scores
from inexflow.analysis.plots import task_curves
from inexflow.campaign.stage import run_stage


def main(smk, log):
    task = smk.wildcards.task
    task_curves(read_task_scores(smk.input.scores), task, smk.output.plot, smk.params.main_measure)
    log.info("plotted %s", smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
