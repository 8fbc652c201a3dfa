"""Stage leave_one_group_out: re-judge each group's analysed runs on Pal et al.'s 100% pool regenerated from the
analysed runs without the group's runs, against the 100% pool with them (the baseline)."""
from pathlib import Path

import pandas as pd

from inexflow.analysis.logo import BINS, leave_one_group_out, paper_tables
from inexflow.analysis.plots import logo_histogram
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.analysis.stability import original_pools
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet, read_parquet_metadata, write_tsv
from inexflow.model.pool import LazyTables, leave_group_out_entries


def main(smk, log):
    cfg = smk.params.cfg
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    groups = {Path(p).stem: read_parquet_metadata(p)["participant"] for p in smk.input.judged}
    # the analysed runs' entry depths in articles with and without each group, read one run at a time
    entries = leave_group_out_entries(LazyTables({Path(p).stem: p for p in smk.input.firstpos}), groups, cached=True,
                                      articles=True)
    original, _ = original_pools(judged, read_parquet(smk.input.pool))
    measures, relabel = labelled(cfg["measures"])
    per_run, per_query = leave_one_group_out(judged, entries, groups, measures, {t: len(d) for t, d in original.items()})
    log.info("%d groups, %d runs", len(entries.gnames), len(judged.runs))
    per_run, per_query = relabel(per_run), relabel(per_query)
    write_tsv(per_run, smk.output.runs)
    overall = (per_run.groupby(["measure", "change_bin"]).size().rename("count").reset_index()
               if len(per_run) else pd.DataFrame(columns=["measure", "change_bin", "count"]))
    write_tsv(overall, smk.output.overall)
    write_tsv(per_query, smk.output.per_query)
    sig = (per_run.groupby("measure")["significant"].agg(["sum", "count"]).reset_index()
           .rename(columns={"sum": "significant", "count": "runs"}) if len(per_run) else
           pd.DataFrame(columns=["measure", "significant", "runs"]))
    write_tsv(sig, smk.output.significance)
    write_tsv(paper_tables(per_run, per_query, cfg["measures"]), smk.output.paper_tables)
    logo_histogram(per_query, BINS, smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
