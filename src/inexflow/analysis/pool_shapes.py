"""The tables in the paper's shape and the figures of the analyses of the pool (Pal, Mitra & Kamps),
made from the tables those analyses write, read without pandas (:mod:`inexflow.io.text_tables`,
typed as pandas types them): the pool-depth reduction's Tables 4-5 and Figures 2 and 6, and
leave-one-group-out's runs per bin, Tables 8-10 and the histogram of the per-query changes. The
workflow's report job makes them (a job that reads a few small tables, for which pandas' import
would be most of the time), so that the pool analyses' job, whose hundred inputs Snakemake hashes
once per output, writes only the tables it computes. The same tables and figures as
:func:`~inexflow.analysis.stability.paper_shape`, :func:`~inexflow.analysis.logo.paper_tables` and
:mod:`inexflow.analysis.plots` make of the pandas tables (both go through
:mod:`inexflow.analysis.shapes` and :mod:`inexflow.analysis.figures`)."""

from __future__ import annotations

from collections import Counter

import numpy as np

from inexflow.analysis.figures import draw_logo_histogram, draw_relevant_vs_depth, draw_tau_curves
from inexflow.analysis.shapes import BINS, level_rows, logo_table_rows
from inexflow.io.text_tables import read_text_table, write_rows


def _groups(values: list) -> dict:
    """Row numbers of each value, in order of first appearance (pandas' ``groupby(sort=False)``)."""
    out: dict = {}
    for i, v in enumerate(values):
        out.setdefault(v, []).append(i)
    return out


def depth_shapes(depth_tsv, curve_tsv, table, depth_plot, curve_plot, task: str) -> None:
    """From the pool-depth reduction's tables (per measure and X%, ``depth_tsv``; relevant
    documents against depth per topic, ``curve_tsv``): Tables 4-5 in the paper's shape
    (``table``), Figure 2 (tau and tau_AP against X, ``depth_plot``) and Figure 6 (``curve_plot``)."""
    dep = read_text_table(depth_tsv, text=["measure"])
    col = {c: dep[c].values for c in ("percent", "reldocs", "measure", "tau", "tau_ap")}
    order = np.argsort(np.asarray(col["percent"], float), kind="stable").tolist()
    write_rows(*level_rows(([col[c][i] for c in ("percent", "reldocs", "measure", "tau", "tau_ap")] for i in order),
                           "percent"), table)
    series = []
    for m, rows in _groups(col["measure"]).items():
        rows = [rows[k] for k in np.argsort([col["percent"][i] for i in rows], kind="stable")]
        stats = {s: ([col[s][i] for i in rows], None) for s in ("tau", "tau_ap")}
        series.append((str(m), [float(col["percent"][i]) for i in rows], stats))
    draw_tau_curves(series, "X% pool (% of the original pool's documents)", f"Pool depth ({task})", depth_plot)
    curve = read_text_table(curve_tsv, text=["topic"])
    depth, found = curve["depth"].values, curve["relevant_found"].values
    draw_relevant_vs_depth([(t, np.asarray([depth[i] for i in rows], float), np.asarray([found[i] for i in rows], float))
                            for t, rows in _groups(curve["topic"].values).items()], curve_plot)


def logo_shapes(runs_tsv, per_query_tsv, overall, table, plot, measures) -> None:
    """From leave-one-group-out's tables (per run, ``runs_tsv``; per query and bin,
    ``per_query_tsv``): the runs per measure and bin (``overall``), Tables 8-10 in the paper's
    shape for ``measures`` (``table``) and the histogram of the per-query changes (``plot``)."""
    per_run = read_text_table(runs_tsv, text=["group", "run", "measure", "change_bin"])
    per_query = read_text_table(per_query_tsv, text=["measure", "bin"])
    run_measure = per_run["measure"].values
    runs_by = Counter(zip(run_measure, per_run["change_bin"].values))
    write_rows(["measure", "change_bin", "count"], [[m, b, n] for (m, b), n in sorted(runs_by.items())], overall)
    q_measure, q_bin, q_count = per_query["measure"].values, per_query["bin"].values, per_query["count"].values
    queries_by: Counter = Counter()
    q_total: Counter = Counter()
    for m, b, n in zip(q_measure, q_bin, q_count):
        queries_by[m, b] += n
        q_total[m] += n
    write_rows(*logo_table_rows(runs_by, Counter(zip(run_measure, per_run["significant"].values)), Counter(run_measure),
                                queries_by, q_total, measures), table)
    counts = []
    for m, rows in _groups(q_measure).items():
        by_bin = {q_bin[i]: q_count[i] for i in rows}
        counts.append((str(m), [by_bin.get(b, 0) for b in BINS]))
    draw_logo_histogram(counts, BINS, plot)
