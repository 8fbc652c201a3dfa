"""A plain-text summary of the analyses, stating the known shapes measured on this campaign:
tau reaches 1 at 100% and falls as judgements shrink, which measure is more stable, and
whether swap error rates fall with the topic-set size. Values are read from the tables."""

from __future__ import annotations

import math

import numpy as np

from inexflow.io.text_tables import TextTable, read_text_table


def _read(path) -> TextTable:
    return read_text_table(path)


def _groups(df: TextTable, by: str) -> dict:
    """Row numbers of each value of column ``by``, in order of first appearance (pandas'
    ``groupby(sort=False)``)."""
    out: dict = {}
    for i, v in enumerate(df[by].values):
        out.setdefault(v, []).append(i)
    return out


def _order(values: list, descending: bool = False) -> list[int]:
    """The positions of ``values`` in sorted order as pandas' ``sort_values`` gives them
    (``nargsort``: quicksort, missing values last; descending by sorting the reversed values
    and reversing the result)."""
    items = np.asarray(values)
    idx = np.arange(len(items))
    nan = np.isnan(items) if items.dtype.kind == "f" else np.zeros(len(items), bool)
    keep, at = items[~nan], idx[~nan]
    if descending:
        keep, at = keep[::-1], at[::-1]
    order = at[keep.argsort(kind="quicksort")]
    if descending:
        order = order[::-1]
    return [*order.tolist(), *np.flatnonzero(nan).tolist()]


def _mean(values: list) -> float:
    """The mean of the values that are not missing, summed as pandas' groupby mean sums them
    (Kahan's compensated sum); NaN when none is."""
    total = compensation = 0.0
    n = 0
    for v in values:
        if v != v:
            continue
        y = v - compensation
        t = total + y
        compensation = t - total - y
        if compensation != compensation:  # an infinite value: the sum stays infinite
            compensation = 0.0
        total = t
        n += 1
    return total / n if n else math.nan


def trend(values, shrinking: str) -> str:
    """How tau moves as the level falls, by a monotonicity test on values rounded to 3
    decimals (``values`` in increasing level order)."""
    v = [round(float(x), 3) for x in values]
    if len(set(v)) == 1:
        return f"stays at {v[0]:.3f} as {shrinking} shrink"
    if all(a <= b for a, b in zip(v, v[1:])):
        return f"falls as {shrinking} shrink"
    if all(a >= b for a, b in zip(v, v[1:])):
        return f"rises as {shrinking} shrink"
    return f"not monotone as {shrinking} shrink"


def summarise(inp) -> str:
    """The summary of the analysis tables in ``inp`` (``topics``, ``swap``, ``sampling``,
    ``depth``, ``significance`` and ``logo``, of the analyses that ran)."""
    lines = ["inexflow analysis summary", ""]
    for name, key, level, noun in (("pool sampling", "sampling", "fraction", "judgements"),
                                   ("topic sampling", "topics", "fraction", "topic sets"),
                                   ("X% pools (pool depth)", "depth", "percent", "pools")):
        path = inp.get(key)
        if path is None:
            continue
        df = _read(path)
        lines.append(f"{name}: mean Kendall tau per level")
        groups = _groups(df, "measure")
        levels, taus = df[level].values, df["tau"].values
        for m, rows in groups.items():
            rows = [rows[k] for k in _order([levels[r] for r in rows])]
            vals = ", ".join(f"{levels[r]:g}: {taus[r]:.3f}" for r in rows)
            lines.append(f"  {m}: {vals}  ({trend([taus[r] for r in rows], noun)})")
        names = list(groups)
        means = [_mean([taus[r] for r in rows]) for rows in groups.values()]
        order = _order(means, descending=True)
        first, last = order[0], order[-1]
        lines.append(f"  most stable: {names[first]} (mean tau {means[first]:.3f}); least: {names[last]} "
                     f"({means[last]:.3f})")
        lines.append("")
    if inp.get("significance") is not None:
        sig = _read(inp["significance"])
        lines.append("significance (pairs of runs significant under Benjamini-Yekutieli, of the ordered pairs)")
        for m, q, t, s, n in zip(*(sig[c].values for c in ("measure", "quant", "test", "significant_pairs",
                                                           "ordered_pairs"))):
            lines.append(f"  {m} [{q}] {t}: {s} of {n}")
        lines.append("")
    if inp.get("logo") is not None:
        lg = _read(inp["logo"])
        lines.append("leave one group out (runs whose mean changes significantly, paired t-test, when their group's "
                     "documents leave the pool)")
        for m, s, n in zip(*(lg[c].values for c in ("measure", "significant", "runs"))):
            lines.append(f"  {m}: {s} of {n} runs")
        lines.append("")
    if inp.get("swap") is None:
        return "\n".join(lines) + "\n"
    sw = _read(inp["swap"])
    sw = sw.rows([t == 0 for t in sw["tolerance"].values])
    lines.append("swap error rates (tolerance 0): smallest and largest topic-set size")
    sizes, rates = sw["size"].values, sw["error_rate"].values
    for m, rows in _groups(sw, "measure").items():
        rows = [rows[k] for k in _order([sizes[r] for r in rows])]
        a, b = rows[0], rows[-1]
        lines.append(f"  {m}: size {sizes[a]}: {rates[a]:.3f} -> size {sizes[b]}: "
                     f"{rates[b]:.3f} ({trend([rates[r] for r in rows], 'topic sets')})")
    return "\n".join(lines) + "\n"


# Pal et al., Tables 11-12: tau at 60 % of each sampling analysis
SAMPLING_ROWS = (("Random pool", "sampling", "fraction", 0.6), ("Random query", "topics", "fraction", 0.6),
                 ("Pool depth", "depth", "percent", 60.0))


def tau_at_60(inp, measures) -> tuple[list[str], list[list]]:
    """Pal et al., Tables 11-12: Kendall tau against the full judgements at 60 % sampling, one row
    per sampling analysis that ran at that level (random pool, random query, pool depth: the
    ``sampling``, ``topics`` and ``depth`` tables of ``inp``), one column per measure in
    ``measures`` order. An analysis whose levels (config ``analysis.pool_fractions``,
    ``topic_fractions``, ``pool_depth_percents``) leave out 60 % has no row. Returns the header
    and the rows."""
    rows = []
    for label, key, level, at in SAMPLING_ROWS:
        if inp.get(key) is None:
            continue
        df = _read(inp[key])
        hit = [abs(v - at) < 1e-9 for v in df[level].values]
        if any(hit):
            tau = {m: t for m, t, h in zip(df["measure"].values, df["tau"].values, hit) if h}
            rows.append([label, *(float(tau.get(m, math.nan)) for m in measures)])
    return ["sampling", *measures], rows
