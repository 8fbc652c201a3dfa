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

from inexflow.errors import InputError
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext, tidy
from inexflow.measures.cutoff import any_overlapping, overlapping_flags
from inexflow.measures.incontext import check_grouping
from inexflow.measures.passage_arrays import gp_measures
from inexflow.measures.registry import RANKS_2006
from inexflow.measures.topicset import scored_topics


def _check_no_nesting(run, res: pd.DataFrame):
    if not any_overlapping(*(res[c].to_numpy() for c in ("topic", "doc", "xpath"))):
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
                        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {t}: element "
                                         f"{r.doc}{r.xpath} overlaps {e.xpath} on line {e.line} "
                                         f"({int(flags.sum())} overlapping result{'s' if flags.sum() != 1 else ''})",
                                         "non-overlapping elements per article (Relevant in Context)")


def score_hixeval(run, ctx: ScoringContext) -> pd.DataFrame:
    els = ctx.assessments.elements
    if len(els) and (els["rsize"] < 0).any():
        raise InputError(ctx.assessments.source, None, "the assessments give no highlighted sizes (rsize)",
                         "INEX 2005/2006 highlighting assessments for HiXEval")
    trel = els.groupby(["topic", "doc"])["rsize"].max()
    trel = trel[trel > 0]
    numrel = trel.groupby(level=0).size().to_dict()
    run = check_grouping(run, bool(ctx.opt("regroup")), list(numrel))
    res = run.results[run.results["topic"].isin(list(numrel))]
    res = res.assign(xpath=res["xpath"].astype(object))
    if (res["xpath"] == "").any():
        r = res[res["xpath"] == ""].iloc[0]
        raise InputError(run.source, f"line {r.line}", "a passage result in a HiXEval (element) run",
                         "element results (<path>) for Relevant in Context on element assessments")
    _check_no_nesting(run, res)
    m = res[["topic", "doc", "xpath", "length", "line"]].merge(els[["topic", "doc", "xpath", "size", "rsize"]],
                                                              on=["topic", "doc", "xpath"], how="left")
    rsize = m["rsize"].fillna(0).to_numpy(np.float64)
    size = m["size"].fillna(-1).to_numpy(np.float64)
    size = np.where(size < 0, m["length"].to_numpy(np.float64), size)
    key = pd.MultiIndex.from_frame(m[["topic", "doc"]])
    art_rel = trel.reindex(key).fillna(0).to_numpy(np.float64)
    unknown = (size < 0) & (art_rel > 0)
    if unknown.any():
        r = m[unknown].iloc[0]
        raise InputError(run.source, f"line {r.line}", f"element {r.doc}{r.xpath} is not assessed and its size "
                         "is unknown", "a collection directory (--collection) to measure unassessed elements")
    m["rsize"], m["size"], m["trel"] = rsize, np.maximum(size, 0), art_rel
    arts = m.groupby(["topic", "doc"], sort=False).agg(rel=("rsize", "sum"), ret=("size", "sum"),
                                                        trel=("trel", "first")).reset_index()
    p = np.where(arts["ret"] > 0, arts["rel"] / arts["ret"].where(arts["ret"] > 0, 1), 0.0)
    r = np.where(arts["trel"] > 0, arts["rel"] / arts["trel"].where(arts["trel"] > 0, 1), 0.0)
    arts["score"] = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    arts["relevant"] = (arts["trel"] > 0).astype(np.int64)
    topics = scored_topics(run, sorted(numrel), ctx)
    by_topic = arts.groupby("topic", sort=False).indices
    rows, per = [], []
    q = "chars"
    for t in topics:
        g = arts.iloc[by_topic.get(t, np.zeros(0, dtype=np.int64))]
        vals = {"num_ret": len(g), "num_rel": numrel[t], "num_rel_ret": int(g["relevant"].sum())}
        gvals, agp, _ = gp_measures(g["score"].to_numpy(np.float64), g["relevant"].to_numpy(), numrel[t],
                                    RANKS_2006, short_list="zero")
        vals.update(gvals)
        vals["AgP"] = agp
        rows.extend((t, q, name, float(v)) for name, v in vals.items())
        per.append(vals)
    rows.extend(mean_rows("hixeval", q, per, ["num_q", "num_ret", "num_rel", "num_rel_ret", "MAgP"]
                          + [m for k in RANKS_2006 for m in (f"gP[{k}]", f"gR[{k}]")]))
    return tidy(rows)
