"""Stage topic_sampling: tau/tau_AP of rankings on random topic subsets vs all topics."""
from inexflow.analysis.aggregate import read_task_scores
from inexflow.analysis.matrix import score_matrix
from inexflow.analysis.plots import tau_curves
from inexflow.analysis.stability import smallest_stable, topic_sampling
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    scores = read_task_scores(smk.input.scores)
    mats = {m: score_matrix(scores, cfg["task"], m, cfg["quant"]) for m in cfg["measures"]}
    out = topic_sampling(mats, cfg["topic_fractions"], cfg["samples"], cfg["seed"])
    log.info("%d measures x %d fractions x %d samples", len(mats), len(cfg["topic_fractions"]), cfg["samples"])
    write_tsv(out, smk.output.table)
    write_tsv(smallest_stable(out, "fraction", count="topics"), smk.output.smallest)
    tau_curves(out, "fraction", "% of topics", f"Topic sampling ({cfg['task']})", smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
