"""INEX document-level pooling (Pal, Mitra & Kamps, section 3; INEX 2005 paper, section 7).

For one topic, each run contributes the documents of its top d results; the pool depth
is the smallest d at which the distinct documents of all runs reach the target pool
size (all documents if the target is never reached). ``position`` is the 1-based
position of a result in the run's ranked list for the topic; a document enters the pool
at the smallest position at which any run returns it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.formats.assessments import topic_sort_key


def entry_depths(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """(topic, doc, entry): the smallest result position at which any run returns doc."""
    parts = []
    for name in sorted(runs):
        r = runs[name][["topic", "doc"]].copy()
        r["pos"] = r.groupby("topic", sort=False).cumcount() + 1
        parts.append(r)
    allr = pd.concat(parts, ignore_index=True)
    out = allr.groupby(["topic", "doc"], sort=False)["pos"].min().rename("entry").reset_index()
    return out


def build_pool(runs: dict[str, pd.DataFrame], target: int | None = None,
               depth: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool to a ``target`` size per topic, or to a fixed ``depth``.

    Returns (pool: topic, doc, entry; depths: topic, depth, pool_size, candidates).
    """
    if (target is None) == (depth is None):
        raise ValueError("give exactly one of target (pool size) or depth")
    ent = entry_depths(runs)
    pools, depths = [], []
    for topic, g in ent.groupby("topic", sort=False):
        e = np.sort(g["entry"].to_numpy())
        if depth is not None:
            d = int(depth)
        elif len(e) <= target:
            d = int(e[-1])
        else:
            d = int(e[target - 1])  # smallest depth with >= target distinct documents
        sel = g[g["entry"] <= d]
        pools.append(sel)
        depths.append((topic, d, len(sel), len(e)))
    pool = pd.concat(pools, ignore_index=True) if pools else ent.iloc[:0]
    pool = pool.assign(_k=pool["topic"].map(topic_sort_key)).sort_values(["_k", "entry", "doc"]).drop(columns="_k")
    dep = pd.DataFrame.from_records(depths, columns=["topic", "depth", "pool_size", "candidates"])
    dep = dep.assign(_k=dep["topic"].map(topic_sort_key)).sort_values("_k").drop(columns="_k")
    return pool.reset_index(drop=True), dep.reset_index(drop=True)
