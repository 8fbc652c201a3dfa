"""trec_eval's document measures on arrays, without pandas: the core of the ``trec`` family
(:mod:`inexflow.measures.trec`, which says what each measure is) and of document scoring from
Arrow columns (:mod:`inexflow.front.documents`).

A run's documents are ordered as trec_eval reads them (:func:`trec_order`), reduced to each
document's first result in its topic in that order (its highest-scoring), and looked up in the judgements (:class:`Judged`, by
integer codes); the measures of every topic are then computed at once (:func:`document_measures`)
on a rank x topic matrix of gains, so that every per-topic sum runs in rank order, one
addition after the other, as trec_eval adds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from inexflow.io.arrow_arrays import (
    MatchSubstringOptions,
    SetLookupOptions,
    SortOptions,
    arrow_of,
    bools_of,
    cast,
    compute,
    numpy_of,
    stable_order,
    strings_of,
    take,
)
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.registry import MEANS, RBP_P, RECALL_LEVELS


def trec_order(topic_pos: np.ndarray, score: np.ndarray, doc) -> np.ndarray:
    """The row order in which trec_eval reads a run: topic position ascending, then descending
    score, ties by descending document id (compared as bytes, as trec_eval's ``strcmp``);
    stable, so repeated documents keep their file order. ``doc``: the document ids (an Arrow
    string or dictionary array, any sequence of strings, or an integer array of the ids'
    numbers, :func:`inexflow.io.run_arrow.canonical_numbers`). Document ids are compared only
    where (topic, score) is tied."""
    topic_pos = np.asarray(topic_pos, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    dt, ds = np.diff(topic_pos), np.diff(score)
    if ((dt > 0) | ((dt == 0) & (ds <= 0))).all() and not np.isnan(score).any():
        order = np.arange(len(score))  # already in order, as most runs are written: only ties to break
        same = (dt == 0) & (score[1:] == score[:-1])
    else:
        table = pa.table({"t": arrow_of(topic_pos), "s": arrow_of(score)})
        order = numpy_of(compute("sort_indices", table, options=SortOptions([("t", "ascending"), ("s", "descending")]))
                         ).copy()
        t, s = topic_pos[order], score[order]
        same = (t[1:] == t[:-1]) & ((s[1:] == s[:-1]) | (np.isnan(s[1:]) & np.isnan(s[:-1])))
    if not same.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    at = np.flatnonzero(tied)  # positions in ``order`` of the rows that tie with a neighbour
    group = np.cumsum(np.concatenate([[True], ~same[at[:-1]] | (np.diff(at) > 1)]))
    rows = order[at]
    # the tied rows by group, then document id descending in byte order; the sort is stable, so
    # repeated documents keep their file order
    pos = _number_tie_order(group, doc[rows]) if is_numbers(doc) else None
    if pos is None:  # (Arrow compares strings as bytes)
        tied_rows = pa.table({"g": arrow_of(group), "d": doc_strings(doc, rows)})
        pos = numpy_of(compute("sort_indices", tied_rows, options=SortOptions([("g", "ascending"),
                                                                              ("d", "descending")])))
    order[at] = rows[pos]
    return order


def _number_tie_order(group: np.ndarray, number: np.ndarray) -> np.ndarray | None:
    """:func:`trec_order`'s order of tied rows (``group`` non-decreasing) whose document ids are
    the numbers ``number`` (written as ``str`` writes them), without making the strings: the
    ids compared as bytes are the numbers padded with zeros on the right to one width, ties
    (one id a prefix of the other) broken by length. None where the keys do not fit in one
    64-bit sort."""
    number = np.asarray(number, dtype=np.int64)
    width = len(str(int(number.max(initial=0))))
    span = 10**width * (width + 1)  # the padded number and the length in one key below this
    if (int(group[-1]) + 1) * span >= 2 ** (62 - int(len(group) - 1).bit_length()):
        return None
    digits = np.ones(len(number), dtype=np.int64)
    for k in range(1, width):
        digits += number >= 10**k
    key = number * 10 ** (width - digits) * (width + 1) + digits
    return stable_order(group * span + (span - 1 - key))


def is_numbers(doc) -> bool:
    """Whether document ids ``doc`` are given as their numbers (an integer numpy array)."""
    return isinstance(doc, np.ndarray) and doc.dtype.kind in "iu"


def doc_strings(doc, rows: np.ndarray) -> pa.Array:
    """The document ids of ``rows`` of ``doc`` (as :func:`trec_order` takes them) as Arrow strings."""
    if is_numbers(doc):
        return cast(arrow_of(np.asarray(doc, dtype=np.int64)[rows]), pa.string())
    dcode, ddict = encoded(doc)
    return take(ddict, arrow_of(dcode[rows]))


def pair_keys(tcode: np.ndarray, dcode: np.ndarray) -> np.ndarray:
    """One int64 per (topic code, document code) pair, equal where both are equal (codes >= 0;
    document numbers too large to combine are numbered first)."""
    dmax = int(dcode.max(initial=0))
    if (int(tcode.max(initial=0)) + 1) * (dmax + 1) >= 2**63:
        dcode = np.unique(dcode, return_inverse=True)[1].reshape(-1)
        dmax = len(dcode)
    return tcode.astype(np.int64) * (dmax + 1) + dcode


def encoded(values) -> tuple[np.ndarray, pa.Array]:
    """Integer codes of strings, numbered in the order they first appear (a dictionary array:
    its own), and the distinct strings as an Arrow array."""
    enc = values if isinstance(values, pa.DictionaryArray) else compute("dictionary_encode", _plain(values))
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    return numpy_of(enc.indices).astype(np.int64), enc.dictionary


def codes_of(values) -> tuple[np.ndarray, list[str]]:
    """:func:`encoded`, the distinct strings as a list."""
    codes, distinct = encoded(values)
    return codes, distinct.to_pylist()


def _matrix(values: np.ndarray, counts: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """``values`` grouped by topic (``counts`` per topic, in order) as a rank x topic matrix,
    padded with ``fill``."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.full((int(counts.max(initial=0)), len(counts)), fill, dtype=np.float64)
    col = np.repeat(np.arange(len(counts)), counts)
    row = np.arange(len(values)) - np.repeat(np.cumsum(counts) - counts, counts)
    out[row, col] = values
    return out


@dataclass(frozen=True)
class TopicGrades:
    """What the measures need of each scored topic's judged grades (every qrels line of the
    topic), the same for every run scored on the same topics: the number of relevant
    (grade >= ``level``) and judged non-relevant documents, the ideal ranking's gains (each
    topic's positive grades, descending, as a rank x topic matrix) and the highest grade."""

    grades: list[np.ndarray]
    level: int
    nrel: np.ndarray
    nonrel: np.ndarray
    ideal: np.ndarray
    top: np.ndarray

    @classmethod
    def of(cls, grades: list[np.ndarray], level: int = 1) -> TopicGrades:
        nrel = np.array([(g >= level).sum() for g in grades], dtype=np.float64)
        nonrel = np.array([((g >= 0) & (g < level)).sum() for g in grades], dtype=np.float64)
        ideal = _matrix(np.concatenate([np.sort(g[g > 0])[::-1] for g in grades] or [np.zeros(0)]),
                        [int((g > 0).sum()) for g in grades])
        top = np.array([g.max(initial=0) for g in grades], dtype=np.float64)
        return cls(grades, level, nrel, nonrel, ideal, top)

    @cached_property
    def ideal_dcg(self) -> np.ndarray:
        """Cumulative DCG of the ideal ranking down the ranks."""
        ranks = np.arange(2, len(self.ideal) + 2, dtype=np.float64)[:, None]
        return np.cumsum(self.ideal / np.log2(ranks), axis=0)


NONPOOL, UNJUDGED = -1.0, -2.0  # trec_eval's RELVALUE_NONPOOL (not in the qrels), RELVALUE_UNJUDGED (rel < 0)


class Ranking:
    """The judgements of a run's retrieved documents, every topic at once, and trec_eval's
    measures of them (``trec_eval``'s ``m_*.c``, version 10.0; :mod:`inexflow.measures.trec`
    says what each is).

    ``rel`` holds, for each retrieved document grouped by topic in trec_eval's order, its
    grade (>= 0), :data:`NONPOOL` where the qrels do not list it or :data:`UNJUDGED` where
    they list it with a negative grade; ``counts`` the documents per topic; ``grades`` each
    topic's judged grades (every qrels line of the topic), or their :class:`TopicGrades`;
    ``level`` trec_eval's ``-l``: a grade at least this is relevant. Every per-topic sum runs down the ranks of a rank x topic
    matrix, one addition after the other, in the order trec_eval adds."""

    def __init__(self, rel: np.ndarray, counts, grades: list[np.ndarray] | TopicGrades, level: int = 1,
                 judged_only: bool = False):
        self.counts = np.asarray(counts, dtype=np.int64)
        self.judged_only = judged_only
        self._topics = grades if isinstance(grades, TopicGrades) and grades.level == level else TopicGrades.of(
            grades.grades if isinstance(grades, TopicGrades) else grades, level)
        self.rel = _matrix(np.asarray(rel, dtype=np.float64), self.counts, fill=NONPOOL)
        self.level = level
        self.cols = np.arange(len(self.counts))
        self.ranks = np.arange(1, len(self.rel) + 1, dtype=np.float64)[:, None]
        self.isrel = self.rel >= level
        self.hits = np.cumsum(self.isrel, axis=0)
        self.nrel, self.nonrel, self.ideal = self._topics.nrel, self._topics.nonrel, self._topics.ideal
        self.nrr = self.hits[-1].astype(np.float64) if len(self.rel) else np.zeros(len(self.counts))

    # helpers ---------------------------------------------------------------------------------
    def _at(self, matrix: np.ndarray, k) -> np.ndarray:
        """Each topic's row ``min(k, num_ret) - 1`` of a cumulative ``matrix`` (0 where none)."""
        k = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), self.counts.shape), self.counts)
        if not len(matrix):
            return np.zeros(len(self.counts))
        return np.where(k > 0, matrix[np.maximum(k - 1, 0), self.cols], 0).astype(np.float64)

    def _safe(self, d: np.ndarray) -> np.ndarray:
        return np.where(d > 0, d, 1)

    def _per_rel(self, num: np.ndarray) -> np.ndarray:
        """``num`` / num_rel, 0 where the topic has no relevant document."""
        return np.where(self.nrel > 0, num / self._safe(self.nrel), 0.0)

    def _cached(self, name: str, make):
        if name not in self.__dict__:
            self.__dict__[name] = make()
        return self.__dict__[name]

    @property
    def precision_at_rel(self) -> np.ndarray:
        """The precision at each relevant retrieved document (0 elsewhere)."""
        return self._cached("_par", lambda: np.where(self.isrel, self.hits / self.ranks, 0.0))

    @property
    def cum_precision_at_rel(self) -> np.ndarray:
        return self._cached("_cpar", lambda: np.cumsum(self.precision_at_rel, axis=0))

    @property
    def dcg(self) -> np.ndarray:
        """Cumulative DCG down the ranks: gain = grade where positive, discount log2(rank + 1)."""
        return self._cached("_dcg", lambda: np.cumsum(np.where(self.rel > 0, self.rel, 0.0) / np.log2(self.ranks + 1),
                                                      axis=0))

    @property
    def ideal_dcg(self) -> np.ndarray:
        return self._topics.ideal_dcg

    def _ideal_at(self, k) -> np.ndarray:
        npos = (self.ideal > 0).sum(axis=0)
        k = np.minimum(np.broadcast_to(np.asarray(k, dtype=np.int64), npos.shape), npos)
        if not len(self.ideal):
            return np.zeros(len(self.counts))
        return np.where(k > 0, self.ideal_dcg[np.maximum(k - 1, 0), self.cols], 0.0)

    @property
    def interpolated(self) -> np.ndarray:
        """trec_eval's interpolated precision at the n-th relevant retrieved document (row
        n - 1): the highest precision at or below it, max over j >= n of j / rank_j."""
        def make():
            nmax = int(self.nrr.max(initial=0))
            out = np.zeros((nmax, len(self.counts)))
            if nmax:
                best = np.maximum.accumulate(self.precision_at_rel[::-1], axis=0)[::-1]
                row, col = np.nonzero(self.isrel)
                out[self.hits[row, col] - 1, col] = best[row, col]
            return out
        return self._cached("_interp", make)

    def _recall_cutoffs(self, levels) -> np.ndarray:
        """trec_eval 10's recall levels as numbers of relevant documents: round(x * num_rel),
        halves away from zero (``lround``; trec_eval 9 added 0.9 and truncated)."""
        return np.floor(np.asarray(levels, dtype=np.float64)[:, None] * self.nrel[None, :] + 0.5).astype(np.int64)

    def iprec_at_recall(self, levels) -> np.ndarray:
        """Interpolated precision at each recall level (rows) of each topic."""
        cut = self._recall_cutoffs(levels)
        first = self.interpolated[0] if len(self.interpolated) else np.zeros(len(self.counts))
        inner = self.interpolated[np.clip(cut - 1, 0, max(len(self.interpolated) - 1, 0)), self.cols] \
            if len(self.interpolated) else np.zeros(cut.shape)
        # with -J, trec_eval divides 0 by 0 for a topic with no document left: NaN
        empty = np.where(self.judged_only & (self.counts == 0), np.nan, 0.0)
        return np.where(cut > self.nrr, 0.0, np.where(cut == 0, np.where(self.nrr > 0, first, empty), inner))

    # the measures ----------------------------------------------------------------------------
    def num_ret(self):
        return self.counts.astype(np.float64)

    def num_rel(self):
        return self.nrel

    def num_rel_ret(self):
        return self.nrr

    def map(self):
        return self._per_rel(self._at(self.cum_precision_at_rel, self.counts))

    def Rprec(self):
        return self._per_rel(self._at(self.hits, self.nrel.astype(np.int64)))

    def bpref(self):
        judged_nonrel = (self.rel >= 0) & ~self.isrel
        before = np.cumsum(judged_nonrel, axis=0)  # judged non-relevant so far (none at a relevant row)
        r = self.nrel[None, :]
        part = 1.0 - np.minimum(before, r) / self._safe(np.minimum(self.nonrel, self.nrel))[None, :]
        return self._per_rel(np.where(self.isrel, np.where(before > 0, part, 1.0), 0.0).sum(axis=0))

    def recip_rank(self):
        first = np.argmax(self.isrel, axis=0) if len(self.rel) else np.zeros(len(self.counts), dtype=np.int64)
        return np.where(self.nrr > 0, 1.0 / (first + 1.0), 0.0)

    def infAP(self):
        judged = self.rel >= 0
        rel_so_far = self.hits
        nonrel_so_far = np.cumsum(judged & ~self.isrel, axis=0)
        unjudged_so_far = np.cumsum(self.rel == UNJUDGED, axis=0)
        j = self.ranks - 1
        fj = np.where(j > 0, j, 1.0)
        eps = 1e-5  # trec_eval's INFAP_EPSILON
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / fj)
                * ((rel_so_far - 1 + eps) / (rel_so_far - 1 + nonrel_so_far + 2 * eps)))
        return self._per_rel(np.where(self.isrel, np.where(j == 0, 1.0, term), 0.0).sum(axis=0))

    def Rprec_mult(self, mults) -> np.ndarray:
        """Precision at rank x * R (truncated after adding 0.9, as trec_eval), at each multiple x."""
        cut = (np.asarray(mults, dtype=np.float64)[:, None] * self.nrel[None, :] + 0.9).astype(np.int64)
        return np.where(cut > 0, np.stack([self._at(self.hits, c) for c in cut]) / np.where(cut > 0, cut, 1), 0.0)

    def utility(self):
        # trec_eval's default coefficients 1, -1, 0, 0 (no collection size given)
        return (1.0 * self.nrr + -1.0 * (self.counts - self.nrr) + 0.0 * (self.nrel - self.nrr)
                + 0.0 * (self.nrr - self.counts - self.nrel))

    def ndcg(self):
        dcg = self._at(self.dcg, self.counts)
        npos = (self.ideal > 0).sum(axis=0)
        idcg = self._ideal_at(npos)
        return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)

    def dcg_all(self):
        """trec_eval's ``dcg``: ndcg's numerator, the DCG of every retrieved document."""
        return self._at(self.dcg, self.counts)

    def ideal_dcg_all(self):
        """trec_eval's ``ideal_dcg``: ndcg's denominator, the DCG of every positive judgement."""
        return self._ideal_at((self.ideal > 0).sum(axis=0))

    def yaap(self):
        # Robertson's "Yet Another Average Precision" (m_yaap.c): log((1 + S) / (1 + R - S)), S the
        # sum over the retrieved relevant documents of the precision at each
        s = self._at(self.cum_precision_at_rel, self.counts)
        return np.log((1.0 + s) / (1.0 + self.nrel - s))

    def ndcg_cut(self, k):
        dcg, idcg = self._at(self.dcg, k), self._ideal_at(k)
        return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), dcg)

    def P(self, k):
        return self._at(self.hits, k) / k

    def recall(self, k):
        return self._per_rel(self._at(self.hits, k))

    def map_cut(self, k):
        return self._per_rel(self._at(self.cum_precision_at_rel, k))

    def relative_P(self, k):
        return np.where(self.nrel > 0, self._at(self.hits, k) / self._safe(np.minimum(k, self.nrel)), 0.0)

    def success(self, k):
        return (self._at(self.hits, k) > 0).astype(np.float64)

    def unj(self, k):
        return self._at(np.cumsum(self.rel < 0, axis=0), k) / k

    def binG(self):
        # each relevant document discounted by log2(2 + the non-relevant documents above it + 1)
        part = np.where(self.isrel, 1.0 / np.log2(3 + (self.ranks - 1) - self.hits), 0.0)
        return np.where(self.nrr > 0, part.sum(axis=0) / self._safe(self.nrel), 0.0)

    def G(self):
        # gain = grade, discounted by log2(2 + the ideal's cost so far - the gain so far), the
        # cost of a rank the ideal gain there, at least 1; over the ideal's total gain
        gain = np.where(self.rel > 0, self.rel, 0.0)
        n = len(self.rel)
        ideal = np.zeros_like(gain)
        rows = min(n, len(self.ideal))
        ideal[:rows] = self.ideal[:rows]
        cost = np.cumsum(np.maximum(ideal, 1.0), axis=0)
        part = np.where(gain != 0, gain / np.log2(2 + cost - np.cumsum(gain, axis=0)), 0.0)
        total = self.ideal.sum(axis=0) if len(self.ideal) else np.zeros(len(self.counts))
        return np.where(total > 0, part.sum(axis=0) / np.where(total > 0, total, 1), 0.0)

    def _npos(self) -> np.ndarray:
        return (self.ideal > 0).sum(axis=0)

    def ndcg_rel(self):
        # nDCG averaged over the ranks of the relevant documents retrieved, the rest at the end
        npos = self._npos()
        if not len(self.ideal):
            return np.zeros(len(self.counts))
        idx = np.minimum(self.ranks.astype(np.int64) - 1, np.maximum(npos - 1, 0)[None, :])
        idcg = self.ideal_dcg[np.minimum(idx, len(self.ideal) - 1), self.cols[None, :]]
        pos = self.rel > 0
        ratio = np.where(pos, self.dcg / np.where(idcg > 0, idcg, 1), 0.0)
        total = ratio.sum(axis=0)
        last = self._at(self.dcg, self.counts) / self._safe(self._ideal_at(npos))
        total = total + (npos - pos.sum(axis=0)) * last
        return np.where((total > 0) & (npos > 0), total / self._safe(npos), 0.0)

    def Rndcg(self):
        # nDCG at each rank where the ideal gain drops (and at the end of a longer run), averaged
        npos = self._npos()
        out = np.zeros(len(self.counts))
        # relevant documents but no positive gain (-l 0 with grade-0 judgements only): trec_eval
        # averages over no point, 0 / 0
        out[(self.nrel > 0) & (npos == 0)] = np.nan
        for c in np.flatnonzero((self.nrel > 0) & (npos > 0)):
            ideal = np.append(self.ideal[:npos[c], c], 0.0)
            change = np.flatnonzero(ideal[1:] != ideal[:-1]) + 1
            n = self.counts[c]
            points = [self._dcg_prefix(c, min(i, n)) / self.ideal_dcg[i - 1, c] for i in change]
            if n > npos[c] + 1:
                points.append(self._dcg_prefix(c, n) / self.ideal_dcg[npos[c] - 1, c])
            total = 0.0
            for v in points:
                total += v
            out[c] = total / len(points) if points else np.nan
        return out

    def _dcg_prefix(self, col: int, k: int) -> float:
        return float(self.dcg[k - 1, col]) if k > 0 else 0.0

    def Judged(self, k):
        """ir_measures' Judged@k: the share of the first min(k, num_ret) documents that the qrels
        list (a negative grade included)."""
        shown = np.minimum(k, self.counts)
        judged = self._at(np.cumsum(self.rel != NONPOOL, axis=0), k)
        return np.where(shown > 0, judged / np.where(shown > 0, shown, 1), 0.0)

    def set_P(self):
        return np.where(self.counts > 0, self.nrr / self._safe(self.counts), 0.0)

    def set_recall(self):
        return self._per_rel(self.nrr)

    def set_relative_P(self):
        both = (self.counts > 0) & (self.nrel > 0)
        return np.where(both, self.nrr / self._safe(np.minimum(self.counts, self.nrel)), 0.0)

    def set_map(self):
        both = (self.counts > 0) & (self.nrel > 0)
        return np.where(both, (self.nrr * self.nrr) / self._safe(self.counts * self.nrel), 0.0)

    def set_F(self, beta: float = 1.0):
        """trec_eval's set_F: (beta + 1) P R / (beta P + R) of the retrieved set (its parameter
        is beta, not beta squared)."""
        p, r = self.set_P(), self.set_recall()
        return np.where(self.nrr > 0, (beta + 1.0) * p * r / self._safe(beta * p + r), 0.0)

    def num_nonrel_judged_ret(self):
        return ((self.rel >= 0) & ~self.isrel).sum(axis=0).astype(np.float64)

    def _powers(self) -> np.ndarray:
        """p^i at each rank i - 1 (row), by repeated multiplication as trec_eval."""
        return np.concatenate([[1.0], np.cumprod(np.full(len(self.rel), RBP_P))])[:, None]

    def rbp(self):
        # gains are the grades, scaled to [0, 1] by the topic's highest judged grade if above 1
        top = self._topics.top
        gain = np.where(self.rel > 0, self.rel, 0.0) / np.where(top > 1, top, 1.0)[None, :]
        return (1.0 - RBP_P) * np.where(gain != 0, gain * self._powers()[:-1], 0.0).sum(axis=0)

    def rbp_resid(self):
        unj = (self.rel < 0) & (self.ranks <= self.counts[None, :])
        pw = self._powers()
        total = np.where(unj, pw[:-1], 0.0).sum(axis=0)
        return np.where(unj.any(axis=0), pw[self.counts, 0] + (1 - RBP_P) * total, 0.0)

    def eleven_point(self):
        # trec_eval adds the levels from the highest down
        return np.cumsum(self.iprec_at_recall(RECALL_LEVELS)[::-1], axis=0)[-1] / len(RECALL_LEVELS)

    def relstring(self, n: int = 10) -> list[str]:
        """trec_eval's relstring of each topic: the judgements of its first ``n`` documents, a
        grade as its digit (``>`` above 9), ``-`` not in the qrels, ``.`` in the pool but
        unjudged."""
        def char(v: float) -> str:
            return ">" if v > 9 else str(int(v)) if v >= 0 else "-" if v == NONPOOL else "." if v == UNJUDGED else "<"
        return ["".join(char(v) for v in self.rel[:min(n, c), i]) for i, c in enumerate(self.counts)]

    def measures(self, names) -> dict:
        """{name: values per topic} of the trec family's measures ``names`` (per-topic names:
        ``map`` for ``gm_map``)."""
        out = {}
        cuts = {"P": self.P, "recall": self.recall, "ndcg_cut": self.ndcg_cut, "map_cut": self.map_cut,
                "relative_P": self.relative_P, "success": self.success, "unj": self.unj, "Judged": self.Judged}
        levels = {"iprec_at_recall": self.iprec_at_recall, "Rprec_mult": self.Rprec_mult,
                  "set_F": lambda params: [self.set_F(params[0])]}
        batched: dict[str, list] = {}  # the levels of a stem computed at once (each level's values alone)
        for name in names:
            stem, _, param = name.rpartition("_")
            if stem in ("iprec_at_recall", "Rprec_mult") and name not in _WHOLE:
                batched.setdefault(stem, []).append((name, float(param)))
        for stem, items in batched.items():
            out.update(zip([n for n, _ in items], levels[stem]([p for _, p in items])))
        for name in names:
            if name in out:
                continue
            if name == "11pt_avg":
                out[name] = self.eleven_point()
                continue
            if name in _WHOLE:
                out[name] = getattr(self, _METHOD.get(name, name))()
                continue
            stem, _, param = name.rpartition("_")
            if stem in cuts:
                out[name] = cuts[stem](int(param))
            elif stem in levels:
                out[name] = levels[stem]([float(param)])[0]
            else:
                raise KeyError(f"the trec family has no measure {name!r}")
        return {n: out[n] for n in names}


