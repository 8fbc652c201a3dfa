"""A plain-text summary of the analyses, stating the known shapes measured on this campaign:
tau reaches 1 at 100% and falls as judgements shrink, which measure is more stable, and
whether swap error rates fall with the topic-set size. Values are read from the tables."""

from __future__ import annotations

import pandas as pd


def _read(path):
    return pd.read_csv(path, sep="\t")


def summarise(inp) -> str:
    lines = ["inexflow analysis summary", ""]
    for name, path, level in (("pool sampling", inp.sampling, "fraction"), ("topic sampling", inp.topics, "fraction"),
                              ("pool-depth reduction", inp.depth, "reduction")):
        df = _read(path)
        lines.append(f"{name}: mean Kendall tau per level")
        for m, g in df.groupby("measure", sort=False):
            vals = ", ".join(f"{lv:g}: {t:.3f}" for lv, t in zip(g[level], g["tau"]))
            order = g.sort_values(level)["tau"].to_numpy()
            trend = "falls as judgements shrink" if (order[0] <= order[-1]) == (level == "fraction") else "does not fall"
            lines.append(f"  {m}: {vals}  ({trend})")
        means = df.groupby("measure", sort=False)["tau"].mean().sort_values(ascending=False)
        lines.append(f"  most stable: {means.index[0]} (mean tau {means.iloc[0]:.3f}); least: {means.index[-1]} "
                     f"({means.iloc[-1]:.3f})")
        lines.append("")
    sw = _read(inp.swap)
    lines.append("swap error rates (tolerance 0): smallest and largest topic-set size")
    for m, g in sw[sw["tolerance"] == 0].groupby("measure", sort=False):
        g = g.sort_values("size")
        lines.append(f"  {m}: size {g['size'].iloc[0]}: {g['error_rate'].iloc[0]:.3f} -> size {g['size'].iloc[-1]}: "
                     f"{g['error_rate'].iloc[-1]:.3f} ("
                     + ("falls" if g["error_rate"].iloc[-1] <= g["error_rate"].iloc[0] else "does not fall")
                     + " with size)")
    return "\n".join(lines) + "\n"
