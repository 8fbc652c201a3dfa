"""(topic, document) pairs looked up among other pairs by pandas' hash tables, not a Python
call per pair: the pool analyses match the pools' tens of thousands of pairs against the
judged ones (:mod:`.stability`, :mod:`.adaptive`)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def pair_index(topics, docs) -> pd.MultiIndex:
    """The pairs of the columns ``topics`` and ``docs`` as a MultiIndex (made once, for
    several lookups of the same pairs)."""
    return pd.MultiIndex.from_arrays([np.asarray(topics, object), np.asarray(docs, object)])


def contained(index: pd.MultiIndex, pairs) -> np.ndarray:
    """Whether each pair of ``index`` (:func:`pair_index`) is one of ``pairs`` (a collection of
    (topic, doc) tuples, or a MultiIndex of them)."""
    if not len(pairs) or not len(index):
        return np.zeros(len(index), bool)
    return index.isin(pairs if isinstance(pairs, pd.MultiIndex) else list(pairs))


def pairs_in(topics, docs, pairs) -> np.ndarray:
    """Whether each (topic, doc) of the columns ``topics`` and ``docs`` is one of ``pairs``
    (:func:`contained`)."""
    if not len(pairs) or not len(topics):
        return np.zeros(len(topics), bool)
    return contained(pair_index(topics, docs), pairs)


def pair_positions(topics, docs, at_topics, at_docs) -> np.ndarray:
    """For each pair (``at_topics[i]``, ``at_docs[i]``), its row among the pairs of the
    columns ``topics`` and ``docs`` (the last such row where one repeats), -1 where it is
    not among them."""
    if not len(at_topics):
        return np.zeros(0, np.int64)
    if not len(topics):
        return np.full(len(at_topics), -1, np.int64)
    idx = pair_index(topics, docs)
    rows = np.arange(len(idx))
    if not idx.is_unique:
        last = ~idx.duplicated(keep="last")
        idx, rows = idx[last], rows[last]
    at = idx.get_indexer(pair_index(at_topics, at_docs))
    return np.where(at >= 0, rows[np.maximum(at, 0)], -1).astype(np.int64)


def judged_pairs(judged_runs):
    """Every judged (topic, document) of ``judged_runs`` (a
    :class:`~inexflow.analysis.rejudge.JudgedRuns`) as flat arrays (topics, documents,
    highlighted characters) and each topic's count, in the order of its ``rel_docs``."""
    sizes = [len(d) for d in judged_runs.rel_docs.values()]
    topics = np.repeat(np.asarray(list(judged_runs.rel_docs), object), sizes)
    docs = np.asarray([d for ds in judged_runs.rel_docs.values() for d in ds], object)
    chars = np.asarray([c for t in judged_runs.rel_docs for c in judged_runs.rel_chars.get(t, ())], np.int64)
    return topics, docs, chars, sizes