# the measures named by a method of Ranking without a parameter (the others: stem_parameter)
_WHOLE = frozenset({"num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "infAP", "utility",
                    "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "set_P", "set_recall", "set_relative_P", "set_map",
                    "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "dcg", "ideal_dcg", "yaap"})
_METHOD = {"dcg": "dcg_all", "ideal_dcg": "ideal_dcg_all"}  # (Ranking.dcg is the cumulated gain by rank)


@dataclass(frozen=True)
class Judged:
    """The judged documents of the assessments, keyed by integer codes for lookups, with each
    topic's grades (every judgement of the topic; a negative grade: in the pool, unjudged)."""

    topics: pa.Array  # distinct topics
    docs: pa.Array  # distinct documents
    keys: np.ndarray  # topic code * len(docs) + doc code, sorted
    grades: np.ndarray  # the grade of each key
    by_topic: dict  # topic -> its grades
    memo: dict = field(default_factory=dict, compare=False, repr=False)  # (topics, level) -> TopicGrades

    @classmethod
    def of(cls, topic, doc, grade: np.ndarray) -> Judged:
        """From the judgements' topics, documents and grades (one entry per judged pair)."""
        tc, topics = codes_of(topic)
        dc, docs = encoded(doc)
        grade = np.asarray(grade, dtype=np.float64)
        keys = tc * max(len(docs), 1) + dc
        order = np.argsort(keys, kind="stable")
        by_code = np.argsort(tc, kind="stable")
        bounds = np.cumsum(np.bincount(tc, minlength=len(topics)))[:-1]
        by_topic = dict(zip(topics, np.split(grade[by_code], bounds))) if len(topics) else {}
        return cls(strings_of(topics), docs, keys[order], grade[order], by_topic)

    def topic_grades(self, topics: list[str], level: int = 1) -> TopicGrades:
        """The :class:`TopicGrades` of ``topics`` (a topic not judged: none), made once."""
        key = (tuple(topics), level)
        if key not in self.memo:
            none = np.zeros(0)
            self.memo[key] = TopicGrades.of([self.by_topic.get(t, none) for t in topics], level)
        return self.memo[key]

    @property
    def topic_ids(self) -> list[str]:
        """The assessed topics, in the order the judgements list them."""
        return list(self.by_topic)

    def gains(self, tcode: np.ndarray, topics: pa.Array, dcode: np.ndarray, docs: pa.Array) -> np.ndarray:
        """The judgement of each (topic, doc) pair given by codes into ``topics`` and ``docs``:
        its grade, :data:`NONPOOL` where not judged, :data:`UNJUDGED` where the grade is
        negative."""
        d = numpy_of(compute("index_in", docs, options=SetLookupOptions(self.docs)), fill=-1).astype(np.int64)[dcode]
        return self._grades_of(self._topic_index(topics)[tcode], d)

    def number_gains(self, tcode: np.ndarray, topics: pa.Array, numbers: np.ndarray) -> np.ndarray:
        """:meth:`gains` of documents given by their numbers (ids all numbers, as
        :func:`inexflow.io.run_arrow.canonical_numbers` reads them)."""
        number, code, bits = self._numbered
        numbers = np.asarray(numbers, dtype=np.int64)
        if not len(number):
            return np.full(len(numbers), NONPOOL)
        if bits is not None:  # the numbers whose bit is set: the few to search
            q = np.minimum(numbers, len(bits) * 8 - 1)
            cand = np.flatnonzero((bits[q >> 3] >> (q & 7).astype(np.uint8)) & 1)
        else:
            cand = np.arange(len(numbers))
        pos = np.minimum(np.searchsorted(number, numbers[cand]), len(number) - 1)
        d = np.where(number[pos] == numbers[cand], code[pos], -1)
        t = self._topic_index(topics)[tcode[cand]]
        return self._grades_at(len(numbers), cand, t, d)

    def _grades_of(self, t: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The judgement of each pair of judged topic position ``t`` and judged document
        position ``d`` (-1: not judged)."""
        return self._grades_at(len(t), np.arange(len(t)), t, d)

    def _grades_at(self, n: int, rows: np.ndarray, t: np.ndarray, d: np.ndarray) -> np.ndarray:
        """:meth:`_grades_of` of the pairs ``t``, ``d`` of ``rows`` among ``n``, the other
        rows not judged."""
        found = np.flatnonzero((t >= 0) & (d >= 0))
        out = np.full(n, NONPOOL)
        if len(self.keys) and len(found):
            key = t[found] * max(len(self.docs), 1) + d[found]
            pos = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
            grade = self.grades[pos]
            out[rows[found]] = np.where(self.keys[pos] == key, np.where(grade < 0, UNJUDGED, grade), NONPOOL)
        return out

    def _topic_index(self, topics: pa.Array) -> np.ndarray:
        """Each of ``topics``' position among the judged topics, -1 where not judged."""
        return numpy_of(compute("index_in", topics, options=SetLookupOptions(self.topics)), fill=-1).astype(np.int64)

    @cached_property
    def _numbered(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The judged documents whose id is a number below 10^18 written as ``str`` writes it:
        their numbers ascending, their positions in ``docs``, and where the highest is below
        2^28, a bit set of them (bit n: byte n >> 3, bit n & 7; the last bit never set)."""
        text = cast(self.docs, pa.string())
        width = numpy_of(compute("utf8_length", text))
        canon = np.flatnonzero(bools_of(compute("ascii_is_decimal", text)) & (width > 0) & (width <= 18)
                               & ~(bools_of(compute("starts_with", text, options=MatchSubstringOptions("0")))
                                   & (width > 1)))
        number = numpy_of(cast(take(text, arrow_of(canon)), pa.int64())) if len(canon) else np.zeros(0, np.int64)
        order = np.argsort(number, kind="stable")
        number, canon = number[order], canon[order]
        top = int(number[-1]) if len(number) else 0
        if top >= 2**28:
            return number, canon, None
        bits = np.zeros((top + 1) // 8 + 1, dtype=np.uint8)
        np.bitwise_or.at(bits, number >> 3, np.left_shift(1, number & 7).astype(np.uint8))
        return number, canon, bits


def _plain(values):
    """Strings as an Arrow string array (a dictionary array decoded)."""
    if isinstance(values, pa.DictionaryArray):
        return cast(values, pa.string())
    return values if isinstance(values, (pa.Array, pa.ChunkedArray)) else strings_of(values)


def score_documents(topic, doc, topics: list[str], judged: Judged, names, level: int = 1, judged_only: bool = False,
                    distinct: bool = False, max_docs: int | None = None) -> dict:
    """The measures ``names`` (the trec family's, any order) of the run whose results
    (``topic``, ``doc``: strings, in trec_eval's order) are scored on ``topics``
    (:func:`rank_documents`). {per-topic measure: values per topic of ``topics``} (``gm_map``
    gives ``map``)."""
    ranking = rank_documents(topic, doc, topics, judged, level, judged_only, distinct, max_docs)
    return ranking.measures(per_topic_measures(names))


def rank_documents(topic, doc, topics: list[str], judged: Judged, level: int = 1, judged_only: bool = False,
                   distinct: bool = False, max_docs: int | None = None) -> Ranking:
    """The :class:`Ranking` of the run whose results (``topic``, ``doc``: strings, in
    trec_eval's order) are scored on ``topics``: each document counts at its first result in
    its topic (``distinct``: the caller knows that no document repeats in a topic), results of
    other topics are left out; ``level``: trec_eval's ``-l``; ``judged_only``: its ``-J``
    (documents the qrels do not judge are left out before ranking); ``max_docs``: its ``-M``
    (each topic's first ``max_docs`` documents in that order, before ``-J`` leaves any out, as
    ``form_res_rels.c`` cuts them)."""
    tcode, tdict = encoded(topic)
    numbers = is_numbers(doc)
    dcode, ddict = (np.asarray(doc, dtype=np.int64), None) if numbers else encoded(doc)
    pos = {t: i for i, t in enumerate(topics)}
    col = np.array([pos.get(t, -1) for t in tdict.to_pylist()], dtype=np.int64)[tcode] if len(tcode) else tcode
    use = col >= 0
    if not distinct:
        pair = pair_keys(tcode, dcode)
        if (np.diff(np.sort(pair)) == 0).any():
            first = np.zeros(len(pair), dtype=bool)
            first[np.unique(pair, return_index=True)[1]] = True
            use &= first
    if use.all() and not (np.diff(col) < 0).any():  # every result, already grouped by scored topic
        tkeep, dkeep, ckeep = tcode, dcode, col
    else:
        keep = np.flatnonzero(use)
        if (np.diff(col[keep]) < 0).any():  # grouped by scored topic, in run order within (a radix sort on few topics)
            keep = keep[np.argsort(col[keep].astype(np.int16 if len(topics) < 2**15 else np.int64), kind="stable")]
        tkeep, dkeep, ckeep = tcode[keep], dcode[keep], col[keep]
    if max_docs is not None and len(ckeep):  # the rows are grouped by topic, in ascending topic slot
        within = np.arange(len(ckeep)) - np.searchsorted(ckeep, ckeep)
        if (within >= max_docs).any():
            cut = within < max_docs
            tkeep, dkeep, ckeep = tkeep[cut], dkeep[cut], ckeep[cut]
    rel = judged.number_gains(tkeep, tdict, dkeep) if numbers else judged.gains(tkeep, tdict, dkeep, ddict)
    if judged_only:
        ckeep, rel = ckeep[rel >= 0], rel[rel >= 0]
    return Ranking(rel, np.bincount(ckeep, minlength=len(topics)), judged.topic_grades(topics, level),
                   level, judged_only)


def per_topic_measures(names) -> list[str]:
    """The per-topic measures behind the trec family's ``names``: ``gm_map`` is the geometric
    mean of ``map``, ``num_q`` counts topics."""
    return list(dict.fromkeys(MEANS.get(n, n) for n in names if n != "num_q"))


def complete_num_rel(judged: Judged, topics: list[str]) -> float:
    """``num_rel`` over ``topics`` as trec_eval's ``-c`` prints it: every judgement graded
    above 0, whatever ``-l`` says (its ``te_calc_avg_num_rel``)."""
    none = np.zeros(0)
    return float(sum(int((judged.by_topic.get(t, none) > 0).sum()) for t in topics))


def document_rows(topics: list[str], values: dict, names, complete_num_rel: float | None = None,
                  per_topic: bool = True) -> list[tuple]:
    """The family's rows ``(topic, quant, measure, value)`` of the measures ``names``: per
    topic (trec_eval prints no per-topic ``gm_map``; none without ``per_topic``), then the
    means over topics; ``complete_num_rel`` replaces the ``num_rel`` sum
    (:func:`complete_num_rel`, with ``-c``)."""
    shown = [n for n in names if n in values]
    columns = [values[m].tolist() for m in shown]
    rows = [(t, "-", m, col[i]) for i, t in enumerate(topics) for m, col in zip(shown, columns)] if per_topic else []
    means = mean_rows("trec", "-", {m: np.asarray(v, dtype=np.float64) for m, v in values.items()} if len(topics)
                      else [], names, topics=len(topics))
    if complete_num_rel is not None:
        means = [(t, q, m, complete_num_rel if m == "num_rel" else v) for t, q, m, v in means]
    return rows + means
