"""A plain-text summary of the analyses, stating the known shapes measured on this campaign:
tau reaches 1 at 100% and falls as judgements shrink, which measure is more stable, and
whether swap error rates fall with the topic-set size. Values are read from the tables."""

from __future__ import annotations

import pandas as pd


def _read(path):
    return pd.read_csv(path, sep="\t")


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
    ``depth`` and ``significance``, of the analyses that ran)."""
    lines = ["inexflow analysis summary", ""]
    for name, key, level, noun in (("pool sampling", "sampling", "fraction", "judgements"),
                                   ("topic sampling", "topics", "fraction", "topic sets"),
                                   ("X% pools (pool depth)", "depth", "percent", "pools")):
        path = inp.get(key)
        if path is None:
            continue
        df = _read(path)
        lines.append(f"{name}: mean Kendall tau per level")
        for m, g in df.groupby("measure", sort=False):
            g = g.sort_values(level)
            vals = ", ".join(f"{lv:g}: {t:.3f}" for lv, t in zip(g[level], g["tau"]))
            lines.append(f"  {m}: {vals}  ({trend(g['tau'], noun)})")
        means = df.groupby("measure", sort=False)["tau"].mean().sort_values(ascending=False)
        lines.append(f"  most stable: {means.index[0]} (mean tau {means.iloc[0]:.3f}); least: {means.index[-1]} "
                     f"({means.iloc[-1]:.3f})")
        lines.append("")
    if inp.get("significance") is not None:
        sig = _read(inp["significance"])
        lines.append("significance (pairs of runs significant under Benjamini-Yekutieli, of the ordered pairs)")
        for r in sig.itertuples():
            lines.append(f"  {r.measure} [{r.quant}] {r.test}: {r.significant_pairs} of {r.ordered_pairs}")
        lines.append("")
    if inp.get("swap") is None:
        return "\n".join(lines) + "\n"
    sw = _read(inp["swap"])
    lines.append("swap error rates (tolerance 0): smallest and largest topic-set size")
    for m, g in sw[sw["tolerance"] == 0].groupby("measure", sort=False):
        g = g.sort_values("size")
        lines.append(f"  {m}: size {g['size'].iloc[0]}: {g['error_rate'].iloc[0]:.3f} -> size {g['size'].iloc[-1]}: "
                     f"{g['error_rate'].iloc[-1]:.3f} ({trend(g['error_rate'], 'topic sets')})")
    return "\n".join(lines) + "\n"


# Pal et al., Tables 11-12: tau at 60 % of each sampling analysis
SAMPLING_ROWS = (("Random pool", "sampling", "fraction", 0.6), ("Random query", "topics", "fraction", 0.6),
                 ("Pool depth", "depth", "percent", 60.0))


def tau_at_60(inp, measures) -> pd.DataFrame:
    """Pal et al., Tables 11-12: Kendall tau against the full judgements at 60 % sampling, one row
    per sampling analysis that ran at that level (random pool, random query, pool depth: the
    ``sampling``, ``topics`` and ``depth`` tables of ``inp``), one column per measure in
    ``measures`` order. An analysis whose levels (config ``analysis.pool_fractions``,
    ``topic_fractions``, ``pool_depth_percents``) leave out 60 % has no row."""
    rows = []
    for label, key, level, at in SAMPLING_ROWS:
        if inp.get(key) is None:
            continue
        df = _read(inp[key])
        hit = df[(df[level] - at).abs() < 1e-9]
        if len(hit):
            tau = dict(zip(hit["measure"], hit["tau"]))
            rows.append({"sampling": label} | {m: tau.get(m, float("nan")) for m in measures})
    return pd.DataFrame(rows, columns=["sampling", *measures])
