"""Pal, Mitra & Kamps' tables in the paper's shape, built from plain values without pandas (the
report stage makes those of the pool analyses from their tables, :mod:`inexflow.analysis.pool_shapes`;
:func:`inexflow.analysis.stability.paper_shape` and :func:`inexflow.analysis.logo.paper_tables`
build them from pandas tables through these functions): Tables 1-2 and 4-5 (tau and tau_AP per
level) and Tables 8-10 (leave-one-group-out's counts per bin)."""

from __future__ import annotations

import math

# the bins of relative change of Pal et al.'s Tables 8-9, in percent
BINS = ["(-inf,-50]", "(-50,-10]", "(-10,0)", "0", "(0,10]", "(10,20]", "(20,50]", "(50,100]"]


def level_rows(rows, level: str) -> tuple[list[str], list[list]]:
    """Tables 1-2 and 4-5: one row per level, labelled "X (#reldocs)" with X in percent (a
    ``fraction`` level times 100), then tau and tau_AP for each measure in order of first
    appearance; ``rows`` are (level value, #reldocs, measure, tau, tau_AP) sorted by level
    (stably). A missing cell is nan. Returns the header and the rows."""
    out: dict[str, dict] = {}
    for x, reldocs, measure, tau, tau_ap in rows:
        x = x * (100 if level == "fraction" else 1)
        row = out.setdefault(f"{x:g} ({int(reldocs):,})", {})
        row[f"{measure} tau"], row[f"{measure} tau_AP"] = tau, tau_ap
    columns = list(dict.fromkeys(k for row in out.values() for k in row))
    return ["Pool % (# reldocs)", *columns], [[label, *(row.get(c, math.nan) for c in columns)]
                                            for label, row in out.items()]


def count_cell(count: int, total: int) -> str:
    """A count as the paper prints it: ``0``, ``7,890 (95%)``, or the count alone when its share
    rounds to 0.0 % (Table 9's ``2``)."""
    if not count:
        return "0"
    pct = 100.0 * count / total if total else 0.0
    return f"{count:,}" if round(pct, 1) == 0 else f"{count:,} ({pct:.1f}%)".replace(".0%)", "%)")


def logo_table_rows(runs_by: dict, sig_by: dict, per_measure: dict, queries_by: dict, q_total: dict,
                    measures) -> tuple[list[str], list[list[str]]]:
    """Pal et al., Tables 8-10 in their shape: one row per (table, row label), one column per
    measure. Table 8 (``overall``): runs per bin of relative change of their mean score
    (``runs_by``: (measure, bin) -> runs); Table 9 (``per query``): (query, run) pairs per bin
    (``queries_by``, totals per measure ``q_total``); Table 10 (``significant``): runs whose
    change is significant (YES) or not (NO) by the two-sided paired t-test (``sig_by``:
    (measure, flag) -> runs). ``per_measure``: the runs of each measure. Cells are counts with
    their share of the column's total in percent. Returns the header and the rows."""
    n_runs = {m: int(per_measure.get(m, 0)) for m in measures}
    rows = []
    for b in BINS:
        rows.append([f"overall (out of {max(n_runs.values(), default=0)} systems)", b,
                     *(count_cell(runs_by.get((m, b), 0), n_runs[m]) for m in measures)])
    for b in BINS:
        rows.append(["per query", b, *(count_cell(int(queries_by.get((m, b), 0)), int(q_total.get(m, 0)))
                                       for m in measures)])
    for label, flag in (("YES", True), ("NO", False)):
        rows.append(["significant (p < 0.05)", label, *(count_cell(sig_by.get((m, flag), 0), n_runs[m])
                                                         for m in measures)])
    return ["table", "row", *measures], rows
