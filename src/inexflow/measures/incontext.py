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
landing on point floor(10 * gR[r]) in doubles (:func:`gp_measures`). A relevant article is
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

from inexflow.errors import InputError
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext, tidy_columns
from inexflow.measures.passage import check_no_overlap, document_lengths, passage_index, passage_results
from inexflow.measures.registry import IN_CONTEXT_LEVELS, IN_CONTEXT_RANKS
from inexflow.measures.toolorder import (
    PairSet,
    ToolView,
    describe_split,
    pair_rows,
    qrels_totals,
    relevant_documents,
    warn_no_relevant,
)
from inexflow.measures.topicset import scored_topics

LEVELS11 = np.asarray(IN_CONTEXT_LEVELS)


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
        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: results of article "
                         f"{r.doc} are interleaved with other articles ({int(dup.sum())} such blocks)",
                         "each article's results together (an in-context run); --regroup moves them")
    by_topic = pd.factorize(view.tcode)[0]  # numbered as first met, like the articles
    by_article = pd.factorize(key)[0]
    order = np.lexsort((np.arange(len(res)), by_article, by_topic))
    moved = int((order != np.arange(len(res))).sum())
    logging.getLogger("inexflow").warning("%s: run %s regrouped per topic and article: %d results moved next "
                                          "to the first result of their topic and article", run.source,
                                          run.run_id, moved)
    return replace(run, results=res.iloc[order].reset_index(drop=True)), None


def article_starts(view: ToolView) -> np.ndarray:
    """The first line of each article of a grouped run (:func:`check_grouping`): the lines
    where the (topic, article) pair changes."""
    t, d = view.tcode, view.dcode
    return np.flatnonzero(np.r_[True, (t[1:] != t[:-1]) | (d[1:] != d[:-1])]) if len(t) else np.zeros(0, np.int64)


def gp_measures(scores: np.ndarray, relevant: np.ndarray, nrel: int, ranks=IN_CONTEXT_RANKS, short_list: str = "last"):
    """gP/gR at ``ranks``, AgP and the 11-point interpolated gP for one topic
    (:func:`gp_measures_grouped` for one group): (dict of gP[r], gR[r]; AgP; iP array)."""
    vals, agp, ip = gp_measures_grouped(np.zeros(len(scores), np.int64), scores, relevant, np.array([nrel]), ranks,
                                        short_list)
    return {m: float(v[0]) for m, v in vals.items()}, float(agp[0]), ip[0]


