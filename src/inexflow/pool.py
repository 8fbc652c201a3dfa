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
    """The pool and the depth per topic from entry depths (see :func:`build_pool`), vectorised."""
    if (target is None) == (depth is None):
        raise ValueError("give exactly one of target (pool size) or depth")
    e = ent.sort_values(["topic", "entry", "doc"], kind="stable").reset_index(drop=True)
    if e.empty:
        return e, pd.DataFrame(columns=["topic", "depth", "pool_size", "candidates"])
    size = e.groupby("topic", sort=False)["entry"].transform("size").to_numpy()
    if depth is not None:
        d = np.full(len(e), int(depth))
    else:
        rank = e.groupby("topic", sort=False).cumcount().to_numpy()
        # smallest depth with >= target distinct documents (all documents when fewer)
        at = np.where(rank == np.minimum(size, target) - 1, e["entry"].to_numpy(), 0)
        d = pd.Series(at).groupby(e["topic"].to_numpy(), sort=False).transform("max").to_numpy()
    keep = e["entry"].to_numpy() <= d
    pool = e[keep]
    dep = pd.DataFrame({"topic": e["topic"], "depth": d, "candidates": size, "keep": keep}).groupby(
        "topic", sort=False).agg(depth=("depth", "first"), pool_size=("keep", "sum"),
                                 candidates=("candidates", "first")).reset_index()
    pool = pool.assign(_k=pool["topic"].map(topic_sort_key)).sort_values(["_k", "entry", "doc"]).drop(columns="_k")
    dep = dep.assign(_k=dep["topic"].map(topic_sort_key)).sort_values("_k").drop(columns="_k")
    dep = dep.astype({"depth": "int64", "pool_size": "int64", "candidates": "int64"})
    return pool.reset_index(drop=True), dep[["topic", "depth", "pool_size", "candidates"]].reset_index(drop=True)


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
