"""Stage pool_analyses: the campaign's pool from the pooled runs (build_pool's work, written as that job writes it),
then the analyses of the pool itself, over the judged runs and the pool regenerated from the analysed runs (depth
in articles), each topic cut to its original pool size (the qrels' judged documents, or the campaign's pool when the
qrels list relevant documents only). The runs are judged and read once for those of the analyses that run:

- ``pool_depth``: Pal et al.'s pool-depth reduction (Tables 4-5, Figure 2), relevant documents against depth
  (Figure 6) and the adaptive pool-depth strategy (their Discussion);
- ``leave_one_group_out``: each group's analysed runs re-judged on the 100% pool regenerated without the group's
  runs, against the 100% pool with them (the baseline)."""
from pathlib import Path

import pandas as pd

from inexflow.analysis.adaptive import adaptive_pool_analysis
from inexflow.analysis.logo import BINS, leave_one_group_out, paper_tables
from inexflow.analysis.plots import logo_histogram, tau_curves
from inexflow.analysis.plots import relevant_vs_depth as plot_relevant_vs_depth
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
from inexflow.campaign.pool_stage import write_pool
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet_metadata, write_tsv
from inexflow.model.pool import LazyTables, leave_group_out_entries, regenerated_entries


def pool_depth(smk, log, judged, original, source, measures, relabel, analysed):
    """Pal et al.: the pool regenerated from the analysed runs (depth in articles), cut at d_Q(X) per topic."""
    cfg, out = smk.params.cfg, smk.output
    regenerated = regenerated_entries(analysed)
    levels = depth_levels(regenerated, {t: len(d) for t, d in original.items()}, cfg["pool_depth_percents"])
    dep = relabel(depth_reduction(judged, measures, regenerated, levels, cfg["pool_depth_percents"]))
    write_tsv(dep, out.pool_depth)
    write_tsv(paper_shape(dep, "percent"), out.pool_depth_table)
    curve = relevant_vs_depth(judged, pool_at(regenerated, levels, 100))  # Figure 6 over the 100% pool
    write_tsv(curve, out.relevant_vs_depth)
    tau_curves(dep, "percent", "X% pool (% of the original pool's documents)", f"Pool depth ({cfg['task']})",
               out.depth_plot)
    plot_relevant_vs_depth(curve, out.curve_plot)
    write_tsv(reduced_pools(regenerated, levels, judged).assign(original_from=source), out.reduced_pools)
    # the adaptive pool deepens each topic's regenerated pool while it keeps finding relevant documents
    ad = cfg["adaptive_pool"]
    per_topic, summary = adaptive_pool_analysis(judged, measures, regenerated, original, ad["step"], ad["min_rate"],
                                                ad["max_judged"] or smk.params.pool_target)
    log.info("adaptive pool over %d topics", len(per_topic))
    write_tsv(per_topic, out.adaptive_pool)
    write_tsv(relabel(summary), out.adaptive_pool_summary)


def logo(smk, log, judged, original, measures, relabel, analysed):
    """Pal et al.'s leave-one-group-out: per run and per topic, the change of each measure when the run's group is
    left out of the pool, the significance of the change, the paper's tables and the histogram."""
    out = smk.output
    groups = {Path(p).stem: read_parquet_metadata(p)["participant"] for p in smk.input.judged}
    # the analysed runs' entry depths in articles with and without each group, read one run at a time
    entries = leave_group_out_entries(analysed, groups, cached=True, articles=True)
    per_run, per_query = leave_one_group_out(judged, entries, groups, measures, {t: len(d) for t, d in original.items()})
    log.info("%d groups, %d runs", len(entries.gnames), len(judged.runs))
    per_run, per_query = relabel(per_run), relabel(per_query)
    write_tsv(per_run, out.logo_runs)
    overall = (per_run.groupby(["measure", "change_bin"]).size().rename("count").reset_index()
               if len(per_run) else pd.DataFrame(columns=["measure", "change_bin", "count"]))
    write_tsv(overall, out.logo_overall)
    write_tsv(per_query, out.logo_per_query)
    sig = (per_run.groupby("measure")["significant"].agg(["sum", "count"]).reset_index()
           .rename(columns={"sum": "significant", "count": "runs"}) if len(per_run) else
           pd.DataFrame(columns=["measure", "significant", "runs"]))
    write_tsv(sig, out.logo_significance)
    write_tsv(paper_tables(per_run, per_query, smk.params.cfg["measures"]), out.logo_table)
    logo_histogram(per_query, BINS, out.logo_plot)


def main(smk, log):
    # the analysed runs' first positions, read once for the pool and both analyses (their depths in articles kept)
    analysed = LazyTables({Path(p).stem: p for p in smk.input.firstpos}, keep_keys=True)
    # the pooled runs' first positions: those of the analysed runs that are pooled, and the others
    pooled = [p for p in [*smk.input.firstpos, *smk.input.pooled] if Path(p).stem in smk.params.pooled_runs]
    pool = write_pool(pooled, smk.params.pool_target, smk.params.pool_depth, smk.output, log, hand_over=analysed)
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    measures, relabel = labelled(smk.params.cfg["measures"])
    log.info("%d runs judged on %d topics", len(judged.runs), len(judged.topics))
    original, source = original_pools(judged, pool)
    if "pool_depth" in smk.params.analyses:
        pool_depth(smk, log, judged, original, source, measures, relabel, analysed)
    if "leave_one_group_out" in smk.params.analyses:
        logo(smk, log, judged, original, measures, relabel, analysed)


run_stage(main, snakemake)  # noqa: F821
