"""Document-level measures as trec_eval computes them (family ``trec``): the reduction of a
run to documents, scored against graded document relevance.

- Assessments: TREC qrels (``topic iteration doc grade``, :mod:`inexflow.io.qrels_trec`;
  a grade > 0 is relevant, the grade is the nDCG gain), or FOL qrels and INEX assessments
  read at document level (a document with highlighted text is relevant, gain 1).
- Runs: any run; a document counts at its first result in the topic in the order below, its
  highest-scoring one (passage and element runs reduce to their documents). Order: trec_eval's,
  which ignores the rank column:
  descending score, ties broken by descending document id (a run without scores keeps its
  rank order).
- Per topic: ``num_ret``, ``num_rel``, ``num_rel_ret``; ``map`` (average precision: the
  precision at each relevant document retrieved, summed, over ``num_rel``); ``P_k`` (relevant
  in the first k over k, k in 5, 10, 15, 20, 30, 100, 200, 500, 1000); ``Rprec`` (precision
  at rank R = num_rel); ``ndcg`` (DCG with gain = grade and discount log2(rank + 1), over the
  DCG of the judged documents in descending grade order). Topic ``all``: means, counts summed,
  ``num_q`` the topics averaged -- as trec_eval over the topics of the run that have
  judgements. Checked against pytrec_eval (tests/test_trec.py).

The computation is on arrays, every topic at once (:mod:`inexflow.measures.trec_arrays`);
this module reads a run and the assessments into it.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from inexflow.io.topic_order import trec_topic_order
from inexflow.measures.context import ScoringContext, tidy
from inexflow.measures.registry import relstring_length, trec_measure_names, unanswered_relstring
from inexflow.measures.topicset import scored_topics
from inexflow.measures.trec_arrays import (
    Judged,
    codes_of,
    complete_num_rel,
    document_rows,
    rank_documents,
    score_documents,
    trec_order,
)


def trec_eval_order(run):
    """``run`` with its results ordered as trec_eval reads a run: per topic (topics in the run's
    order), descending score, ties by descending document id (a run without scores keeps its
    order)."""
    res = run.results
    if res["rsv"].isna().all():
        return run
    order = trec_order(codes_of(res["topic"].to_numpy(object))[0], res["rsv"].to_numpy(np.float64),
                       res["doc"].to_numpy(object))
    return dataclasses.replace(run, results=res.take(order).reset_index(drop=True), order="trec_eval")


def document_grades(a) -> Judged:
    """The judged documents of assessments ``a`` with their grades (FOL and INEX assessments:
    1 where the document has highlighted text, else 0)."""
    d = a.documents
    grade = d["grade"] if "grade" in d.columns else (d["rel_chars"] > 0).astype(np.float64)
    return Judged.of(d["topic"].to_numpy(object), d["doc"].to_numpy(object), grade.to_numpy(np.float64))


def relstrings(run, ctx: ScoringContext, name: str) -> list[tuple[str, str]]:
    """(topic, relstring) of ``run`` on each topic it is scored on: trec_eval's judgements of
    the first documents the relstring measure ``name`` covers
    (:meth:`~inexflow.measures.trec_arrays.Ranking.relstring`; a topic the run does not answer,
    scored with -c: :func:`~inexflow.measures.registry.unanswered_relstring`)."""
    judged = ctx.memo("document_grades", lambda: document_grades(ctx.assessments))
    topics = _topics(run, judged, ctx, warn=False)  # (scoring the run has warned)
    res = trec_eval_order(run).results
    ranking = rank_documents(res["topic"].to_numpy(object), res["doc"].to_numpy(object), topics, judged,
                             ctx.opt("relevance_level"), ctx.opt("judged_only"), max_docs=ctx.opt("max_docs_per_topic"))
    answered, none = set(res["topic"]), unanswered_relstring(name, bool(ctx.opt("judged_only")))
    return [(t, s if t in answered else none) for t, s in zip(topics, ranking.relstring(relstring_length(name)))]


def _topics(run, judged: Judged, ctx: ScoringContext, warn: bool = True) -> list[str]:
    # -c (every qrels topic) is trec_eval's: unanswered topics score 0, as with -e; in trec_eval's
    # order, which its means sum in
    return trec_topic_order(scored_topics(run, judged.topic_ids, ctx, warn=warn,
                                          empty_zero=bool(ctx.opt("empty_topics_zero") or ctx.opt("all_qrels_topics"))))


def score_trec(run, ctx: ScoringContext) -> pd.DataFrame:
    judged = ctx.memo("document_grades", lambda: document_grades(ctx.assessments))
    topics = _topics(run, judged, ctx)
    res = run.results
    names = trec_measure_names({"trec_measures": ctx.opt("trec_measures")})
    values = score_documents(res["topic"].to_numpy(object), res["doc"].to_numpy(object), topics, judged, names,
                             level=ctx.opt("relevance_level"), judged_only=ctx.opt("judged_only"),
                             max_docs=ctx.opt("max_docs_per_topic"))
    complete = complete_num_rel(judged, topics) if ctx.opt("all_qrels_topics") else None
    return tidy(document_rows(topics, values, names, complete))
