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

from inexflow.errors import UsageError
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


def _topic_codes(topics: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Integer codes of topics in topic order (numeric topics numerically)."""
    code, uniq = pd.factorize(topics)
    uniq = [str(u) for u in uniq]
    order = sorted(range(len(uniq)), key=lambda i: topic_sort_key(uniq[i]))
    remap = np.empty(len(uniq), dtype=np.int64)
    remap[order] = np.arange(len(uniq))
    return remap[code], [uniq[i] for i in order]


def pool_from_entries(ent: pd.DataFrame, target: int | None = None, depth: int | None = None):
    """The pool and the depth per topic from entry depths (see :func:`build_pool`), vectorised
    on integer codes."""
    if (target is None) == (depth is None):
        raise UsageError("give exactly one of target (pool size) or depth")
    if ent.empty:
        return ent.copy(), pd.DataFrame(columns=["topic", "depth", "pool_size", "candidates"])
    code, uniq = _topic_codes(ent["topic"])
    dcode, duniq = pd.factorize(ent["doc"], sort=True)
    entry = ent["entry"].to_numpy(np.int64)
    order = np.lexsort((dcode, entry, code))
    code, entry, dcode = code[order], entry[order], dcode[order]
    size = np.bincount(code, minlength=len(uniq))
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    if depth is not None:
        d = np.full(len(uniq), int(depth))
    else:
        # smallest depth with >= target distinct documents (all documents when fewer)
        d = entry[start + np.minimum(size, target) - 1]
    keep = entry <= d[code]
    uniq_arr = np.asarray(uniq, dtype=object)
    pool = pd.DataFrame({"topic": uniq_arr[code[keep]], "doc": np.asarray(duniq, dtype=object)[dcode[keep]],
                         "entry": entry[keep]})
    dep = pd.DataFrame({"topic": uniq, "depth": d.astype(np.int64),
                        "pool_size": np.bincount(code[keep], minlength=len(uniq)).astype(np.int64),
                        "candidates": size.astype(np.int64)})
    return pool, dep


def build_pool(runs: dict[str, pd.DataFrame], target: int | None = None,
               depth: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool to a ``target`` size per topic, or to a fixed ``depth``.

    Returns (pool: topic, doc, entry; depths: topic, depth, pool_size, candidates).
    """
    if (target is None) == (depth is None):
        raise UsageError("give exactly one of target (pool size) or depth")
    return pool_from_entries(entry_depths(runs), target, depth)


def leave_group_out_entries(runs: dict[str, pd.DataFrame], groups: dict[str, str],
                            cached: bool = False) -> dict[str, pd.DataFrame]:
    """For every group, the entry depths of the pool built without that group's runs.

    ``runs`` holds result tables, or (``cached=True``) the runs' first positions.
    Computed once from a (topic, doc) x group matrix of first positions: leaving group g
    out, a document enters at the smallest position over the other groups.
    """
    names = sorted(runs)
    parts = [runs[n] if cached else first_positions(runs[n]) for n in names]
    allr = pd.concat(parts, ignore_index=True)
    gnames = sorted({groups.get(n, n) for n in names})
    gidx = {g: i for i, g in enumerate(gnames)}
    gcode = np.concatenate([np.full(len(p), gidx[groups.get(n, n)], dtype=np.int64) for n, p in zip(names, parts)])
    tcode, tuniq = pd.factorize(allr["topic"], sort=True)
    dcode, duniq = pd.factorize(allr["doc"], sort=True)
    key = tcode.astype(np.int64) * len(duniq) + dcode
    mins = pd.DataFrame({"k": key, "g": gcode, "pos": allr["pos"].to_numpy(np.int64)}).groupby(
        ["k", "g"], sort=True)["pos"].min()
    kcode, kuniq = pd.factorize(mins.index.get_level_values(0).to_numpy(), sort=True)
    m = np.full((len(kuniq), len(gnames)), np.inf)
    m[kcode, mins.index.get_level_values(1).to_numpy()] = mins.to_numpy()
    ktopic = np.asarray(tuniq, dtype=object)[kuniq // len(duniq)]
    kdoc = np.asarray(duniq, dtype=object)[kuniq % len(duniq)]
    out = {}
    for k, g in enumerate(gnames):
        best = np.delete(m, k, axis=1).min(axis=1) if len(gnames) > 1 else np.full(len(m), np.inf)
        keep = np.isfinite(best)
        out[g] = pd.DataFrame({"topic": ktopic[keep], "doc": kdoc[keep], "entry": best[keep].astype(np.int64)})
    return out
