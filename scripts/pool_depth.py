"""Stage pool_depth: Pal et al.'s pool-depth reduction (Tables 4-5, Figure 2), relevant documents against depth
(Figure 6) and adaptive pool-depth strategy (their Discussion), over the judged runs and the pool regenerated from
the analysed runs (depth in articles), cut to each topic's original pool size (the qrels' judged documents, or the
campaign's pool when the qrels list relevant documents only)."""

from inexflow.analysis.adaptive import adaptive_pool_analysis
from inexflow.analysis.plots import relevant_vs_depth as plot_relevant_vs_depth
from inexflow.analysis.plots import tau_curves
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.analysis.stability import (
    depth_levels,
    depth_reduction,
    original_pools,
    paper_shape,
    pool_at,
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
    # the pool is checked to be made from the pooled runs' current contents (run_stage)
    original, source = original_pools(judged, read_parquet(smk.input.pool))
    # Pal et al.: the pool regenerated from the analysed runs (depth in articles), cut at d_Q(X) per topic
    regenerated = regenerated_entries(smk.input.firstpos)
    levels = depth_levels(regenerated, {t: len(d) for t, d in original.items()}, cfg["pool_depth_percents"])
    dep = relabel(depth_reduction(judged, measures, regenerated, levels, cfg["pool_depth_percents"]))
    write_tsv(dep, smk.output.depth)
    write_tsv(paper_shape(dep, "percent"), smk.output.depth_table)
    curve = relevant_vs_depth(judged, pool_at(regenerated, levels, 100))  # Figure 6 over the 100% pool
    write_tsv(curve, smk.output.curve)
    tau_curves(dep, "percent", "X% pool (% of the original pool's documents)", f"Pool depth ({cfg['task']})",
               smk.output.depth_plot)
    plot_relevant_vs_depth(curve, smk.output.curve_plot)
    write_tsv(reduced_pools(regenerated, levels, judged).assign(original_from=source), smk.output.reduced)
    # the adaptive pool deepens each topic's regenerated pool while it keeps finding relevant documents
    ad = cfg["adaptive_pool"]
    per_topic, summary = adaptive_pool_analysis(judged, measures, regenerated, original, ad["step"], ad["min_rate"],
                                                ad["max_judged"] or smk.params.pool_target)
    log.info("adaptive pool over %d topics", len(per_topic))
    write_tsv(per_topic, smk.output.adaptive)
    write_tsv(relabel(summary), smk.output.adaptive_summary)


run_stage(main, snakemake)  # noqa: F821
