"""(topic, document) pairs looked up among other pairs as integer keys, not a Python call per
pair: the pool analyses match the pools' tens of thousands of pairs against the judged ones
(:mod:`.stability`, :mod:`.adaptive`). Each side's topics and documents are numbered by
``pd.factorize`` (a hash table in C) and the distinct names by one vocabulary shared by both
sides, so a pair is one int64 (topic number << 32 | document number) and a lookup is a sort
and a binary search (a pandas MultiIndex of the names costs 4-6x more to build)."""

from __future__ import annotations

import numpy as np
import pandas as pd


class PairKeys:
    """One numbering of topics and documents for several sets of pairs: the keys of the pairs
    of every set made by one :class:`PairKeys` compare equal exactly where the pairs do."""

    def __init__(self):
        self._topics: dict = {}
        self._docs: dict = {}

    def __call__(self, topics, docs) -> np.ndarray:
        """The int64 key of each pair of the columns ``topics`` and ``docs``."""
        t = _numbers(topics, self._topics)
        t <<= 32
        t |= _numbers(docs, self._docs)
        return t


def _numbers(values, vocab: dict) -> np.ndarray:
    """Each of ``values`` (a column: a pandas Series is factorised as it is stored, Arrow strings
    by Arrow) numbered by ``vocab`` (name -> number; new names numbered as they come)."""
    if not isinstance(values, (pd.Series, np.ndarray)):
        values = np.asarray(values, dtype=object)
    if not len(values):
        return np.zeros(0, np.int64)
    codes, names = pd.factorize(values)  # a missing value (None, NaN) gets code -1
    number = np.fromiter((vocab.setdefault(n, len(vocab)) for n in names), np.int64, len(names))
    return np.r_[number, vocab.setdefault(_MISSING, len(vocab))][codes]  # code -1: the missing values' number


_MISSING = object()  # the name every missing value is numbered by: missing values match each other only


def _columns(pairs) -> tuple[np.ndarray, np.ndarray]:
    """``pairs`` (a collection of (topic, doc) tuples, or a pair of columns ``(topics, docs)``
    of equal length given as a tuple of arrays) as two object columns."""
    if isinstance(pairs, tuple) and len(pairs) == 2 and all(isinstance(c, np.ndarray) for c in pairs):
        return pairs
    items = list(pairs)
    return np.asarray([t for t, _ in items], dtype=object), np.asarray([d for _, d in items], dtype=object)


def pairs_in(topics, docs, pairs) -> np.ndarray:
    """Whether each (topic, doc) of the columns ``topics`` and ``docs`` is one of ``pairs`` (a
    collection of (topic, doc) tuples, or a tuple of two columns ``(topics, docs)``)."""
    if not len(pairs) or not len(topics):
        return np.zeros(len(topics), bool)
    other_topics, other_docs = _columns(pairs)
    if not len(other_topics):
        return np.zeros(len(topics), bool)
    keys = PairKeys()
    return np.isin(keys(topics, docs), keys(other_topics, other_docs))


def pair_positions(topics, docs, at_topics, at_docs) -> np.ndarray:
    """For each pair (``at_topics[i]``, ``at_docs[i]``), its row among the pairs of the
    columns ``topics`` and ``docs`` (the last such row where one repeats), -1 where it is
    not among them."""
    if not len(at_topics):
        return np.zeros(0, np.int64)
    if not len(topics):
        return np.full(len(at_topics), -1, np.int64)
    keys = PairKeys()
    have, want = keys(topics, docs), keys(at_topics, at_docs)
    order = np.argsort(have, kind="stable")  # equal keys keep their rows' order: the last is the last row
    ranked = have[order]
    pos = np.searchsorted(ranked, want, side="right") - 1
    found = (pos >= 0) & (ranked[np.maximum(pos, 0)] == want)
    return np.where(found, order[np.maximum(pos, 0)], -1).astype(np.int64)


def judged_pairs(judged_runs):
    """Every judged (topic, document) of ``judged_runs`` (a
    :class:`~inexflow.analysis.rejudge.JudgedRuns`) as flat arrays (topics, documents,
    highlighted characters) and each topic's count, in the order of its ``rel_docs``."""
    sizes = [len(d) for d in judged_runs.rel_docs.values()]
    topics = np.repeat(np.asarray(list(judged_runs.rel_docs), object), sizes)
    docs = np.asarray([d for ds in judged_runs.rel_docs.values() for d in ds], object)
    chars = np.asarray([c for t in judged_runs.rel_docs for c in judged_runs.rel_chars.get(t, ())], np.int64)
    return topics, docs, chars, sizes
