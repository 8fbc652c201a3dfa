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
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext
from inexflow.measures.registry import P_CUTOFFS
from inexflow.measures.topicset import scored_topics, tidy


def trec_eval_order(run):
    """``run`` with its results ordered as trec_eval reads a run: per topic (topics in the run's
    order), descending score, ties by descending document id."""
    res = run.results
    if res["rsv"].isna().all():
        return run
    topic_pos = pd.factorize(res["topic"])[0]
    doc_rank = pd.Series(res["doc"]).rank(method="dense").to_numpy()
    order = np.lexsort((-doc_rank, -res["rsv"].to_numpy(np.float64), topic_pos))
    return dataclasses.replace(run, results=res.take(order).reset_index(drop=True), order="trec_eval")


def document_grades(a) -> pd.DataFrame:
    """topic, doc, grade of every judged document (FOL and INEX assessments: 1 where the
    document has highlighted text, else 0)."""
    d = a.documents
    grade = d["grade"] if "grade" in d.columns else (d["rel_chars"] > 0).astype(np.float64)
    return pd.DataFrame({"topic": d["topic"], "doc": d["doc"], "grade": grade.to_numpy(np.float64)})


def score_trec(run, ctx: ScoringContext) -> pd.DataFrame:
    grades = ctx.memo("document_grades", lambda: document_grades(ctx.assessments))
    topics = scored_topics(run, list(pd.unique(grades["topic"])), ctx)
    res = run.results.drop_duplicates(["topic", "doc"])
    gain = res[["topic", "doc"]].merge(grades, on=["topic", "doc"], how="left")["grade"].fillna(0.0).to_numpy()
    by_topic = pd.Series(np.arange(len(res))).groupby(res["topic"].to_numpy(), sort=False).indices
    judged = {t: g["grade"].to_numpy() for t, g in grades.groupby("topic", sort=False)}
    rows, per = [], []
    for t in topics:
        g = np.clip(gain[by_topic.get(t, np.zeros(0, dtype=np.int64))], 0, None)
        rel = g > 0
        ideal = np.sort(np.clip(judged.get(t, np.zeros(0)), 0, None))[::-1]
        nrel = int((ideal > 0).sum())
        ranks = np.arange(1, len(g) + 1)
        hits = np.cumsum(rel)
        vals = {"num_ret": float(len(g)), "num_rel": float(nrel), "num_rel_ret": float(rel.sum()),
                "map": float((hits[rel] / ranks[rel]).sum() / nrel) if nrel else 0.0,
                "Rprec": float(hits[min(nrel, len(g)) - 1] / nrel) if nrel and len(g) else 0.0}
        ideal = ideal[ideal > 0]
        idcg = float((ideal / np.log2(np.arange(2, len(ideal) + 2))).sum())
        vals["ndcg"] = float((g / np.log2(ranks + 1)).sum() / idcg) if idcg > 0 else 0.0
        for k in P_CUTOFFS:
            vals[f"P_{k}"] = float(hits[min(k, len(g)) - 1] / k) if len(g) else 0.0
        rows.extend((t, "-", m, v) for m, v in vals.items())
        per.append(vals)
    rows.extend(mean_rows("trec", "-", per, ["num_q", *(per[0] if per else [])]))
    return tidy(rows)
