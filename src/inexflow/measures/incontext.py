"""Relevant in Context and Best in Context, as the official INEX 2009/2010 tool computes
them (inex_eval; INEX 2006 paper section 6 for gP/AgP; docs/measures.md, "Passage measures").

The run's results for a topic are grouped into articles in order of first appearance
(an in-context run must list each article's results together; see
:func:`check_grouping`). For article i at rank i:

- Relevant in Context: P_i = highlighted characters retrieved in the article / characters
  retrieved in it, R_i = highlighted characters retrieved / highlighted characters of the
  article, score_i = F_beta = (1 + beta^2) P R / (beta^2 P + R) (0 if P = R = 0), beta a
  parameter (0.25 as the tool; 1 for the 2006 HiXEval definition).
- Best in Context: score_i = (n - d) / n for d = |BEP - start of the article's result| < n,
  else 0, n a parameter (500 as the tool, ``-n``/``--bep-distance``); BEP is the qrels
  best entry point offset.

gP[r] = (1/r) sum_{i<=r} score_i (a list shorter than r reports its last rank, as the
tool does: the sum over the articles retrieved divided by their number), gR[r] = relevant
articles among the first r / relevant articles of the topic, AgP = (1/num_rel) sum of
gP[r] over the ranks r of relevant articles, MAgP = mean AgP; ``ircl_prn.x`` at x = 0.0,
0.1, ..., 1.0 is the mean over topics of the interpolated gP at recall point x, each rank
landing on point floor(10 * gR[r]) in doubles (:func:`~inexflow.measures.passage_arrays.gp_measures`). A relevant article is
one whose qrels ``rel_chars`` is positive (:mod:`inexflow.measures.toolorder`).

Bookkeeping as the tool prints it: num_ret (articles), num_rel, num_rel_ret (articles),
ret_size, rel_size, rel_ret_size (characters; 0 for Best in Context). In the ``all``
block the tool sums num_rel and rel_size over every topic of the qrels, even those it
does not average over (reproduced here).
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import pandas as pd

from inexflow.errors import InputError, counted, place
from inexflow.io.topic_order import inex_eval_topic_order
from inexflow.measures.context import ScoringContext, tidy_columns
from inexflow.measures.passage import check_no_overlap, document_lengths, passage_index, passage_results
from inexflow.measures.passage_arrays import (
    QUANT,
    bic_scores,
    in_context_columns,
    ric_scores,
    taken,
    topic_slots,
    warn_no_relevant,
)
from inexflow.measures.toolorder import (
    PairSet,
    ToolView,
    describe_split,
    pair_rows,
    qrels_totals,
    relevant_documents,
)
from inexflow.measures.topicset import scored_topics


def check_grouping(run, regroup: bool = False, assessed=None):
    """An in-context run lists each topic's results together and, within a topic, each
    article's results together (in file order, as the tool reads it; see
    :mod:`inexflow.measures.toolorder`). A topic listed in separate blocks or an article
    whose results are interleaved with another's is an error naming the run, topic, article
    and line, unless ``regroup``: then the results are moved next to the first result of
    their topic and article, and the change is logged. Returns the run with its results in
    that order (``run`` itself, its reader's codes kept, when they are in it already).
    ``assessed``: the topics with assessments (the only lines the tool reads); all topics
    when None."""
    return grouped_view(run, regroup, assessed)[0]


def grouped_view(run, regroup: bool = False, assessed=None) -> tuple:
    """:func:`check_grouping`'s run, and the :class:`ToolView` of its results on ``assessed``
    when they are the run's own (None when they were regrouped)."""
    res = run.results
    topics = res["topic"].unique() if assessed is None else assessed
    view = ToolView.of(res, topics, run)
    split = view.split_topics()
    key = view.tcode.astype(np.int64) * max(len(view.docs), 1) + view.dcode  # one integer per (topic, article)
    start = np.r_[True, key[1:] != key[:-1]] if len(key) else np.zeros(0, bool)
    dup = pd.Series(key[start]).duplicated().to_numpy()
    if not split and not dup.any():
        return run, view
    if not regroup:
        if split:
            raise InputError(run.source, None, describe_split(run, split),
                             "each topic's results together (an in-context run); --regroup moves them")
        r = res.iloc[int(np.flatnonzero(start)[np.flatnonzero(dup)[0]])]
        raise InputError(run.source, place(run.source, r.line), f"run {run.run_id}, topic {r.topic}: results of article "
                         f"{r.doc} are interleaved with other articles ({counted(int(dup.sum()), 'such block')})",
                         "each article's results together (an in-context run); --regroup moves them")
    by_topic = pd.factorize(view.tcode)[0]  # numbered as first met, like the articles
    by_article = pd.factorize(key)[0]
    order = np.lexsort((np.arange(len(res)), by_article, by_topic))
    moved = int((order != np.arange(len(res))).sum())
    logging.getLogger("inexflow").warning("%s: run %s regrouped per topic and article: %s moved next to the "
                                          "first result of %s topic and article", run.source, run.run_id,
                                          counted(moved, "result"), "its" if moved == 1 else "their")
    return replace(run, results=res.iloc[order].reset_index(drop=True)), None


def article_starts(view: ToolView) -> np.ndarray:
    """The first line of each article of a grouped run (:func:`check_grouping`): the lines
    where the (topic, article) pair changes."""
    t, d = view.tcode, view.dcode
    return np.flatnonzero(np.r_[True, (t[1:] != t[:-1]) | (d[1:] != d[:-1])]) if len(t) else np.zeros(0, np.int64)


def _score_in_context(run, ctx: ScoringContext, kind: str) -> pd.DataFrame:
    a = ctx.assessments
    docs = a.documents
    trel, nrel = ctx.memo("qrels_totals", lambda: qrels_totals(docs))
    run, view = grouped_view(run, bool(ctx.opt("regroup")), list(trel))
    topics = inex_eval_topic_order(scored_topics(run, list(trel), ctx, empty_zero=bool(ctx.opt("all_qrels_topics"))))
    warn_no_relevant(run.source, topics, nrel)
    res = passage_results(run) if kind == "ric" else run.results
    # the grouping check's view of the same lines, with the columns of ``res``
    view = ToolView.of(res, trel, run) if view is None else replace(view, res=res)
    first = article_starts(view)  # one article per (topic, doc): the run is grouped
    at, ad = view.tcode[first], view.dcode[first]
    relevant = ctx.memo("relevant_pairs", lambda: PairSet(relevant_documents(docs)))
    row = pair_rows(view.topics, view.docs, relevant)(at, ad)
    is_rel = row >= 0
    if kind == "ric":
        view.warn_past_document_end(run, document_lengths(ctx))
        check_no_overlap(run, view)
        rsize = passage_index(ctx).overlap([view.topics, view.docs], [view.tcode, view.dcode],
                                           res["start"].to_numpy(np.int64), res["end"].to_numpy(np.int64))
        rc = taken(relevant.frame["rel_chars"].to_numpy(np.float64), row, 0.0)
        score, ret, rel = ric_scores(res["length"].to_numpy(np.int64), rsize, first, rc, float(ctx.opt("beta")))
    else:
        bep = taken(np.nan_to_num(relevant.frame["bep_offset"].to_numpy(np.float64), nan=-1), row, -1).astype(np.int64)
        score = bic_scores(res["offset"].to_numpy(np.int64)[first], bep, is_rel,
                           float(ctx.opt("bep_distance")))
        ret = rel = np.zeros(len(first))
    # the scored topics' articles, topic by topic (each topic's lines are together)
    columns, means = in_context_columns(kind, topics, topic_slots(list(view.topics), topics)[1], at, score, is_rel,
                                        ret, rel, trel, nrel)
    return tidy_columns(topics, QUANT, columns, means)


def score_relevant_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    return _score_in_context(run, ctx, "ric")


def score_best_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    """Best in Context: one result per article; a second result for an article of an assessed
    topic is an error (the official tool reads no line of a topic its qrels lack)."""
    res = run.results
    (tcode, topic_names), (dcode, docs) = (run.codes(c) or pd.factorize(res[c]) for c in ("topic", "doc"))
    dup = pd.Series(tcode.astype(np.int64) * max(len(docs), 1) + dcode).duplicated().to_numpy()  # per (topic, doc)
    dup = dup & np.isin(np.asarray(topic_names, dtype=object), list(ctx.assessed_topics()))[tcode]
    if dup.any():
        r = res.iloc[int(np.flatnonzero(dup)[0])]
        raise InputError(run.source, place(run.source, r.line), f"run {run.run_id}, topic {r.topic}: article {r.doc} has "
                         f"more than one result ({counted(int(dup.sum()), 'extra result')} in the run)",
                         "one best entry point per article in a best-in-context run")
    return _score_in_context(run, ctx, "bic")
