"""FetchBrowse (INEX 2005 evaluation measures paper, section 6.3; docs/measures.md, XCG).

Two scores, ep/gr measures only (MAep, iMAep):

- article level (``art_MAep``, ``art_iMAep``): the run reduced to its articles (each
  element replaced by its article, first occurrence kept) against the ideal vector the
  paper describes: "filter the recall-base to contain only those article nodes that have
  at least one relevant element according to the chosen quantisation. E.g. for strict
  quantisation, only those articles are kept that contain at least one highly exhaustive
  and fully specific element. The ideal gain vector is obtained by sorting the filtered set
  by quantised score". An article is kept when an element inside it (the article node
  included) quantises above 0; its score is the quantisation of the article node's own
  assessment (the root element, Eq. 10) where that is above 0, else the best quantised
  score of an element inside it (*decided here*: under ``strict`` an article node is rarely
  fully specific itself, and a kept article scored 0 would leave the ideal vector empty).
  The run's articles score the same (0 for an article with nothing relevant). A topic with
  no relevant element under the quantisation has no ideal vector and is left out of the
  means, as everywhere (docs/measures.md).
- element level, with overlap off and on (``el_MAep[off]``, ``el_MAep[on]``, and the same
  for iMAep): every article cluster of the run (its elements in rank order) is scored
  against the cluster's recall-base -- the article's relevant elements (off) or its ideal
  elements with rv_norm gains (on) -- then averaged over the run's clusters of articles
  with a non-empty recall-base, then over topics. A topic where no such cluster is
  retrieved scores 0 at element level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.measures.context import ScoringContext, element_results, tidy
from inexflow.measures.element_arrays import element_codes
from inexflow.measures.topicset import scored_topics
from inexflow.measures.xcg import assessed_documents, assessed_gains, mean_rows, run_gains, xcg_topic


def _ep(xg, xi) -> tuple[float, float]:
    m = xcg_topic(np.asarray(xg, dtype=float), np.sort(np.asarray(xi, dtype=float))[::-1], [])
    return m["MAep"], m["iMAep"]


def score_fetchbrowse(run, ctx: ScoringContext) -> pd.DataFrame:
    alpha = float(ctx.opt("alpha"))
    results = element_results(run, "fetchbrowse")
    keys = element_codes(run)
    rows = []
    for quant, rb in sorted(ctx.recallbases.items()):
        rel = rb[rb["gain"] > 0]
        topics = scored_topics(run, sorted(set(rel["topic"])), ctx, judged=ctx.assessed_topics())
        roots = rb[rb["xpath"].str.count("/") == 1]  # the article nodes
        root_gain = roots.groupby(["topic", "doc"])["gain"].max()
        best_gain = rel.groupby(["topic", "doc"])["gain"].max()  # the kept articles: something relevant inside
        art_gain = root_gain.reindex(best_gain.index).fillna(0.0)
        art_gain = art_gain.where(art_gain > 0, best_gain).to_dict()
        rel_docs = rel.groupby("topic")["doc"].unique().to_dict()
        gains = {ov: run_gains(results, rb, ov == "on", alpha, run.source, assessed_gains(ctx, quant, rb), keys,
                               assessed_documents(ctx, quant, rb) if ov == "on" else None) for ov in ("off", "on")}
        per = {}
        by_topic = results.groupby("topic", sort=False).indices
        doc_col = results["doc"].to_numpy(dtype=object)
        # each (topic, article) cluster's recall-base gains: relevant elements (off), ideal ones (on)
        rel_gain, rel_ideal = rel["gain"].to_numpy(np.float64), rel["ideal"].to_numpy(bool)
        bases = {k: {"off": rel_gain[ix], "on": rel_gain[ix[rel_ideal[ix]]]}
                 for k, ix in rel.groupby(["topic", "doc"], sort=False).indices.items()}
        for t in topics:
            idx = by_topic.get(t, np.zeros(0, dtype=np.int64))
            codes, arts = pd.factorize(doc_col[idx])  # the run's articles in first-occurrence order
            order = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[order], np.arange(len(arts) + 1))
            xi = [art_gain[(t, d)] for d in rel_docs[t]]  # every scored topic has a relevant element
            vals = {}
            vals["art_MAep"], vals["art_iMAep"] = _ep([art_gain.get((t, d), 0.0) for d in arts], xi)
            for ov in ("off", "on"):
                cluster_scores = []
                for j, d in enumerate(arts):
                    base = bases.get((t, d))
                    if base is None or not len(base[ov]):
                        continue
                    cluster_scores.append(_ep(gains[ov][idx[order[bounds[j]:bounds[j + 1]]]], base[ov]))
                ma = [c[0] for c in cluster_scores]
                ima = [c[1] for c in cluster_scores]
                vals[f"el_MAep[{ov}]"] = float(np.mean(ma)) if ma else 0.0
                vals[f"el_iMAep[{ov}]"] = float(np.mean(ima)) if ima else 0.0
            per[t] = vals
            rows.extend((t, quant, m, v) for m, v in vals.items())
        rows.extend(mean_rows("fetchbrowse", per, quant))
    return tidy(rows)
