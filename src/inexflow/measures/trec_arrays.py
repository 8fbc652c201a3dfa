"""trec_eval's document measures on arrays, without pandas: the core of the ``trec`` family
(:mod:`inexflow.measures.trec`, which says what each measure is) and of document scoring from
Arrow columns (:mod:`inexflow.front.documents`).

A run's documents are ordered as trec_eval reads them (:func:`trec_order`), reduced to each
document's first result in its topic, and looked up in the judgements (:class:`Judged`, by
integer codes); the measures of every topic are then computed at once (:func:`document_measures`)
on a rank x topic matrix of gains, so that every per-topic sum runs in rank order, one
addition after the other, as trec_eval adds them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.io.arrow_arrays import arrow_of, numpy_of, strings_of
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.registry import P_CUTOFFS


def trec_order(topic_pos: np.ndarray, score: np.ndarray, doc) -> np.ndarray:
    """The row order in which trec_eval reads a run: topic position ascending, then descending
    score, ties by descending document id (compared as bytes, as trec_eval's ``strcmp``);
    stable, so repeated documents keep their file order. ``doc``: the document ids (an Arrow
    string or dictionary array, or any sequence of strings). Document ids are compared only
    where (topic, score) is tied."""
    topic_pos = np.asarray(topic_pos, dtype=np.int64)
    score = np.asarray(score, dtype=np.float64)
    table = pa.table({"t": arrow_of(topic_pos), "s": arrow_of(score)})
    order = numpy_of(pc.sort_indices(table, sort_keys=[("t", "ascending"), ("s", "descending")])).copy()
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
    dcode, ddict = encoded(doc)
    used, inverse = np.unique(dcode[rows], return_inverse=True)
    # the tied rows' documents in byte order (their places among the distinct ids they hold),
    # descending within each tied group; a stable sort keeps repeated documents in file order
    place = numpy_of(pc.rank(ddict.take(arrow_of(used)), sort_keys="ascending", tiebreaker="first"))
    order[at] = rows[np.lexsort((-place.astype(np.int64)[inverse], group))]
    return order


def encoded(values) -> tuple[np.ndarray, pa.Array]:
    """Integer codes of strings, numbered in the order they first appear (a dictionary array:
    its own), and the distinct strings as an Arrow array."""
    enc = values if isinstance(values, pa.DictionaryArray) else pc.dictionary_encode(_plain(values))
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    return numpy_of(enc.indices).astype(np.int64), enc.dictionary


def codes_of(values) -> tuple[np.ndarray, list[str]]:
    """:func:`encoded`, the distinct strings as a list."""
    codes, distinct = encoded(values)
    return codes, distinct.to_pylist()


def _matrix(values: np.ndarray, counts: np.ndarray, descending: bool = False) -> np.ndarray:
    """``values`` grouped by topic (``counts`` per topic, in order) as a rank x topic matrix,
    padded with zeros (sorted descending within each topic if asked)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros((int(counts.max(initial=0)), len(counts)))
    col = np.repeat(np.arange(len(counts)), counts)
    row = np.arange(len(values)) - np.repeat(np.cumsum(counts) - counts, counts)
    if descending:
        values = values[np.lexsort((-values, col))]
    out[row, col] = values
    return out


def ideal_stats(grades: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(num_rel, ideal DCG) per topic of the judged grades ``grades`` (grouped by topic,
    ``counts`` per topic): the relevant documents (grade > 0) in descending grade order,
    DCG summed in rank order."""
    g = _matrix(np.clip(grades, 0, None), counts, descending=True)
    nrel = (g > 0).sum(axis=0)
    return nrel.astype(np.float64), (g / np.log2(np.arange(2, len(g) + 2))[:, None]).sum(axis=0)


def document_measures(gain: np.ndarray, counts: np.ndarray, nrel: np.ndarray, idcg: np.ndarray) -> dict:
    """trec_eval's per-topic measures of every topic at once: ``gain`` holds the grade of each
    retrieved document (0 unjudged or non-relevant) grouped by topic in trec_eval's order,
    ``counts`` the documents per topic, ``nrel`` and ``idcg`` the topics' relevant documents and
    ideal DCG (:func:`ideal_stats`). {measure: values per topic}, in the family's order."""
    g = _matrix(np.clip(gain, 0, None), counts)
    rel = g > 0
    hits = np.cumsum(rel, axis=0)
    ranks = np.arange(1, len(g) + 1, dtype=np.float64)[:, None]
    counts = np.asarray(counts, dtype=np.int64)
    cols = np.arange(len(counts))

    def at(k):  # relevant documents in the first k of each topic (k per topic; 0 where k is 0)
        k = np.minimum(k, counts).astype(np.int64)
        if not len(hits):
            return np.zeros(len(counts))
        return np.where(k > 0, hits[np.maximum(k - 1, 0), cols], 0).astype(np.float64)

    safe = np.where(nrel > 0, nrel, 1)
    out = {"num_ret": counts.astype(np.float64), "num_rel": nrel.astype(np.float64),
           "num_rel_ret": rel.sum(axis=0).astype(np.float64),
           "map": np.where(nrel > 0, np.where(rel, hits / ranks, 0.0).sum(axis=0) / safe, 0.0),
           "Rprec": np.where(nrel > 0, at(nrel) / safe, 0.0)}
    dcg = (g / np.log2(ranks + 1)).sum(axis=0)
    out["ndcg"] = np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1), 0.0)
    for k in P_CUTOFFS:
        out[f"P_{k}"] = at(np.full(len(counts), k)) / k
    return out


