"""Pal, Mitra & Kamps' adaptive pool-depth strategy (Discussion, "a proposed pooling
strategy"), as an analysis of a campaign: how many judgements it saves against the
campaign's fixed-size pools, and how well the system ranking it gives agrees with the one
by the full judgements.

Per topic, from the entry depths of the analysed runs' documents: start at depth ``step``;
judge the pool; deepen by ``step`` while the documents the last step added are relevant at
a rate of at least ``min_rate`` (relevant among them / added), up to ``max_judged`` documents
(the budget: a step that would judge more is not taken, so that only the first step, which is
always judged, can exceed it) or until no run adds anything. The settings and their defaults are config
``analysis.adaptive_pool`` (workflow/schemas/config.schema.yaml). The
paper leaves "the rate drops off" open; this reading (the precision of the newly judged
documents) is recorded in docs/measures.md.

Only the campaign's pool was judged: a document the adaptive pool takes from beyond it has
no judgement, counts as not relevant, and is reported (``unjudged``). The reference ranking
is the one by every judged relevant document (the full qrels); the adaptive one keeps the
relevant documents inside each topic's adaptive pool.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.analysis.rankcorr import tau_ap, tau_b


def adaptive_depths(entry: pd.DataFrame, relevant: set, judged: set, step: int, min_rate: float,
                    max_judged: int | None) -> pd.DataFrame:
    """Per topic (``entry``: topic, doc, entry depth over the analysed runs; ``relevant`` and
    ``judged``: (topic, doc) pairs): the depth the strategy stops at, the documents it judges,
    the relevant ones it finds, those it takes from outside the judged pool, and why it
    stopped (``rate``, ``budget`` or ``exhausted``)."""
    rows = []
    for t, g in entry.groupby("topic", sort=False):
        order = np.argsort(g["entry"].to_numpy(np.int64), kind="stable")
        e = g["entry"].to_numpy(np.int64)[order]
        docs = g["doc"].to_numpy(object)[order]
        rel = np.array([(t, d) in relevant for d in docs], dtype=np.int64)
        unj = np.array([(t, d) not in judged for d in docs], dtype=np.int64)
        crel, cunj = np.r_[0, np.cumsum(rel)], np.r_[0, np.cumsum(unj)]
        depth, why = step, "exhausted"
        while True:
            n = int(np.searchsorted(e, depth, side="right"))
            if max_judged is not None and n >= max_judged:
                why = "budget"
                break
            if n == len(e):
                break
            n_next = int(np.searchsorted(e, depth + step, side="right"))
            if max_judged is not None and n_next > max_judged:  # the step would judge beyond the budget
                why = "budget"
                break
            if n_next == n:  # nothing new at the next step: deeper steps are looked at
                depth += step
                continue
            depth += step
            added = n_next - n
            if (crel[n_next] - crel[n]) / added < min_rate:
                why = "rate"
                break
        n = int(np.searchsorted(e, depth, side="right"))
        rows.append((t, int(depth), n, int(crel[n]), int(cunj[n]), why))
    return pd.DataFrame(rows, columns=["topic", "depth", "judged", "relevant", "unjudged", "stopped"])


def adaptive_pool_analysis(judged_runs, measures, entry: pd.DataFrame, pool: pd.DataFrame, step: int,
                           min_rate: float, max_judged: int | None):
    """(per topic, per measure) tables of the adaptive strategy against the campaign's pool
    ``pool`` (topic, doc, entry). ``judged_runs`` is a :class:`~inexflow.analysis.rejudge.JudgedRuns`;
    the per-measure table holds the judgements of the fixed and the adaptive pools, the
    judgements saved (also in percent), the relevant documents each finds, the unjudged
    documents the adaptive pool takes, and tau and tau_AP between the rankings by the full and
    by the adaptive judgements."""
    relevant = {(t, d) for t, docs in judged_runs.rel_docs.items() for d in docs}
    in_pool = set(zip(pool["topic"].tolist(), pool["doc"].tolist()))  # (lists: iterating Arrow strings is slow)
    topics = adaptive_depths(entry, relevant, in_pool, step, min_rate, max_judged)
    fixed = pool.groupby("topic", sort=False).size()
    topics["fixed_judged"] = topics["topic"].map(fixed).fillna(0).astype(np.int64)
    topics["fixed_relevant"] = [sum((t, d) in in_pool for d in judged_runs.rel_docs.get(t, ())) for t in topics["topic"]]
    depth = dict(zip(topics["topic"].tolist(), topics["depth"].tolist()))
    ent = dict(zip(zip(entry["topic"].tolist(), entry["doc"].tolist()), entry["entry"].tolist()))
    masks = {t: np.array([ent.get((t, d), np.inf) <= depth.get(t, -1) for d in docs], bool)
             for t, docs in judged_runs.rel_docs.items()}
    full = judged_runs.score(judged_runs.full_masks(), measures)
    est = judged_runs.score(masks, measures)
    rows = []
    for m in measures:
        f = full[m].mean(axis=1)
        a = est[m].reindex(index=full[m].index, columns=full[m].columns, fill_value=0.0).mean(axis=1)
        fj, aj = int(topics["fixed_judged"].sum()), int(topics["judged"].sum())
        rows.append((m, fj, aj, fj - aj, 100.0 * (fj - aj) / fj if fj else float("nan"),
                     int(topics["fixed_relevant"].sum()), int(topics["relevant"].sum()), int(topics["unjudged"].sum()),
                     tau_b(f.to_numpy(), a.to_numpy()), tau_ap(f.to_numpy(), a.to_numpy())))
    summary = pd.DataFrame(rows, columns=["measure", "fixed_judged", "adaptive_judged", "saved", "saved_pct",
                                          "fixed_relevant", "adaptive_relevant", "unjudged", "tau", "tau_ap"])
    return topics, summary
