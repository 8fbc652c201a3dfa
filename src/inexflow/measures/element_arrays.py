"""The element families' array core: a run's results keyed by integer codes of their topics,
documents and xpaths (the reader's, :meth:`~inexflow.io.canonical.RunTable.codes`, else
factorised once), the rows of an assessments table looked up by them (:class:`RowIndex`, made
once per scoring context), and whether any two results nest (:func:`any_nested`).

A lookup is made once per distinct value of each key column (a few thousand documents, a few
hundred xpaths), then spread to the results through their codes: no Python call per result.
XCG (:mod:`inexflow.measures.xcg`, its overlap-aware gains :mod:`inexflow.measures.overlap`),
HiXEval (:mod:`inexflow.measures.hixeval`), BEPD/EPRUM (:mod:`inexflow.measures.bepd`), the
cut-off and precision-recall families look their results up here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

Codes = dict  # column -> (codes: int64 per row, distinct values: object array), as RunTable.codes gives them

ELEMENT_KEYS = ["topic", "doc", "xpath"]
DENSE_XPATHS = 2048  # up to this many distinct xpaths, any_nested looks pairs up in a table of them all (4 MB)


def result_codes(run, results: pd.DataFrame | None = None, rows: np.ndarray | None = None,
                 columns=ELEMENT_KEYS) -> Codes:
    """The codes of ``columns`` for ``results``: the rows ``rows`` (a boolean mask or
    positions; all where None) of ``run.results``, with the run's codes where the reader kept
    them, else ``results`` factorised."""
    out = {}
    for c in columns:
        kept = run.codes(c) if run is not None else None
        if kept is not None:
            codes, uniques = kept
            out[c] = (np.asarray(codes if rows is None else codes[rows], dtype=np.int64), np.asarray(uniques, dtype=object))
        else:
            codes, uniques = pd.factorize(results[c], use_na_sentinel=False)
            out[c] = (codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object))
    return out


def frame_codes(frame: pd.DataFrame, columns=ELEMENT_KEYS) -> Codes:
    """:func:`result_codes` of a table without a run (every column factorised)."""
    return result_codes(None, frame, columns=columns)


class RowIndex:
    """The rows of a table by the strings of its ``keys`` columns (no two rows share them):
    each column's distinct values numbered, and the rows' composite keys sorted, so that
    :meth:`rows` finds the row of each result by a binary search (the lookup of a left join)."""

    def __init__(self, frame: pd.DataFrame, keys, codes: Codes):
        self.keys = list(keys)
        self.values = [dict(zip(codes[k][1].tolist(), range(len(codes[k][1])))) for k in self.keys]
        self.radix = [max(len(v), 1) for v in self.values]
        composite = _composite([codes[k][0] for k in self.keys], self.radix)
        self.order = np.argsort(composite, kind="stable")
        self.sorted = composite[self.order]
        self.size = len(frame)

    def rows(self, codes: Codes) -> np.ndarray:
        """For each result (``codes`` of the key columns, :func:`result_codes`), the row of
        the table with the same keys, -1 where none has them."""
        n = len(codes[self.keys[0]][0])
        if not self.size or not n:
            return np.full(n, -1, dtype=np.int64)
        mapped = [np.asarray([values.get(v, -1) for v in codes[k][1].tolist()], dtype=np.int64)[codes[k][0]]
                  if len(codes[k][1]) else np.zeros(0, np.int64) for k, values in zip(self.keys, self.values)]
        known = np.logical_and.reduce([m >= 0 for m in mapped])
        composite = _composite([np.where(known, m, 0) for m in mapped], self.radix)
        at = np.minimum(np.searchsorted(self.sorted, composite), len(self.sorted) - 1)
        hit = known & (self.sorted[at] == composite)
        return np.where(hit, self.order[at], -1)


def _composite(codes: list[np.ndarray], radix: list[int]) -> np.ndarray:
    out = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    for c, r in zip(codes, radix):
        out = out * r + c
    return out


def row_index(frame: pd.DataFrame, keys) -> RowIndex | None:
    """The :class:`RowIndex` of ``frame`` on ``keys``, made once for the runs of a session; None
    where two rows share keys (a join would repeat the row joined to them) or the keys' codes
    would not fit 63 bits."""
    codes = frame_codes(frame, keys)
    if int(np.prod([float(max(len(codes[k][1]), 1)) for k in keys])) >= 2 ** 62:
        return None
    index = RowIndex(frame, keys, codes)
    return index if not len(index.sorted) or (index.sorted[1:] != index.sorted[:-1]).all() else None


def joined_values(values: np.ndarray, at: np.ndarray, default: float) -> np.ndarray:
    """``values`` at the rows ``at`` (:meth:`RowIndex.rows`) as floats, ``default`` where there
    is no row or the value is missing (a left join's column with its gaps filled)."""
    out = np.full(len(at), default, dtype=np.float64)
    ok = at >= 0
    v = np.asarray(values, dtype=np.float64)[at[ok]]
    out[ok] = np.where(np.isnan(v), default, v)
    return out


def any_nested(codes: Codes) -> bool:
    """Whether two of the elements (``codes`` of topic, doc, xpath) overlap: the same element
    twice, or one an ancestor of another (its xpath a prefix of the other's ending at a "/")
    in one topic and document. With the distinct xpaths ranked as their strings ``xpath /``
    sort, an element's string is a prefix of its descendants' and every string sorted between
    them starts with it: some pair overlaps exactly when two neighbours do, once the elements
    are sorted by (topic, doc, rank). The neighbours are compared through the (ancestor,
    descendant) pairs among the distinct xpaths, found once."""
    (t, _), (d, d_u), (x, x_u) = (codes[k] for k in ELEMENT_KEYS)
    if len(x) < 2:
        return False
    nd, nx = max(len(d_u), 1), len(x_u)
    names = x_u.tolist()
    rank = np.empty(nx, dtype=np.int64)
    rank[sorted(range(nx), key=lambda i: names[i] + "/")] = np.arange(nx)
    key = np.sort((t * nd + d) * nx + rank[x])
    same = key[1:] // nx == key[:-1] // nx  # neighbours in one topic and document
    before, after = key[:-1][same] % nx, key[1:][same] % nx
    if (before == after).any():
        return True
    position = {p: i for i, p in enumerate(names)}
    nested = []  # rank of the ancestor * nx + rank of the descendant
    for i, p in enumerate(names):
        cut = p.rfind("/")
        while cut > 0:
            a = position.get(p[:cut])
            if a is not None:
                nested.append(int(rank[a]) * nx + int(rank[i]))
            cut = p.rfind("/", 0, cut)
    if not nested:
        return False
    pair = before * nx + after
    if nx <= DENSE_XPATHS:  # a table of every (rank, rank) pair: one gather
        table = np.zeros(nx * nx, dtype=bool)
        table[nested] = True
        return bool(table[pair].any())
    nested = np.sort(np.asarray(nested, dtype=np.int64))
    at = np.minimum(np.searchsorted(nested, pair), len(nested) - 1)
    return bool((nested[at] == pair).any())


def topic_rows(codes: Codes) -> dict[str, np.ndarray]:
    """The positions of each topic's results (``results.groupby("topic", sort=False).indices``),
    from the results' topic ``codes``: topics in order of first appearance, positions ascending."""
    topic, values = codes["topic"]
    counts = np.bincount(topic, minlength=len(values))
    parts = np.split(np.argsort(topic, kind="stable"), np.cumsum(counts)[:-1])
    return {v: p for v, p, n in zip(values.tolist(), parts, counts.tolist()) if n}


def element_codes(run) -> Codes:
    """:func:`result_codes` of the element results of ``run`` (those with an xpath), as
    :func:`~inexflow.measures.context.element_results` selects them."""
    codes = result_codes(run, run.results)
    xpath, distinct = codes["xpath"]
    element = (distinct != "")[xpath]
    return codes if element.all() else {k: (c[element], u) for k, (c, u) in codes.items()}
