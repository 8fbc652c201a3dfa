"""Stage pool_sampling: Pal et al.'s random pool sampling (Tables 1-3, Figure 1) over the judged runs."""

from inexflow.analysis.plots import tau_curves
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.analysis.stability import paper_shape, pool_sampling, smallest_stable
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    measures, relabel = labelled(cfg["measures"])
    log.info("%d runs judged on %d topics", len(judged.runs), len(judged.topics))
    samp = relabel(pool_sampling(judged, measures, cfg["pool_fractions"], cfg["samples"], cfg["seed"]))
    write_tsv(samp, smk.output.sampling)
    write_tsv(smallest_stable(samp, "fraction", count="reldocs"), smk.output.smallest)
    write_tsv(paper_shape(samp, "fraction"), smk.output.sampling_table)
    tau_curves(samp, "fraction", "% of relevant documents judged", f"Pool sampling ({cfg['task']})",
               smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
