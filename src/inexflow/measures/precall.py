"""inex_eval, the INEX 2002-2004 measure: precall (Raghavan, Bollmann & Jung) on elements
(Hiemstra & Mihajlovic, section 3, Eq. 1-2; Ogilvie & Lalmas, section 2.3).

P(rel|retr)(x) = x n / (x n + esl(x n)), with n = the sum of the quantised assessments
of the topic's elements, and the expected search length esl = j + s i / (r + 1): the
ranked list is cut into levels of results with equal rsv (ties); the level where the
cumulated quantised relevance first reaches x n is the final level; j = non-relevant
results (quant 0) in the levels before it, i = non-relevant results in it, r = the
relevance in it (sum of quant) and s = the relevance still needed from it (x n minus the
relevance of the levels before). With binary quantisations these are the counts of
Raghavan et al.; with graded ones (``gen``) relevance is summed in quant units, as the
2002 tool generalised precall. A recall point never reached scores 0.

``precall_AP`` is the mean of P(rel|retr) over x = 0.01, 0.02, ..., 1.00 for a topic;
``precall_MAP`` its mean over topics. Results without rsv form levels of one result.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.measures.catalogue import aggregate
from inexflow.measures.context import ScoringContext, element_results, tidy
from inexflow.measures.element_arrays import element_codes
from inexflow.measures.topicset import scored_topics
from inexflow.measures.xcg import assessed_gains, thorough_gains

RECALL_POINTS = np.arange(1, 101) / 100


def precall(gains: np.ndarray, levels: np.ndarray, n: float, points=RECALL_POINTS) -> np.ndarray:
    """P(rel|retr) at each recall point for one topic; ``levels`` labels each result's tie level."""
    out = np.zeros(len(points))
    if n <= 0 or len(gains) == 0:
        return out
    starts = np.flatnonzero(np.r_[True, levels[1:] != levels[:-1]])
    rel = np.add.reduceat(gains, starts)
    nonrel = np.add.reduceat((gains == 0).astype(float), starts)
    cum_rel = np.cumsum(rel)
    cum_non = np.cumsum(nonrel)
    for p, x in enumerate(points):
        need = x * n
        lv = int(np.searchsorted(cum_rel, need - 1e-12, side="left"))
        if lv >= len(rel):
            continue
        before_rel = cum_rel[lv - 1] if lv else 0.0
        j = cum_non[lv - 1] if lv else 0.0
        s = need - before_rel
        esl = j + s * nonrel[lv] / (rel[lv] + 1)
        out[p] = need / (need + esl)
    return out


def score_precall(run, ctx: ScoringContext) -> pd.DataFrame:
    res = element_results(run, "precall")
    codes = element_codes(run)
    groups = res.groupby("topic", sort=False).indices
    rows = []
    for quant, rb in sorted(ctx.recallbases.items()):
        n_by_topic = {t: n for t, n in rb.groupby("topic")["gain"].sum().items() if n > 0}
        topics = scored_topics(run, list(n_by_topic), ctx, judged=ctx.assessed_topics())
        gains = thorough_gains(res, rb, assessed_gains(ctx, quant, rb), codes)
        rsv = res["rsv"].to_numpy()
        aps = []
        for t in topics:
            idx = groups.get(t, np.zeros(0, dtype=np.int64))
            r = rsv[idx]
            levels = np.arange(len(idx), dtype=float) if np.isnan(r).any() else r  # no rsv: no ties
            ap = float(precall(gains[idx], levels, n_by_topic[t]).mean())
            rows.append((t, quant, "precall_AP", ap))
            aps.append(ap)
        if aps:
            rows.append(("all", quant, "precall_MAP", aggregate("precall", "precall_MAP", aps)))
            rows.append(("all", quant, "num_q", float(len(aps))))
    return tidy(rows)