@dataclass(frozen=True)
class Judged:
    """The judged documents of the assessments, keyed by integer codes for lookups, with each
    topic's number of relevant documents and ideal DCG."""

    topics: pa.Array  # distinct topics
    docs: pa.Array  # distinct documents
    keys: np.ndarray  # topic code * len(docs) + doc code, sorted
    grades: np.ndarray  # the grade of each key
    nrel: dict  # topic -> number of relevant documents
    idcg: dict  # topic -> ideal DCG

    @classmethod
    def of(cls, topic, doc, grade: np.ndarray) -> Judged:
        """From the judgements' topics, documents and grades (one entry per judged pair)."""
        tc, topics = codes_of(topic)
        dc, docs = encoded(doc)
        grade = np.asarray(grade, dtype=np.float64)
        keys = tc * max(len(docs), 1) + dc
        order = np.argsort(keys, kind="stable")
        nrel, idcg = ideal_stats(grade[np.argsort(tc, kind="stable")], np.bincount(tc, minlength=len(topics)))
        return cls(strings_of(topics), docs, keys[order], grade[order], dict(zip(topics, nrel)),
                   dict(zip(topics, idcg)))

    def gains(self, tcode: np.ndarray, topics: pa.Array, dcode: np.ndarray, docs: pa.Array) -> np.ndarray:
        """The grade of each (topic, doc) pair given by codes into ``topics`` and ``docs`` (0 where
        not judged)."""
        t = numpy_of(pc.index_in(topics, value_set=self.topics), fill=-1).astype(np.int64)[tcode]
        d = numpy_of(pc.index_in(docs, value_set=self.docs), fill=-1).astype(np.int64)[dcode]
        found = (t >= 0) & (d >= 0)
        if not len(self.keys):
            return np.zeros(len(found))
        key = np.where(found, t * max(len(self.docs), 1) + d, -1)
        pos = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        return np.where(found & (self.keys[pos] == key), self.grades[pos], 0.0)


def _plain(values):
    """Strings as an Arrow string array (a dictionary array decoded)."""
    if isinstance(values, pa.DictionaryArray):
        return values.cast(pa.string())
    return values if isinstance(values, (pa.Array, pa.ChunkedArray)) else strings_of(values)


def score_documents(topic, doc, topics: list[str], judged: Judged, distinct: bool = False) -> dict:
    """The measures of the run whose results (``topic``, ``doc``: strings, in trec_eval's
    order) are scored on ``topics``: each document counts at its first result in its topic
    (``distinct``: the caller knows that no document repeats in a topic), results of other
    topics are left out. {measure: values per topic of ``topics``}."""
    tcode, tdict = encoded(topic)
    dcode, ddict = encoded(doc)
    pos = {t: i for i, t in enumerate(topics)}
    col = np.array([pos.get(t, -1) for t in tdict.to_pylist()], dtype=np.int64)[tcode] if len(tcode) else tcode
    use = col >= 0
    if not distinct:
        pair = tcode * max(len(ddict), 1) + dcode
        if (np.diff(np.sort(pair)) == 0).any():
            first = np.zeros(len(pair), dtype=bool)
            first[np.unique(pair, return_index=True)[1]] = True
            use &= first
    keep = np.flatnonzero(use)
    keep = keep[np.argsort(col[keep], kind="stable")]  # grouped by scored topic, in run order within
    gain = judged.gains(tcode[keep], tdict, dcode[keep], ddict)
    nrel = np.array([judged.nrel.get(t, 0.0) for t in topics], dtype=np.float64)
    idcg = np.array([judged.idcg.get(t, 0.0) for t in topics], dtype=np.float64)
    return document_measures(gain, np.bincount(col[keep], minlength=len(topics)), nrel, idcg)


def document_rows(topics: list[str], values: dict) -> list[tuple]:
    """The family's rows ``(topic, quant, measure, value)``: per topic, then the means."""
    per = [{m: float(v[i]) for m, v in values.items()} for i in range(len(topics))]
    rows = [(t, "-", m, v) for t, vals in zip(topics, per) for m, v in vals.items()]
    return rows + mean_rows("trec", "-", per, ["num_q", *(per[0] if per else [])])
