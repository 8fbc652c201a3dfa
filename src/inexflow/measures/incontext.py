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
from inexflow.measures.context import ScoringContext, tidy
from inexflow.measures.passage import check_no_overlap, document_lengths, passage_index, passage_results
from inexflow.measures.registry import IN_CONTEXT_LEVELS, IN_CONTEXT_RANKS
from inexflow.measures.toolorder import (
    ToolView,
    describe_split,
    qrels_totals,
    relevant_documents,
    tool_div,
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
    that order. ``assessed``: the topics with assessments (the only lines the tool reads);
    all topics when None."""
    res = run.results
    topics = res["topic"].unique() if assessed is None else assessed
    view = ToolView.of(res, topics, run)
    split = view.split_topics()
    key = view.tcode.astype(np.int64) * max(len(view.docs), 1) + view.dcode  # one integer per (topic, article)
    start = np.r_[True, key[1:] != key[:-1]] if len(key) else np.zeros(0, bool)
    dup = pd.Series(key[start]).duplicated().to_numpy()
    if (split or dup.any()) and not regroup:
        if split:
            raise InputError(run.source, None, describe_split(run, split),
                             "each topic's results together (an in-context run); --regroup moves them")
        r = res.iloc[int(np.flatnonzero(start)[np.flatnonzero(dup)[0]])]
        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: results of article "
                         f"{r.doc} are interleaved with other articles ({int(dup.sum())} such blocks)",
                         "each article's results together (an in-context run); --regroup moves them")
    if split or dup.any():
        by_topic = pd.factorize(view.tcode)[0]  # numbered as first met, like the articles
        by_article = pd.factorize(key)[0]
        order = np.lexsort((np.arange(len(res)), by_article, by_topic))
        moved = int((order != np.arange(len(res))).sum())
        logging.getLogger("inexflow").warning("%s: run %s regrouped per topic and article: %d results moved next "
                                              "to the first result of their topic and article", run.source,
                                              run.run_id, moved)
        res = res.iloc[order].reset_index(drop=True)
    return replace(run, results=res)


def _articles(run) -> pd.DataFrame:
    """One row per (topic, article) in rank order with rank, chars retrieved, start offset."""
    res = run.results
    first = ~res.duplicated(["topic", "doc"])
    arts = res.loc[first, ["topic", "doc", "offset"]].reset_index(drop=True)
    arts["art_rank"] = arts.groupby("topic", sort=False).cumcount() + 1
    return arts


def gp_measures(scores: np.ndarray, relevant: np.ndarray, nrel: int, ranks=IN_CONTEXT_RANKS, short_list: str = "last"):
    """gP/gR at ``ranks``, AgP and the 11-point interpolated gP for one topic, with the tool's
    arithmetic: gP[r] = (sum of the first r scores) / r, summed left to right; a list shorter
    than r reports its last rank (sum / articles retrieved, not / r; ``short_list="zero"``
    divides by r instead, the missing ranks scoring 0 as in the 2006 paper's formula);
    gR = relevant articles so far / ``nrel`` in doubles (NaN when ``nrel`` is 0); each rank
    lands on recall point floor(10 * gR) (0 for NaN, as Java's (int) cast), the points are
    filled backwards with the running maximum; AgP = (sum of gP at the ranks of relevant
    articles) / ``nrel``."""
    n = len(scores)
    ip = np.zeros(len(LEVELS11))
    if n == 0:
        vals = {m: 0.0 for r in ranks for m in (f"gP[{r}]", f"gR[{r}]")}
        return vals, tool_div(0.0, nrel), ip
    cum = np.cumsum(scores)
    gp = cum / np.arange(1, n + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        gr = np.cumsum(relevant) / np.float64(nrel)
        point = np.nan_to_num(np.floor(10.0 * gr), nan=0.0).astype(np.int64)
    vals = {}
    for r in ranks:
        k = min(r, n) - 1
        vals[f"gP[{r}]"] = float(gp[k] if short_list == "last" or r <= n else cum[k] / r)
        vals[f"gR[{r}]"] = float(gr[k])
    rel_gp = gp[relevant.astype(bool)]
    agp = tool_div(np.cumsum(rel_gp)[-1] if len(rel_gp) else 0.0, nrel)
    np.maximum.at(ip, np.minimum(point, len(LEVELS11) - 1), gp)
    return vals, agp, np.maximum.accumulate(ip[::-1])[::-1]


def _score_in_context(run, ctx: ScoringContext, kind: str) -> pd.DataFrame:
    a = ctx.assessments
    docs = a.documents
    trel, nrel = ctx.memo("qrels_totals", lambda: qrels_totals(docs))
    run = check_grouping(run, bool(ctx.opt("regroup")), list(trel))
    topics = scored_topics(run, list(trel), ctx, empty_zero=bool(ctx.opt("all_qrels_topics")))
    warn_no_relevant(run.source, topics, nrel)
    arts = _articles(run)
    reldoc = ctx.memo("relevant_by_pair", lambda: relevant_documents(docs).set_index(["topic", "doc"]))
    key = pd.MultiIndex.from_frame(arts[["topic", "doc"]])
    arts["relevant"] = key.isin(reldoc.index)
    arts["rel_chars"] = reldoc["rel_chars"].reindex(key).fillna(0).to_numpy()
    if kind == "ric":
        res = passage_results(run)
        view = ToolView.of(res, trel)
        view.warn_past_document_end(run, document_lengths(ctx))
        check_no_overlap(run, view)
        res["rsize"] = passage_index(ctx).overlap([view.topics, view.docs], [view.tcode, view.dcode],
                                                  res["start"].to_numpy(np.int64), res["end"].to_numpy(np.int64))
        per = res.groupby(["topic", "doc"], sort=False).agg(ret=("length", "sum"), rel=("rsize", "sum"))
        arts = arts.join(per, on=["topic", "doc"])
        beta = float(ctx.opt("beta"))
        rel, ret, rc = (arts[c].to_numpy(np.float64) for c in ("rel", "ret", "rel_chars"))
        hit = rel > 0  # the tool scores an article only when it retrieved highlighted text
        p = rel / np.where(hit, ret, 1)
        r = rel / np.where(hit, rc, 1)
        f = (1.0 + beta * beta) * p * r / np.where(hit, beta * beta * p + r, 1)
        arts["score"] = np.where(hit, f, 0.0)
    else:
        n = float(ctx.opt("bep_distance"))
        bep = reldoc["bep_offset"].reindex(key).fillna(-1).to_numpy(np.int64)
        d = np.abs(bep - arts["offset"].to_numpy(np.int64))
        arts["score"] = np.where(arts["relevant"].to_numpy() & (bep > -1) & (d <= n), (n - d) / n, 0.0)
        arts["ret"] = 0
        arts["rel"] = 0
    by_topic = arts.groupby("topic", sort=False).indices
    score, relevant = arts["score"].to_numpy(np.float64), arts["relevant"].to_numpy(np.int64)
    ret, rel = (arts[c].fillna(0).to_numpy(np.float64) for c in ("ret", "rel"))  # as pandas sums: NaN skipped
    rows, per_topic = [], []
    q = "chars"
    none = np.zeros(0, dtype=np.int64)
    for t in topics:
        i = by_topic.get(t, none)
        vals = {"num_ret": len(i), "num_rel": nrel[t], "num_rel_ret": int(relevant[i].sum()),
                "ret_size": int(ret[i].sum()), "rel_size": int(trel[t]), "rel_ret_size": int(rel[i].sum())}
        gvals, agp, ip = gp_measures(score[i], relevant[i], nrel[t])
        vals.update(gvals)
        vals["AgP"] = agp
        rows.extend((t, q, m, float(v)) for m, v in vals.items())
        # the interpolated precision at the 11 levels is averaged, not printed per topic
        per_topic.append(dict(vals, **{f"ircl_prn.{k / 10:.2f}": float(ip[k]) for k in LEVELS11}))
    # the tool's num_rel and rel_size count every qrels topic (aggregator qrels_sum)
    rows.extend(mean_rows(kind, q, per_topic, MEAN_LINES,
                          qrels_values={"num_rel": list(nrel.values()), "rel_size": list(trel.values())}))
    return tidy(rows)


MEAN_LINES = (["num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size", "MAgP"]
              + [m for r in IN_CONTEXT_RANKS for m in (f"gP[{r}]", f"gR[{r}]")] + [f"ircl_prn.{k / 10:.2f}" for k in LEVELS11])


def score_relevant_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    return _score_in_context(run, ctx, "ric")


def score_best_in_context(run, ctx: ScoringContext) -> pd.DataFrame:
    """Best in Context: one result per article; a second result for an article is an error."""
    res = run.results
    dup = res.duplicated(["topic", "doc"]).to_numpy()
    if dup.any():
        r = res.iloc[int(np.flatnonzero(dup)[0])]
        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: article {r.doc} has "
                         f"more than one result ({int(dup.sum())} extra results in the run)",
                         "one best entry point per article in a best-in-context run")
    return _score_in_context(run, ctx, "bic")
