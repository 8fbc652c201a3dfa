"""Non-overlapping character ranges of integer keys (e.g. the highlighted passages of each
(topic, document) of the qrels), sorted for binary search, on numpy arrays alone: the core of
:class:`inexflow.model.recallbase.PassageIndex` (which keys them by the strings of a pandas
table) and of the pandas-free scoring of FOL runs (:mod:`inexflow.front.passages`).

With cover(x) the characters of a key's ranges before position x, an item's overlap with
them is cover(end) - cover(start).
"""

from __future__ import annotations

import numpy as np

from inexflow.io.arrow_arrays import stable_order

# the keys are mapped through a dense table up to this many of them
DENSE_KEYS = 1 << 23
# positions are searched as key << 32 | position: a position at or beyond this is taken as this
# (no document is that long), so that it never reaches into the next key's ranges
LAST_POSITION = (1 << 32) - 1


class PassageSpans:
    """The ranges [``start``, ``end``) of the keys ``key`` (non-negative integers below
    ``space``; the ranges of one key do not overlap). Build once, query per run."""

    def __init__(self, key: np.ndarray, start: np.ndarray, end: np.ndarray, space: int):
        self._lut = None  # the dense key table of _key_ids, built on first use
        self.space = space
        self.key_ids, pass_key = np.unique(np.asarray(key, np.int64), return_inverse=True)
        order = np.lexsort((start, pass_key.reshape(-1)))
        pid = pass_key.reshape(-1)[order].astype(np.int64) << 32
        self.ks = pid + np.minimum(np.asarray(start, np.int64)[order], LAST_POSITION)
        self.ke = pid + np.minimum(np.asarray(end, np.int64)[order], LAST_POSITION)
        self.cum = np.concatenate([[0], np.cumsum(self.ke - self.ks)])

    def _cover(self, q):
        j = np.searchsorted(self.ke, q, side="right")
        inside = np.minimum(j, len(self.ks) - 1)
        return self.cum[j] + np.where((j < len(self.ks)) & (self.ks[inside] < q), q - self.ks[inside], 0)

    def _key_ids(self, combined: np.ndarray) -> np.ndarray:
        """Position in ``key_ids`` of each key, -1 where it has no ranges: a dense lookup table
        when the key space is small (built once), else a binary search."""
        if self.space <= DENSE_KEYS:
            if self._lut is None:
                self._lut = np.full(self.space, -1, dtype=np.int64)
                self._lut[self.key_ids] = np.arange(len(self.key_ids))
            return self._lut[combined]
        pos = np.minimum(np.searchsorted(self.key_ids, combined), len(self.key_ids) - 1)
        return np.where(self.key_ids[pos] == combined, pos, -1)

    def overlap_of_keys(self, key: np.ndarray, known: np.ndarray, start: np.ndarray, end: np.ndarray,
                        order: np.ndarray | None = None) -> np.ndarray:
        """Characters of each item's [``start``, ``end``) inside the ranges of its ``key``
        (items where ``known`` is False, whose key may be anything, get 0). ``order``: every
        item, in an order that lists the items of each key together and by start (e.g. sorted
        by a finer key and start), which the searches then follow instead of sorting them."""
        if len(self.ks) == 0:
            return np.zeros(len(start), dtype=np.int64)
        # only items whose keys have ranges need a search
        rows = np.flatnonzero(known) if order is None else order[known[order]]
        pos = self._key_ids(key[rows])
        hit = pos >= 0
        rows, pos = rows[hit], pos[hit]
        if order is None:  # the items in key and start order: the binary searches below then stay in cache
            ordered = stable_order(pos * (int(start[rows].max(initial=0)) + 1) + start[rows])
            rows, pos = rows[ordered], pos[ordered]
        iid = pos.astype(np.int64) << 32
        qs = iid + np.minimum(start[rows], LAST_POSITION)
        qe = iid + np.minimum(np.maximum(end[rows], start[rows]), LAST_POSITION)
        # the first range ending after the start; most items meet at most that one range
        j = np.minimum(np.searchsorted(self.ke, qs, side="right"), len(self.ks) - 1)
        ov = np.maximum(np.minimum(qe, self.ke[j]) - np.maximum(qs, self.ks[j]), 0)
        nxt = np.minimum(j + 1, len(self.ks) - 1)
        more = np.flatnonzero((j + 1 < len(self.ks)) & (self.ks[nxt] < qe))
        ov[more] = self._cover(qe[more]) - self._cover(qs[more])  # items over several ranges
        out = np.zeros(len(start), dtype=np.int64)
        out[rows] = ov
        return out
