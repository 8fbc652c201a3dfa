"""Leave-one-group-out (Pal, Mitra & Kamps, "Leave-One-Out", Tables 8-10).

"We start with the 100% pool reconstructed from the INEX focused submissions (see the
Reducing Pool-Depth subsection) as our baseline. For each participating group, a pool is
recreated by excluding all the focused runs from that group. Each excluded run is then
evaluated using the assessments generated from this pool. We compare the new scores with
those computed from baseline qrels for each query and for each run."

The baseline is the 100% pool of :mod:`.stability`: the pool regenerated from the analysed
runs, depth counted in articles, cut per topic at the smallest depth where it holds the
topic's original pool size (:func:`~inexflow.analysis.stability.original_pools`); the
baseline qrels are the original relevant documents inside it. Leaving group g out, the pool
is recreated the same way from the other groups' analysed runs (the same per-topic size, so
deeper where g's documents are missing) and the new qrels are the original relevant
documents inside it. Relative change = (baseline - new) / baseline * 100 (positive: the
new score is lower), binned as in the paper; a two-sided paired t-test per run over the
topics says whether the change is significant.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

BINS = ["(-inf,-50]", "(-50,-10]", "(-10,0)", "0", "(0,10]", "(10,20]", "(20,50]", "(50,100]"]


def paired_t_pvalue(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided paired t-test of ``a`` against ``b`` (Student 1908; as ``scipy.stats.ttest_rel``):
    t = mean(d) / sqrt(var(d, ddof=1) / n) with d = a - b, p = 2 P(T_{n-1} > |t|). Only
    ``scipy.special`` is imported: ``scipy.stats`` would cost this stage 0.6 s."""
    from scipy.special import stdtr

    d = np.asarray(a, float) - np.asarray(b, float)
    n = len(d)
    mean = d.mean()
    var = np.mean((d - mean) ** 2) * (n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(var / n)
    return float(2 * stdtr(n - 1, -abs(t)))


def change_bins(baseline: np.ndarray, new: np.ndarray) -> np.ndarray:
    """:func:`change_bin` of each pair of ``baseline`` and ``new`` values, as an object array
    (the same comparisons on the same float64 arithmetic, element-wise)."""
    b, n = np.asarray(baseline, np.float64), np.asarray(new, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (b - n) / b * 100
    conditions = [b == n, b == 0, c <= -50, c <= -10, c < 0, c <= 10, c <= 20, c <= 50]
    labels = ["0", BINS[0], BINS[0], BINS[1], BINS[2], BINS[4], BINS[5], BINS[6]]
    return np.select(conditions, np.array(labels, dtype=object), default=BINS[7]).astype(object)


def change_bin(baseline: float, new: float) -> str:
    if baseline == new:
        return "0"
    if baseline == 0:
        return BINS[0]  # from nothing to something: an unbounded improvement
    c = (baseline - new) / baseline * 100
    if c <= -50:
        return BINS[0]
    if c <= -10:
        return BINS[1]
    if c < 0:
        return BINS[2]
    if c <= 10:
        return BINS[4]
    if c <= 20:
        return BINS[5]
    if c <= 50:
        return BINS[6]
    return BINS[7]


def leave_one_group_out(judged, entries, groups: dict[str, str], measures, sizes: dict[str, int]):
    """``entries``: the analysed runs' :class:`~inexflow.model.pool.LeftOutEntries` in articles
    (:func:`~inexflow.model.pool.leave_group_out_entries` with ``articles=True``); ``groups``:
    the group of every judged run; ``sizes``: each topic's original pool size.

    Returns (per-run table: group, run, measure, baseline, new, change_bin, t_p, significant;
    per-query bin counts: measure, bin, count)."""
    rel_pairs = {t: entries.pair_index(t, docs) for t, docs in judged.rel_docs.items()}

    def masks(pooled):
        return {t: (ix >= 0) & pooled[np.maximum(ix, 0)] if len(pooled) else np.zeros(len(ix), bool)
                for t, ix in rel_pairs.items()}

    # the baseline: the 100% pool; each measure's scores as an array (runs x topics)
    full_topics, full = judged.score_arrays(masks(entries.pooled(None, target=sizes)), measures)
    full_rows = {r: i for i, r in enumerate(judged.runs)}
    run_rows, query_bins = [], []
    for g in sorted(set(groups.values()) | set(entries.runs.values())):
        members = [r for r in judged.runs if groups.get(r) == g]
        others = [r for r, rg in entries.runs.items() if rg != g]
        if not members or not others:
            continue
        pooled = entries.pooled(g, target=sizes)  # = pool_from_entries(entries[g], ...) per topic size
        logging.getLogger("inexflow").info("leave-one-group-out: group %s (%d runs)", g, len(members))
        new_topics, new = judged.score_arrays(masks(pooled), measures, runs=members)
        rows = [full_rows[r] for r in members]
        for m in measures:
            base_m = full[m][rows]
            # the new scores on the baseline's topics; a topic left without relevant documents scores 0
            new_m = _on_columns(new[m], new_topics, full_topics)
            for k, r in enumerate(members):
                b, n = base_m[k], new_m[k]
                d = b - n
                if np.allclose(d, d[0]):  # no variance: identical (p 1) or a constant shift (p 0)
                    p = 1.0 if np.isclose(d[0], 0) else 0.0
                else:
                    p = paired_t_pvalue(b, n)
                run_rows.append((g, r, m, float(b.mean()), float(n.mean()), change_bin(b.mean(), n.mean()), p,
                                 bool(p < 0.05)))
                query_bins.append((m, change_bins(b, n)))
    runs = pd.DataFrame(run_rows, columns=["group", "run", "measure", "baseline", "new", "change_bin", "t_p",
                                           "significant"])
    q = pd.DataFrame({"measure": np.repeat(np.array([m for m, _ in query_bins], dtype=object),
                                           [len(b) for _, b in query_bins]),
                      "bin": np.concatenate([b for _, b in query_bins]) if query_bins else np.zeros(0, object)})
    counts = (q.groupby(["measure", "bin"]).size().rename("count").reset_index() if len(q) else
              pd.DataFrame(columns=["measure", "bin", "count"]))
    counts["bin"] = pd.Categorical(counts["bin"], BINS, ordered=True)
    counts = counts.sort_values(["measure", "bin"]).reset_index(drop=True)
    counts["bin"] = counts["bin"].astype(str)
    return runs, counts


def _on_columns(values: np.ndarray, columns: list, wanted: list) -> np.ndarray:
    """The array ``values`` (rows x ``columns``) on the columns ``wanted`` instead: a column
    of ``wanted`` not among ``columns`` is 0 (as ``DataFrame.reindex(columns=wanted,
    fill_value=0.0)``)."""
    have = {c: j for j, c in enumerate(columns)}
    out = np.zeros((len(values), len(wanted)))
    for j, c in enumerate(wanted):
        if c in have:
            out[:, j] = values[:, have[c]]
    return out


def _count_cell(count: int, total: int) -> str:
    """A count as the paper prints it: ``0``, ``7,890 (95%)``, or the count alone when its share
    rounds to 0.0 % (Table 9's ``2``)."""
    if not count:
        return "0"
    pct = 100.0 * count / total if total else 0.0
    return f"{count:,}" if round(pct, 1) == 0 else f"{count:,} ({pct:.1f}%)".replace(".0%)", "%)")


def _counts(df: pd.DataFrame, columns: list[str]) -> dict:
    """{(value of each of ``columns``): the number of rows of ``df`` with them}."""
    if not len(df):
        return {}
    return {k: int(n) for k, n in df.groupby(columns, sort=False).size().items()}


def paper_tables(per_run: pd.DataFrame, per_query: pd.DataFrame, measures) -> pd.DataFrame:
    """Pal et al., Tables 8-10 in their shape: one row per (table, row label), one column per
    measure. Table 8 (``overall``): runs per bin of relative change of their mean score;
    Table 9 (``per query``): (query, run) pairs per bin; Table 10 (``significant``): runs whose
    change is significant (YES) or not (NO) by the two-sided paired t-test. Cells are counts
    with their share of the column's total in percent. ``per_run`` and ``per_query`` are the
    outputs of :func:`leave_one_group_out`."""
    runs_by = _counts(per_run, ["measure", "change_bin"])
    sig_by = _counts(per_run, ["measure", "significant"])
    per_measure = per_run["measure"].value_counts().to_dict() if len(per_run) else {}
    n_runs = {m: int(per_measure.get(m, 0)) for m in measures}
    queries_by = per_query.groupby(["measure", "bin"])["count"].sum().to_dict() if len(per_query) else {}
    q_total = per_query.groupby("measure")["count"].sum().to_dict() if len(per_query) else {}
    rows = []
    for b in BINS:
        rows.append({"table": f"overall (out of {max(n_runs.values(), default=0)} systems)", "row": b} | {
            m: _count_cell(runs_by.get((m, b), 0), n_runs[m]) for m in measures})
    for b in BINS:
        rows.append({"table": "per query", "row": b} | {
            m: _count_cell(int(queries_by.get((m, b), 0)), int(q_total.get(m, 0))) for m in measures})
    for label, flag in (("YES", True), ("NO", False)):
        rows.append({"table": "significant (p < 0.05)", "row": label} | {
            m: _count_cell(sig_by.get((m, flag), 0), n_runs[m]) for m in measures})
    return pd.DataFrame(rows, columns=["table", "row", *measures])
