"""Stage pool_depth: Pal et al.'s pool-depth reduction (Tables 4-5, Figure 2), relevant documents against depth
(Figure 6) and adaptive pool-depth strategy (their Discussion), over the judged runs, the pool and the pool
regenerated from the analysed runs."""

from inexflow.analysis.adaptive import adaptive_pool_analysis
from inexflow.analysis.plots import relevant_vs_depth as plot_relevant_vs_depth
from inexflow.analysis.plots import tau_curves
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.analysis.stability import (
    depth_levels,
    depth_reduction,
    paper_shape,
    reduced_pools,
    relevant_vs_depth,
)
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet, write_tsv
from inexflow.model.pool import regenerated_entries


def main(smk, log):
    cfg = smk.params.cfg
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    measures, relabel = labelled(cfg["measures"])
    log.info("%d runs judged on %d topics", len(judged.runs), len(judged.topics))
    pool = read_parquet(smk.input.pool)  # checked to be made from the pooled runs' current contents
    # Pal et al.: the pool regenerated from the analysed runs, cut at d_Q(X) per topic, X% of the
    # original pool's size per topic (its rows: build_pool's depths.tsv, pool_size)
    regenerated = regenerated_entries(smk.input.firstpos)
    levels = depth_levels(regenerated, pool.groupby("topic", sort=False).size().to_dict(), cfg["pool_depth_percents"])
    dep = relabel(depth_reduction(judged, measures, regenerated, levels, cfg["pool_depth_percents"]))
    write_tsv(dep, smk.output.depth)
    write_tsv(paper_shape(dep, "percent"), smk.output.depth_table)
    curve = relevant_vs_depth(judged, pool)
    write_tsv(curve, smk.output.curve)
    tau_curves(dep, "percent", "X% pool (% of the original pool's documents)", f"Pool depth ({cfg['task']})",
               smk.output.depth_plot)
    plot_relevant_vs_depth(curve, smk.output.curve_plot)
    write_tsv(reduced_pools(regenerated, levels, judged), smk.output.reduced)
    # the adaptive pool deepens each topic's regenerated pool while it keeps finding relevant documents
    ad = cfg["adaptive_pool"]
    per_topic, summary = adaptive_pool_analysis(judged, measures, regenerated, pool, ad["step"], ad["min_rate"],
                                                ad["max_judged"] or smk.params.pool_target)
    log.info("adaptive pool over %d topics", len(per_topic))
    write_tsv(per_topic, smk.output.adaptive)
    write_tsv(relabel(summary), smk.output.adaptive_summary)


run_stage(main, snakemake)  # noqa: F821
