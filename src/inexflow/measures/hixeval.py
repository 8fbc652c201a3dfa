"""Relevant in Context 2006 on element runs: HiXEval per article and generalised precision
(INEX 2006 evaluation measures paper, section 6.2; the run DTD's "AllInContext").

A run lists, per topic, articles in rank order, each with a set of non-overlapping
elements (an article's elements together; ``--regroup`` moves interleaved ones, see
:func:`inexflow.measures.incontext.check_grouping`). For the article a_r at rank r, with
E its retrieved elements, rsize(e) the highlighted characters inside e (the assessment's
``rsize``; 0 for an element not assessed) and size(e) its length (the assessment's
``size``, else the element's extent in the collection):

- P(a_r) = sum rsize(e) / sum size(e), R(a_r) = sum rsize(e) / Trel(a_r), with Trel the
  article's highlighted characters (the largest ``rsize`` assessed in it: its root's);
- F(a_r) = 2 P R / (P + R), the harmonic mean (0 for an article without relevance);
- gP[r] = sum_{i<=r} F(a_i) / r -- the paper's formula, so ranks past the end of a short
  list count 0 (unlike the 2007-2010 tool, which reports the last rank); gR[r] = articles
  with relevance among the first r / Numrel; AgP = sum of gP at the ranks of articles with
  relevance / Numrel; MAgP the mean AgP. Reported as in 2006: MAgP and gP[5, 10, 25, 50]
  (with gR at the same ranks).

Topics: those with highlighted text in the assessments, and in the run (``-e`` adds the
others with 0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import InputError, counted, place
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext, tidy
from inexflow.measures.cutoff import overlapping_flags
from inexflow.measures.element_arrays import ELEMENT_KEYS, Codes, RowIndex, any_nested, frame_codes, joined_values, result_codes, row_index
from inexflow.measures.incontext import check_grouping
from inexflow.measures.passage_arrays import gp_measures_grouped
from inexflow.measures.registry import RANKS_2006
from inexflow.measures.topicset import scored_topics


def _check_no_nesting(run, res: pd.DataFrame, codes: Codes):
    """No two results of a topic overlap (:func:`~inexflow.measures.element_arrays.any_nested`
    on their codes); where some do, the first result nested with an earlier one is an error."""
    if not any_nested(codes):
        return
    for t, idx in res.groupby("topic", sort=False).indices.items():
        flags = overlapping_flags(res["doc"].to_numpy()[idx], res["xpath"].to_numpy()[idx])
        if flags.any():
            g = res.iloc[idx[flags]]
            for j in range(1, len(g)):  # the first flagged result nested with an earlier one
                r = g.iloc[j]
                for e in g.iloc[:j].itertuples():
                    if e.doc == r.doc and (e.xpath == r.xpath or r.xpath.startswith(e.xpath + "/")
                                           or e.xpath.startswith(r.xpath + "/")):
                        raise InputError(run.source, place(run.source, r.line), f"run {run.run_id}, topic {t}: element "
                                         f"{r.doc}{r.xpath} overlaps {e.xpath} on line {e.line} "
                                         f"({counted(int(flags.sum()), 'overlapping result')})",
                                         "non-overlapping elements per article (Relevant in Context)")


def highlighted_articles(els: pd.DataFrame) -> tuple[pd.Series, RowIndex, dict]:
    """Trel per (topic, doc) with highlighted text (the largest ``rsize`` assessed in the
    article), the :class:`~inexflow.measures.element_arrays.RowIndex` of its (topic, doc)
    pairs, and the number of such articles per topic."""
    trel = els.groupby(["topic", "doc"])["rsize"].max()
    trel = trel[trel > 0]
    pairs = trel.index.to_frame(index=False)
    return trel, RowIndex(pairs, ["topic", "doc"], frame_codes(pairs, ["topic", "doc"])), \
        trel.groupby(level=0).size().to_dict()


def assessed_sizes(res: pd.DataFrame, els: pd.DataFrame, index: RowIndex | None, codes: Codes):
    """(rsize, size, the results' rows) of each result of ``res`` among the assessed elements
    ``els``: 0 and -1 where unassessed (or not given), looked up in ``index``, the elements'
    :func:`~inexflow.measures.element_arrays.row_index`, by the results' ``codes``, where
    given; else joined."""
    if index is None:
        m = res[["topic", "doc", "xpath", "length", "line"]].merge(els[["topic", "doc", "xpath", "size", "rsize"]],
                                                                  on=ELEMENT_KEYS, how="left")
        return m["rsize"].fillna(0).to_numpy(np.float64), m["size"].fillna(-1).to_numpy(np.float64), m
    at = index.rows(codes)
    return joined_values(els["rsize"].to_numpy(), at, 0.0), joined_values(els["size"].to_numpy(), at, -1.0), res


def article_sums(topic: np.ndarray, doc: np.ndarray, rsize: np.ndarray, size: np.ndarray, trel: np.ndarray):
    """Per article (topic, doc; integer codes), in order of first appearance: its topic, the
    highlighted characters retrieved (sum of ``rsize``), the characters retrieved (sum of
    ``size``) and its first ``trel``. Whole character counts are summed exactly in any order
    (bincount); others as pandas sums them."""
    code, firsts = pd.factorize(topic * (int(doc.max(initial=0)) + 1) + doc)  # codes in order of first appearance
    # each article's first row: where the code passes every code before it
    at = np.flatnonzero(code > np.maximum.accumulate(np.r_[-1, code[:-1]])) if len(code) else np.zeros(0, np.int64)
    exact = all(np.array_equal(v, np.round(v)) and np.abs(v).sum() < 2 ** 53 for v in (rsize, size))
    if exact:
        rel, ret = (np.bincount(code, weights=v, minlength=len(firsts)) for v in (rsize, size))
    else:
        sums = pd.DataFrame({"code": code, "rsize": rsize, "size": size}).groupby("code", sort=False).sum()
        rel, ret = sums["rsize"].to_numpy(np.float64), sums["size"].to_numpy(np.float64)
    return topic[at], rel, ret, trel[at]


def score_hixeval(run, ctx: ScoringContext) -> pd.DataFrame:
    els = ctx.assessments.elements
    if len(els) and (els["rsize"] < 0).any():
        raise InputError(ctx.assessments.source, None, "the assessments give no highlighted sizes (rsize)",
                         "INEX 2005/2006 highlighting assessments for HiXEval")
    trel, trel_rows, numrel = ctx.memo("highlighted articles", lambda: highlighted_articles(els))
    run = check_grouping(run, bool(ctx.opt("regroup")), list(numrel))
    codes = result_codes(run, run.results)
    (t_code, t_values), x_values = codes["topic"], codes["xpath"][1]
    kept = np.asarray([t in numrel for t in t_values.tolist()], dtype=bool)[t_code]  # the assessed topics' results
    if not kept.all():
        codes = {k: (c[kept], u) for k, (c, u) in codes.items()}
    res = run.results if kept.all() else run.results[kept]
    if res["xpath"].dtype != object:
        res = res.assign(xpath=res["xpath"].astype(object))
    if (x_values == "")[codes["xpath"][0]].any():
        r = res[res["xpath"] == ""].iloc[0]
        raise InputError(run.source, place(run.source, r.line), "a passage result in a HiXEval (element) run",
                         "element results (<path>) for Relevant in Context on element assessments")
    _check_no_nesting(run, res, codes)
    rsize, size, m = assessed_sizes(res, els, ctx.memo("assessed element rows", lambda: row_index(els, ELEMENT_KEYS)),
                                    codes)
    size = np.where(size < 0, m["length"].to_numpy(np.float64), size)
    art_rel = joined_values(trel.to_numpy(), trel_rows.rows(codes), 0.0)
    unknown = (size < 0) & (art_rel > 0)
    if unknown.any():
        r = m[unknown].iloc[0]
        raise InputError(run.source, place(run.source, r.line), f"element {r.doc}{r.xpath} is not assessed and its size "
                         "is unknown", "a collection directory (--collection) to measure unassessed elements")
    art_topic, rel, ret, art_trel = article_sums(codes["topic"][0], codes["doc"][0], rsize, np.maximum(size, 0),
                                                 art_rel)
    p = np.where(ret > 0, rel / np.where(ret > 0, ret, 1), 0.0)
    r = np.where(art_trel > 0, rel / np.where(art_trel > 0, art_trel, 1), 0.0)
    score = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    relevant = (art_trel > 0).astype(np.int64)
    topics = scored_topics(run, sorted(numrel), ctx)
    # every scored topic's articles at once (gp_measures_grouped: each topic's sums in rank order)
    position = {t: i for i, t in enumerate(topics)}  # each topic's group; -1 for the topics not scored
    group = np.asarray([position.get(t, -1) for t in t_values.tolist()], dtype=np.int64)[art_topic] \
        if len(art_topic) else np.zeros(0, np.int64)
    scored = group >= 0
    group, score, relevant = group[scored], score[scored], relevant[scored]
    nrel = np.asarray([numrel[t] for t in topics], dtype=np.int64)
    gvals, agp, _ = gp_measures_grouped(group, score, relevant, nrel, RANKS_2006, short_list="zero")
    num_ret = np.bincount(group, minlength=len(topics))
    num_rel_ret = np.bincount(group, weights=relevant, minlength=len(topics)).astype(np.int64)
    rows, per = [], []
    q = "chars"
    for i, t in enumerate(topics):
        vals = {"num_ret": int(num_ret[i]), "num_rel": numrel[t], "num_rel_ret": int(num_rel_ret[i])}
        vals.update({name: float(v[i]) for name, v in gvals.items()})
        vals["AgP"] = float(agp[i])
        rows.extend((t, q, name, float(v)) for name, v in vals.items())
        per.append(vals)
    rows.extend(mean_rows("hixeval", q, per, ["num_q", "num_ret", "num_rel", "num_rel_ret", "MAgP"]
                          + [m for k in RANKS_2006 for m in (f"gP[{k}]", f"gR[{k}]")]))
    return tidy(rows)
