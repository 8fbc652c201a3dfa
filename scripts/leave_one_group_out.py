"""Stage leave_one_group_out: re-judge each group's runs without its pool contribution."""
from pathlib import Path

import pandas as pd

from inexflow.analysis.logo import BINS, leave_one_group_out, paper_tables
from inexflow.analysis.plots import logo_histogram
from inexflow.analysis.rejudge import JudgedRuns, labelled
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet_metadata, write_tsv
from inexflow.model.pool import LeftOutEntries


def main(smk, log):
    cfg = smk.params.cfg
    judged = JudgedRuns.from_stage_inputs(smk.input)  # every analysed run as judge_run judged it
    # the pooled runs' entry depths with and without each group, as build_pool cached them
    entries = LeftOutEntries.load(smk.input.left_out, smk.params.pool_runs)
    groups = {Path(p).stem: read_parquet_metadata(p)["participant"] for p in smk.input.judged}
    measures, relabel = labelled(cfg["measures"])
    per_run, per_query = leave_one_group_out(judged, entries, groups, measures,
                                             smk.params.pool.get("target"), smk.params.pool.get("depth"))
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
