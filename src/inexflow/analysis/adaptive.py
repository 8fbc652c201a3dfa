"""Pal, Mitra & Kamps' adaptive pool-depth strategy (Discussion, "a proposed pooling
strategy"), as an analysis of a campaign: how many judgements it saves against the
original pools, and how well the system ranking it gives agrees with the one by the full
judgements.

Per topic, from the entry depths in articles of the analysed runs' documents (Pal et
al.'s regenerated pool, :func:`~inexflow.model.pool.regenerated_entries`): "1. Start with a
suitably small pool depth", ``step``; "2. Create the document pool, judge the pool"; "3.
Increase the pool depth by" ``step``; "4. Repeat steps 2-3 until the rate of finding new
relevant documents drops off, or a predetermined maximum number of documents to be judged
is reached". The rate is read as the share of relevant documents among those the last step
added, dropping off below ``min_rate``; the maximum is ``max_judged`` and is never passed:
the pool is judged in order of entry depth (ties by document name) and judging stops when
``max_judged`` documents are judged, partway through a step if need be, the first one
included. A step that adds nothing is passed over. The settings and their defaults are
config ``analysis.adaptive_pool`` (workflow/schemas/config.schema.yaml); the reading is
recorded in docs/measures.md.

Only the original pool was judged (:func:`~inexflow.analysis.stability.original_pools`): a
document the adaptive pool takes from beyond it has no judgement, counts as not relevant,
and is reported (``unjudged``). The reference ranking is the one by every judged relevant
document (the full qrels); the adaptive one keeps the relevant documents the adaptive pool
judges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.analysis.pairs import judged_pairs, pairs_in
from inexflow.analysis.rankcorr import tau_ap, tau_b


def _judging_order(entry: pd.DataFrame) -> pd.DataFrame:
    """``entry`` (topic, doc, entry depth) in the order the adaptive pool judges it: topics in
    their order of first appearance, each by entry depth, ties by document name."""
    first = pd.factorize(entry["topic"])[0]
    doc_rank = pd.factorize(entry["doc"], sort=True)[0]  # sorted by name: a rank per document, sorted as integers
    return entry.iloc[np.lexsort((doc_rank, entry["entry"].to_numpy(np.int64), first))]


def _topic_spans(topics: np.ndarray):
    """(topic, start, end) of each topic's rows of a table ordered by :func:`_judging_order`."""
    bounds = np.flatnonzero(np.r_[True, topics[1:] != topics[:-1], True]) if len(topics) else np.zeros(1, np.int64)
    return [(topics[a], int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def _stop(e: np.ndarray, rel: np.ndarray, step: int, min_rate: float, max_judged: int | None) -> tuple:
    """One topic's strategy over its entry depths ``e`` (ascending) and relevance flags
    ``rel``: (the depth of the last step, the documents judged, why it stopped)."""
    crel = np.r_[0, np.cumsum(rel)]
    depth, n, first = 0, 0, True
    while n < len(e):
        depth += step
        n_next = int(np.searchsorted(e, depth, side="right"))
        if n_next == n:  # nothing new at this step: deeper steps are looked at
            continue
        if max_judged is not None and n_next > max_judged:  # the maximum is reached partway through the step
            return depth, max_judged, "budget"
        if not first and (crel[n_next] - crel[n]) / (n_next - n) < min_rate:
            return depth, n_next, "rate"
        n, first = n_next, False
        if max_judged is not None and n == max_judged:
            return depth, n, "budget"
    return depth, n, "exhausted"


def adaptive_depths(entry: pd.DataFrame, relevant: set, judged: set, step: int, min_rate: float,
                    max_judged: int | None) -> pd.DataFrame:
    """Per topic (``entry``: topic, doc, entry depth over the analysed runs; ``relevant`` and
    ``judged``: (topic, doc) pairs): the depth of the strategy's last step (judged partway
    when the maximum stopped it), the documents it judges (never more than ``max_judged``), the relevant ones it finds, those it takes from
    outside the judged pool, and why it stopped (``rate``, ``budget`` or ``exhausted``)."""
    return _adaptive_depths(_judging_order(entry), relevant, judged, step, min_rate, max_judged)


def _adaptive_depths(order: pd.DataFrame, relevant, judged, step: int, min_rate: float, max_judged: int | None):
    """:func:`adaptive_depths` of the entries in :func:`_judging_order`."""
    topic, doc, e = order["topic"].to_numpy(object), order["doc"].to_numpy(object), order["entry"].to_numpy(np.int64)
    rel, judged_flag = pairs_in(topic, doc, relevant).astype(np.int64), pairs_in(topic, doc, judged)
    rows = []
    for t, a, b in _topic_spans(topic):
        depth, n, why = _stop(e[a:b], rel[a:b], step, min_rate, max_judged)
        rows.append((t, int(depth), n, int(rel[a:a + n].sum()), int((~judged_flag[a:a + n]).sum()), why))
    return pd.DataFrame(rows, columns=["topic", "depth", "judged", "relevant", "unjudged", "stopped"])


def adaptive_pool_analysis(judged_runs, measures, entry: pd.DataFrame, original: dict, step: int,
                           min_rate: float, max_judged: int | None):
    """(per topic, per measure) tables of the adaptive strategy against the original pools
    ``original`` (topic -> documents, :func:`~inexflow.analysis.stability.original_pools`).
    ``judged_runs`` is a :class:`~inexflow.analysis.rejudge.JudgedRuns`; the per-measure table
    holds the judgements of the original (``fixed``) and the adaptive pools, the judgements
    saved (also in percent), the relevant documents each finds, the unjudged documents the
    adaptive pool takes, and tau and tau_AP between the rankings by the full and by the
    adaptive judgements."""
    relevant = judged_runs.relevant_pairs()
    in_pool = (np.repeat(np.asarray(list(original), object), [len(d) for d in original.values()]),
               np.asarray([d for docs in original.values() for d in docs], object))
    order = _judging_order(entry)
    topics = _adaptive_depths(order, relevant, in_pool, step, min_rate, max_judged)
    topics["fixed_judged"] = topics["topic"].map({t: len(d) for t, d in original.items()}).fillna(0).astype(np.int64)
    rel_topic, rel_doc, rel_chars, sizes = judged_pairs(judged_runs)
    found = pd.Series(pairs_in(rel_topic, rel_doc, in_pool) & (rel_chars > 0)).groupby(rel_topic).sum()
    topics["fixed_relevant"] = topics["topic"].map(found).fillna(0).astype(np.int64)
    # the documents the adaptive pool judges: each topic's first ``judged`` in the judging order
    n_judged = dict(zip(topics["topic"].tolist(), topics["judged"].tolist()))
    topic = order["topic"].to_numpy(object)
    kept = np.zeros(len(order), bool)
    for t, a, _ in _topic_spans(topic):
        kept[a:a + n_judged[t]] = True
    adaptive = (topic[kept], order["doc"].to_numpy(object)[kept])
    kept_judged = np.split(pairs_in(rel_topic, rel_doc, adaptive), np.cumsum(sizes)[:-1])
    masks = dict(zip(judged_runs.rel_docs, kept_judged))
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
