"""Document-level measures as trec_eval computes them (family ``trec``): the reduction of a
run to documents, scored against graded document relevance.

- Assessments: TREC qrels (``topic iteration doc grade``, :mod:`inexflow.io.qrels_trec`;
  a grade > 0 is relevant, the grade is the nDCG gain), or FOL qrels and INEX assessments
  read at document level (a document with highlighted text is relevant, gain 1).
- Runs: any run; a document counts at its first result in the topic (passage and element
  runs reduce to their documents). Order: trec_eval's, which ignores the rank column:
  descending score, ties broken by descending document id (a run without scores keeps its
  rank order).
- Per topic: ``num_ret``, ``num_rel``, ``num_rel_ret``; ``map`` (average precision: the
  precision at each relevant document retrieved, summed, over ``num_rel``); ``P_k`` (relevant
  in the first k over k, k in 5, 10, 15, 20, 30, 100, 200, 500, 1000); ``Rprec`` (precision
  at rank R = num_rel); ``ndcg`` (DCG with gain = grade and discount log2(rank + 1), over the
  DCG of the judged documents in descending grade order). Topic ``all``: means, counts summed,
  ``num_q`` the topics averaged -- as trec_eval over the topics of the run that have
  judgements. Checked against pytrec_eval (tests/test_trec.py).

The measures are computed for every topic at once (:func:`document_measures`) on a
rank x topic matrix of gains, so that every per-topic sum runs in rank order, one addition after
the other, as trec_eval adds them; the order is sorted by Arrow, document ids compared as
bytes as trec_eval's ``strcmp`` compares them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext, tidy
from inexflow.measures.registry import P_CUTOFFS
from inexflow.measures.topicset import scored_topics


def trec_order(topic_pos: np.ndarray, score: np.ndarray, doc) -> np.ndarray:
    """The row order in which trec_eval reads a run: topic position ascending, then descending
    score, ties by descending document id (compared as bytes); stable, so repeated documents
    keep their file order. ``doc``: the document ids (strings, any sequence Arrow reads)."""
    table = pa.table({"t": pa.array(topic_pos), "s": pa.array(score, pa.float64()),
                      "d": doc if isinstance(doc, (pa.Array, pa.ChunkedArray)) else pa.array(doc, pa.string())})
    return pc.sort_indices(table, sort_keys=[("t", "ascending"), ("s", "descending"),
                                             ("d", "descending")]).to_numpy()


def trec_eval_order(run):
    """``run`` with its results ordered as trec_eval reads a run: per topic (topics in the run's
    order), descending score, ties by descending document id (a run without scores keeps its
    order)."""
    res = run.results
    if res["rsv"].isna().all():
        return run
    codes = run.codes("topic")
    topic_pos = codes[0] if codes is not None and _first_seen(codes[0]) else pd.factorize(res["topic"])[0]
    order = trec_order(topic_pos, res["rsv"].to_numpy(np.float64), res["doc"].to_numpy(object))
    return dataclasses.replace(run, results=res.take(order).reset_index(drop=True), order="trec_eval")


def _first_seen(codes: np.ndarray) -> bool:
    """Whether ``codes`` number the values in the order they first appear (as factorize does)."""
    if not len(codes):
        return True
    first = np.unique(codes, return_index=True)[1]
    return bool((np.diff(codes[np.sort(first)]) > 0).all()) and codes[0] == 0


def ideal_stats(grades: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(num_rel, ideal DCG) per topic of the judged grades ``grades`` (grouped by topic,
    ``counts`` per topic): the relevant documents (grade > 0) in descending grade order,
    DCG summed in rank order."""
    g = _matrix(np.clip(grades, 0, None), counts, descending=True)
    nrel = (g > 0).sum(axis=0)
    return nrel.astype(np.float64), (g / np.log2(np.arange(2, len(g) + 2))[:, None]).sum(axis=0)