def gp_measures_grouped(group: np.ndarray, scores: np.ndarray, relevant: np.ndarray, nrel: np.ndarray,
                        ranks=IN_CONTEXT_RANKS, short_list: str = "last"):
    """gP/gR at ``ranks``, AgP and the 11-point interpolated gP of many topics at once, with
    the tool's arithmetic. ``group`` numbers each article's topic (0..len(nrel)-1),
    the articles of a topic in rank order; ``nrel`` per topic. Returns
    (``{"gP[r]": array, "gR[r]": array}``, AgP array, iP array topics x 11).

    Per topic: gP[r] = (sum of the first r scores) / r, summed left to right (a row of a
    zero-padded topics x ranks matrix, whose running sums along the row are sequential);
    a list shorter than r reports its last rank (sum / articles retrieved, not / r;
    ``short_list="zero"`` divides by r instead, the missing ranks scoring 0 as in the 2006
    paper's formula); gR = relevant articles so far / ``nrel`` in doubles (NaN when ``nrel``
    is 0); each rank lands on recall point floor(10 * gR) (0 for NaN, as Java's (int)
    cast), the points are filled backwards with the running maximum; AgP = (sum of gP at the
    ranks of relevant articles, left to right) / ``nrel``; a topic without articles scores
    0 (AgP 0 / ``nrel``)."""
    nt = len(nrel)
    if len(group) and not (group[1:] >= group[:-1]).all():  # topics in file order, not in topic order
        order = np.argsort(group, kind="stable")
        group, scores, relevant = group[order], scores[order], relevant[order]
    n = np.bincount(group, minlength=nt)
    width = max(int(n.max(initial=0)), 1)
    col = np.arange(len(group)) - (np.cumsum(n) - n)[group]
    score_m = np.zeros((nt, width))
    score_m[group, col] = scores
    rel_m = np.zeros((nt, width))
    rel_m[group, col] = relevant
    cum = np.cumsum(score_m, axis=1)
    gp = cum / np.arange(1, width + 1)
    nrel = np.asarray(nrel, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        gr = np.cumsum(rel_m, axis=1) / nrel[:, None]
        # the gP at the ranks of relevant articles, the others adding 0.0 (exact) to the sum
        agp = np.cumsum(np.where(rel_m > 0, gp, 0.0), axis=1)[:, -1] / nrel
    rows = np.arange(nt)
    some = n > 0
    vals = {}
    for r in ranks:
        k = np.maximum(np.minimum(r, n), 1) - 1
        g = gp[rows, k] if short_list == "last" else np.where(r <= n, gp[rows, k], cum[rows, k] / r)
        vals[f"gP[{r}]"] = np.where(some, g, 0.0)
        vals[f"gR[{r}]"] = np.where(some, gr[rows, k], 0.0)
    point = np.nan_to_num(np.floor(10.0 * gr[group, col]), nan=0.0).astype(np.int64)
    ip = np.zeros((nt, len(LEVELS11)))
    np.maximum.at(ip.reshape(-1), group * len(LEVELS11) + np.minimum(point, len(LEVELS11) - 1), gp[group, col])
    return vals, agp, np.maximum.accumulate(ip[:, ::-1], axis=1)[:, ::-1]


def _score_in_context(run, ctx: ScoringContext, kind: str) -> pd.DataFrame:
    a = ctx.assessments
    docs = a.documents
    trel, nrel = ctx.memo("qrels_totals", lambda: qrels_totals(docs))
    run, view = grouped_view(run, bool(ctx.opt("regroup")), list(trel))
    topics = scored_topics(run, list(trel), ctx, empty_zero=bool(ctx.opt("all_qrels_topics")))
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
        ret = np.add.reduceat(res["length"].to_numpy(np.int64), first) if len(first) else np.zeros(0, np.int64)
        rel = np.add.reduceat(rsize, first) if len(first) else np.zeros(0, np.int64)
        ret, rel = ret.astype(np.float64), rel.astype(np.float64)
        rc = np.where(is_rel, relevant.frame["rel_chars"].to_numpy(np.float64)[row], 0.0)
        beta = float(ctx.opt("beta"))
        hit = rel > 0  # the tool scores an article only when it retrieved highlighted text
        p = rel / np.where(hit, ret, 1)
        r = rel / np.where(hit, rc, 1)
        f = (1.0 + beta * beta) * p * r / np.where(hit, beta * beta * p + r, 1)
        score = np.where(hit, f, 0.0)
    else:
        n = float(ctx.opt("bep_distance"))
        bep = np.nan_to_num(relevant.frame["bep_offset"].to_numpy(np.float64), nan=-1)[row].astype(np.int64)
        bep = np.where(is_rel, bep, -1)
        d = np.abs(bep - res["offset"].to_numpy(np.int64)[first])
        score = np.where(is_rel & (bep > -1) & (d <= n), (n - d) / n, 0.0)
        ret = rel = np.zeros(len(first))
    # the scored topics' articles, topic by topic (each topic's lines are together)
    slot = np.full(len(view.topics), -1, np.int64)
    code = view.topics.get_indexer(topics)
    slot[code[code >= 0]] = np.flatnonzero(code >= 0)
    group = slot[at]
    keep = np.flatnonzero(group >= 0)
    group = group[keep]
    nrel_t = np.array([nrel[t] for t in topics], np.int64)
    gvals, agp, ip = gp_measures_grouped(group, score[keep], is_rel[keep], nrel_t)
    count = np.bincount(group, minlength=len(topics)).astype(np.float64)
    summed = [np.bincount(group, weights=w[keep], minlength=len(topics)) for w in (is_rel, ret, rel)]
    columns = {"num_ret": count, "num_rel": nrel_t.astype(np.float64), "num_rel_ret": summed[0],
               "ret_size": summed[1], "rel_size": np.array([trel[t] for t in topics], np.float64),
               "rel_ret_size": summed[2], **gvals, "AgP": agp}
    q = "chars"
    # the interpolated precision at the 11 levels is averaged, not printed per topic
    curve = {f"ircl_prn.{k / 10:.2f}": ip[:, k] for k in LEVELS11}
    # the tool's num_rel and rel_size count every qrels topic (aggregator qrels_sum)
    means = mean_rows(kind, q, {**columns, **curve}, MEAN_LINES,
                      qrels_values={"num_rel": list(nrel.values()), "rel_size": list(trel.values())})
    return tidy_columns(topics, q, columns, means)


MEAN_LINES = (["num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size", "MAgP"]
              + [m for r in IN_CONTEXT_RANKS for m in (f"gP[{r}]", f"gR[{r}]")] + [f"ircl_prn.{k / 10:.2f}" for k in LEVELS11])


def score_relevant_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    return _score_in_context(run, ctx, "ric")


def score_best_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    """Best in Context: one result per article; a second result for an article is an error."""
    res = run.results
    (tcode, _), (dcode, docs) = (run.codes(c) or pd.factorize(res[c]) for c in ("topic", "doc"))
    dup = pd.Series(tcode.astype(np.int64) * max(len(docs), 1) + dcode).duplicated().to_numpy()  # per (topic, doc)
    if dup.any():
        r = res.iloc[int(np.flatnonzero(dup)[0])]
        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: article {r.doc} has "
                         f"more than one result ({int(dup.sum())} extra results in the run)",
                         "one best entry point per article in a best-in-context run")
    return _score_in_context(run, ctx, "bic")
