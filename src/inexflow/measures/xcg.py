"""XCG measures for element retrieval (Kazai & Lalmas, INEX 2005 evaluation measures,
section 5; INEX 2006 paper section 3; decisions in ``shared/spec/measures.md``, XCG).

For one topic, with xG the run's gains by rank and xI the ideal gains (sorted
descending), xCG[i] = sum_{j<=i} xG[j] and xCI the same over xI, held at its last
value past |xI| (Eq. 1-2):

- nxCG[i] = xCG[i] / xCI[i] (Eq. 3); MAnxCG[i] = (1/i) sum_{j<=i} nxCG[j].
- gr[i] = xCG[i] / xCI[n], n = |xI| (Eq. 4); effort-precision at gain g: ep = i_ideal /
  i_run (Eq. 5), i_ideal found by linear interpolation on the ideal curve through
  (0, 0), (1, xCI[1]), ... so that with binary gains MAep equals average precision.
- MAep = (1/n) sum of ep over the natural recall points (ranks with xG > 0) (Eq. 6);
  iMAep = mean of ep at gr = 0.01 .. 1.00, ep interpolated linearly between natural
  points, flat before the first, 0 beyond the last reached.
- Q and R (Sakai's definitions, see the spec note): cbg(i) = sum_{j<=i} (xG[j] + 1 if
  xG[j] > 0); Q = (1/R) sum_i [xG[i] > 0] cbg(i) / (cig(i) + i); R-measure =
  cbg(R) / (cig(R) + R), R = |xI|.

The Thorough task (overlap off) takes xG[i] = quant of the result's assessment (0 for
unassessed elements) and xI = every element of the full recall-base.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.measures import ScoringContext, register_family
from inexflow.measures.topicset import scored_topics, tidy

GR_LEVELS = np.round(np.arange(1, 101) / 100, 2)


def xcg_topic(xg: np.ndarray, xi: np.ndarray, cutoffs) -> dict[str, float]:
    """All thorough XCG measures for one topic (xi sorted descending, all > 0)."""
    n = len(xi)
    xci = np.cumsum(xi)
    xcg = np.cumsum(xg)
    out: dict[str, float] = {}
    kmax = max(cutoffs) if cutoffs else 0
    if kmax:
        j = np.arange(1, kmax + 1)
        cg = xcg[np.minimum(j, len(xcg)) - 1] if len(xcg) else np.zeros(kmax)
        ci = xci[np.minimum(j, n) - 1]
        nxcg = cg / ci
        manxcg = np.cumsum(nxcg) / j
        for k in cutoffs:
            out[f"nxCG[{k}]"] = float(nxcg[k - 1])
        for k in cutoffs:
            out[f"MAnxCG[{k}]"] = float(manxcg[k - 1])
    nat = np.flatnonzero(xg > 0)
    g = xcg[nat]
    ideal_rank = np.interp(g, np.concatenate(([0.0], xci)), np.arange(0, n + 1, dtype=np.float64))
    ep = ideal_rank / (nat + 1)
    out["MAep"] = float(ep.sum() / n)
    # iMAep: ep at standard gain-recall levels
    if len(nat):
        gr = g / xci[-1]
        at = np.interp(GR_LEVELS, gr, ep, left=ep[0], right=0.0)
        at[GR_LEVELS > gr[-1] + 1e-12] = 0.0
        out["iMAep"] = float(at.mean())
    else:
        out["iMAep"] = 0.0
    # Q and R
    L = len(xg)
    isrel = xg > 0
    cbg = np.cumsum(np.where(isrel, xg + 1.0, 0.0))
    cig_full = np.cumsum(xi + 1.0)
    i = np.arange(1, L + 1)
    cig = cig_full[np.minimum(i, n) - 1] if L else np.zeros(0)
    out["Q"] = float((isrel * cbg / (cig + i)).sum() / n)
    cbg_r = cbg[min(n, L) - 1] if L else 0.0
    out["R"] = float(cbg_r / (cig_full[n - 1] + n))
    return out


def thorough_gains(results: pd.DataFrame, recallbase: pd.DataFrame) -> np.ndarray:
    """xG for every result: the quant of its assessment, 0 when unassessed."""
    m = results[["topic", "doc", "xpath"]].merge(recallbase[["topic", "doc", "xpath", "gain"]],
                                                 on=["topic", "doc", "xpath"], how="left")
    return m["gain"].fillna(0.0).to_numpy(np.float64)


@register_family("xcg")
def score_xcg(run, ctx: ScoringContext) -> pd.DataFrame:
    """Thorough XCG (overlap off) for every configured quantisation."""
    cutoffs = [int(k) for k in ctx.opt("cutoffs", [5, 10, 25, 50])]
    results = run.results[run.results["xpath"] != ""]
    rows = []
    for quant, rb in sorted(ctx.recallbases.items()):
        ideal_by_topic = {t: np.sort(g["gain"].to_numpy())[::-1] for t, g in rb.groupby("topic", sort=False)}
        topics = scored_topics(run, [t for t in ctx.assessments.topics if t in ideal_by_topic], ctx)
        gains = thorough_gains(results, rb)
        by_topic = {t: gains[idx] for t, idx in results.groupby("topic", sort=False).indices.items()}
        per = {}
        for t in topics:
            per[t] = xcg_topic(by_topic.get(t, np.zeros(0)), ideal_by_topic[t], cutoffs)
            rows.extend((t, quant, m, v) for m, v in per[t].items())
        if per:
            names = list(next(iter(per.values())))
            for m in names:
                rows.append(("all", quant, m, float(np.mean([per[t][m] for t in per]))))
            rows.append(("all", quant, "num_q", float(len(per))))
    return tidy(rows)