def _matrix(values: np.ndarray, counts: np.ndarray, descending: bool = False) -> np.ndarray:
    """``values`` grouped by topic (``counts`` per topic, in order) as a rank x topic matrix,
    padded with zeros (sorted descending within each topic if asked)."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros((int(counts.max(initial=0)), len(counts)))
    col = np.repeat(np.arange(len(counts)), counts)
    row = np.arange(len(values)) - np.repeat(np.cumsum(counts) - counts, counts)
    if descending:
        order = np.lexsort((-values, col))
        values = values[order]
    out[row, col] = values
    return out


def document_measures(gain: np.ndarray, counts: np.ndarray, nrel: np.ndarray, idcg: np.ndarray) -> dict:
    """trec_eval's per-topic measures of every topic at once: ``gain`` holds the grade of each
    retrieved document (0 unjudged or non-relevant) grouped by topic in trec_eval's order,
    ``counts`` the documents per topic, ``nrel`` and ``idcg`` the topics' relevant documents and
    ideal DCG (:func:`ideal_stats`). {measure: values per topic}."""
    g = _matrix(np.clip(gain, 0, None), counts)
    rel = g > 0
    hits = np.cumsum(rel, axis=0)
    ranks = np.arange(1, len(g) + 1, dtype=np.float64)[:, None]
    counts = np.asarray(counts, dtype=np.int64)
    cols = np.arange(len(counts))

    def at(k):  # hits in the first k of each topic (k per topic); 0 where k is 0
        k = np.minimum(k, counts).astype(np.int64)
        return np.where(k > 0, hits[np.maximum(k - 1, 0), cols] if len(hits) else 0, 0).astype(np.float64)

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


def document_grades(a) -> pd.DataFrame:
    """topic, doc, grade of every judged document (FOL and INEX assessments: 1 where the
    document has highlighted text, else 0)."""
    d = a.documents
    grade = d["grade"] if "grade" in d.columns else (d["rel_chars"] > 0).astype(np.float64)
    return pd.DataFrame({"topic": d["topic"], "doc": d["doc"], "grade": grade.to_numpy(np.float64)})


@dataclasses.dataclass(frozen=True)
class _Judged:
    """The judged documents of the assessments, keyed for lookups by integer codes."""
    topics: pa.Array  # distinct topics
    docs: pa.Array  # distinct documents
    keys: np.ndarray  # topic code * len(docs) + doc code, sorted
    grades: np.ndarray  # grade of each key
    nrel: dict  # topic -> number of relevant documents
    idcg: dict  # topic -> ideal DCG

    @classmethod
    def of(cls, grades: pd.DataFrame) -> _Judged:
        tc, topics = pd.factorize(grades["topic"])
        dc, docs = pd.factorize(grades["doc"])
        keys = tc.astype(np.int64) * max(len(docs), 1) + dc
        order = np.argsort(keys, kind="stable")
        by_topic = np.argsort(tc, kind="stable")
        counts = np.bincount(tc, minlength=len(topics))
        nrel, idcg = ideal_stats(grades["grade"].to_numpy(np.float64)[by_topic], counts)
        return cls(pa.array(topics.astype(str), pa.string()), pa.array(docs.astype(str), pa.string()), keys[order],
                   grades["grade"].to_numpy(np.float64)[order], dict(zip(topics, nrel)), dict(zip(topics, idcg)))

    def gains(self, topic, doc) -> np.ndarray:
        """The grade of each (topic, doc) pair (0 where not judged)."""
        t = pc.index_in(topic, value_set=self.topics)
        d = pc.index_in(doc, value_set=self.docs)
        found = pc.and_(pc.is_valid(t), pc.is_valid(d)).to_numpy(zero_copy_only=False)
        key = np.where(found, pc.fill_null(t, 0).to_numpy().astype(np.int64) * max(len(self.docs), 1)
                       + pc.fill_null(d, 0).to_numpy().astype(np.int64), -1)
        pos = np.minimum(np.searchsorted(self.keys, key), max(len(self.keys) - 1, 0))
        hit = found & (self.keys[pos] == key) if len(self.keys) else np.zeros(len(key), bool)
        return np.where(hit, self.grades[pos] if len(self.keys) else 0.0, 0.0)


def score_trec(run, ctx: ScoringContext) -> pd.DataFrame:
    judged = ctx.memo("document_grades", lambda: _Judged.of(document_grades(ctx.assessments)))
    topics = scored_topics(run, list(judged.nrel), ctx)
    res = run.results
    tcode, tuniq = pd.factorize(res["topic"])
    dcode = pd.factorize(res["doc"])[0]
    first = ~pd.Series(tcode.astype(np.int64) * (int(dcode.max(initial=0)) + 1) + dcode).duplicated().to_numpy()
    pos = {t: i for i, t in enumerate(topics)}
    col = np.array([pos.get(t, -1) for t in tuniq], dtype=np.int64)[tcode] if len(res) else np.zeros(0, np.int64)
    keep = np.flatnonzero(first & (col >= 0))
    keep = keep[np.argsort(col[keep], kind="stable")]  # grouped by scored topic, in run order within
    kept = res.iloc[keep]
    gain = judged.gains(pa.array(kept["topic"].to_numpy(object), pa.string()),
                        pa.array(kept["doc"].to_numpy(object), pa.string()))
    counts = np.bincount(col[keep], minlength=len(topics))
    nrel = np.array([judged.nrel.get(t, 0.0) for t in topics], dtype=np.float64)
    idcg = np.array([judged.idcg.get(t, 0.0) for t in topics], dtype=np.float64)
    values = document_measures(gain, counts, nrel, idcg)
    per = [{m: float(v[i]) for m, v in values.items()} for i in range(len(topics))]
    rows = [(t, "-", m, v) for t, vals in zip(topics, per) for m, v in vals.items()]
    rows.extend(mean_rows("trec", "-", per, ["num_q", *(per[0] if per else [])]))
    return tidy(rows)
