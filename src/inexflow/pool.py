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


def first_positions(results: pd.DataFrame) -> pd.DataFrame:
    """(topic, doc, pos): the first position at which one run returns each document."""
    r = results[["topic", "doc"]]
    pos = r.groupby("topic", sort=False).cumcount().to_numpy() + 1
    first = ~r.duplicated(["topic", "doc"]).to_numpy()
    out = r[first].copy()
    out["pos"] = pos[first]
    return out


def entry_depths(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """(topic, doc, entry): the smallest result position at which any run returns doc."""
    return entries_from_first_positions({name: first_positions(runs[name]) for name in runs})


def entries_from_first_positions(firstpos: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Entry depths from the runs' cached first positions (:func:`first_positions`)."""
    allr = pd.concat([firstpos[name] for name in sorted(firstpos)], ignore_index=True)
    return allr.groupby(["topic", "doc"], sort=False)["pos"].min().rename("entry").reset_index()


def pool_from_entries(ent: pd.DataFrame, target: int | None = None, depth: int | None = None):
    """The pool and the depth per topic from entry depths (see :func:`build_pool`)."""
    if (target is None) == (depth is None):
        raise ValueError("give exactly one of target (pool size) or depth")
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


def build_pool(runs: dict[str, pd.DataFrame], target: int | None = None,
               depth: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool to a ``target`` size per topic, or to a fixed ``depth``.

    Returns (pool: topic, doc, entry; depths: topic, depth, pool_size, candidates).
    """
    if (target is None) == (depth is None):
        raise ValueError("give exactly one of target (pool size) or depth")
    return pool_from_entries(entry_depths(runs), target, depth)


def leave_group_out_entries(runs: dict[str, pd.DataFrame], groups: dict[str, str],
                            cached: bool = False) -> dict[str, pd.DataFrame]:
    """For every group, the entry depths of the pool built without that group's runs.

    ``runs`` holds result tables, or (``cached=True``) the runs' first positions.
    Computed once from a (topic, doc) x group table of first positions: leaving group g out,
    a document enters at the smallest position over the other groups.
    """
    parts = []
    for name in sorted(runs):
        fp = runs[name].copy() if cached else first_positions(runs[name])
        fp["group"] = groups.get(name, name)
        parts.append(fp)
    allr = pd.concat(parts, ignore_index=True)
    wide = allr.groupby(["topic", "doc", "group"], sort=False)["pos"].min().unstack("group")
    names = list(wide.columns)
    m = wide.to_numpy(dtype=float)
    m = np.where(np.isnan(m), np.inf, m)
    out = {}
    for k, g in enumerate(names):
        others = np.delete(m, k, axis=1)
        best = others.min(axis=1) if others.shape[1] else np.full(len(m), np.inf)
        keep = np.isfinite(best)
        e = wide.index.to_frame(index=False)[keep].reset_index(drop=True)
        e["entry"] = best[keep].astype(np.int64)
        out[g] = e
    return out
