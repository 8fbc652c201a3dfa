"""Stability of system rankings under reduced judgements and topic sets (Pal, Mitra &
Kamps, "Pool Sampling" and "Query Sampling"; INEX 2005 paper section 7).

- pool sampling: at each fraction f, ``samples`` random subsets of each topic's relevant
  documents (whole documents; ceil(f * n), at least one per topic) stay relevant, the
  others count as non-relevant; every run is re-scored (:mod:`.rejudge`);
- pool-depth reduction: the X% reduced pool keeps the relevant documents whose pool
  entry depth is at most (1 - X/100) of the topic's pool depth (at least depth 1);
- topic sampling: ``samples`` random subsets of ceil(f * T) topics.

For each sample, Kendall tau-b and tau_AP between the system ranking (mean over topics)
and the full ranking; reported as mean and standard error per level and measure, with
the smallest level whose mean tau reaches 0.9.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from inexflow.analysis.rankcorr import tau_ap, tau_b


def _summary(rows, level_name: str) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["measure", level_name, "sample", "tau", "tau_ap"])
    g = df.groupby(["measure", level_name], sort=False)
    out = g.agg(tau=("tau", "mean"), tau_se=("tau", lambda v: float(np.std(v, ddof=1) / math.sqrt(len(v)))
                                                 if len(v) > 1 else 0.0),
                tau_ap=("tau_ap", "mean"), tau_ap_se=("tau_ap", lambda v: float(np.std(v, ddof=1) / math.sqrt(len(v)))
                                                       if len(v) > 1 else 0.0),
                samples=("tau", "size")).reset_index()
    return out


def smallest_stable(summary: pd.DataFrame, level_name: str, threshold: float = 0.9) -> pd.DataFrame:
    rows = []
    for m, g in summary.groupby("measure", sort=False):
        ok = g[g["tau"] >= threshold]
        rows.append((m, float(ok[level_name].min()) if len(ok) else float("nan")))
    return pd.DataFrame(rows, columns=["measure", f"smallest_{level_name}_tau_ge_{threshold}"])


def topic_sampling(matrices: dict[str, pd.DataFrame], fractions, samples: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m, mat in matrices.items():
        full = mat.mean(axis=1).to_numpy()
        n = mat.shape[1]
        for f in fractions:
            k = max(1, math.ceil(f * n))
            for s in range(samples):
                # in topic order: the mean sums as the full mean does, so the 100% level gives tau 1
                # exactly (a sum in another order can differ in the last bit and split tied runs)
                cols = np.sort(rng.choice(n, size=k, replace=False))
                est = mat.iloc[:, cols].mean(axis=1).to_numpy()
                rows.append((m, float(f), s, tau_b(full, est), tau_ap(full, est)))
    return _summary(rows, "fraction")


def pool_sampling(judged, measures, fractions, samples: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    full = judged.score(judged.full_masks(), measures)
    full_means = {m: v.mean(axis=1).to_numpy() for m, v in full.items()}
    rows = []
    for f in fractions:
        for s in range(samples):
            masks = {}
            for t, docs in judged.rel_docs.items():
                k = max(1, math.ceil(f * len(docs)))
                keep = np.zeros(len(docs), bool)
                keep[rng.choice(len(docs), size=k, replace=False)] = True
                masks[t] = keep
            est = judged.score(masks, measures)
            for m in measures:
                e = est[m].reindex(columns=full[m].columns, fill_value=0.0).mean(axis=1).to_numpy()
                rows.append((m, float(f), s, tau_b(full_means[m], e), tau_ap(full_means[m], e)))
            logging.getLogger("inexflow").info("pool sampling: fraction %g sample %d/%d done", f, s + 1, samples)
    return _summary(rows, "fraction")


def depth_reduction(judged, measures, entry: pd.DataFrame, depths: pd.DataFrame, reductions) -> pd.DataFrame:
    """entry: pool table (topic, doc, entry); depths: (topic, depth)."""
    full = judged.score(judged.full_masks(), measures)
    full_means = {m: v.mean(axis=1).to_numpy() for m, v in full.items()}
    ent = {(t, d): e for t, d, e in zip(entry["topic"], entry["doc"], entry["entry"])}
    dep = dict(zip(depths["topic"], depths["depth"]))
    rows = []
    for x in reductions:
        masks = {}
        for t, docs in judged.rel_docs.items():
            limit = max(1, int(math.floor(dep.get(t, 0) * (1 - x / 100))))
            masks[t] = np.array([ent.get((t, d), np.inf) <= limit for d in docs])
        est = judged.score(masks, measures)
        for m in measures:
            e = est[m].reindex(columns=full[m].columns, fill_value=0.0).mean(axis=1).to_numpy()
            rows.append((m, float(x), 0, tau_b(full_means[m], e), tau_ap(full_means[m], e)))
        logging.getLogger("inexflow").info("pool-depth reduction %g%% done", x)
    return _summary(rows, "reduction")


def reduced_pools(entry: pd.DataFrame, depths: pd.DataFrame, reductions, judged=None) -> pd.DataFrame:
    """Per topic and reduction X: the reduced depth, the pool size and its relevant documents."""
    rel = {(t, d) for t, docs in judged.rel_docs.items() for d in docs} if judged is not None else set()
    dep = dict(zip(depths["topic"], depths["depth"]))
    rows = []
    for t, g in entry.groupby("topic", sort=False):
        for x in reductions:
            limit = max(1, int(math.floor(dep.get(t, 0) * (1 - x / 100))))
            sel = g[g["entry"] <= limit]
            rows.append((t, float(x), limit, len(sel), sum((t, d) in rel for d in sel["doc"])))
    return pd.DataFrame(rows, columns=["topic", "reduction", "depth", "pool_size", "relevant"])


def relevant_vs_depth(judged, entry: pd.DataFrame) -> pd.DataFrame:
    """Per topic: relevant documents found in the pool down to each entry depth (Figure 6)."""
    rel = {(t, d) for t, docs in judged.rel_docs.items() for d in docs}
    e = entry.assign(relevant=[(t, d) in rel for t, d in zip(entry["topic"], entry["doc"])])
    out = (e.groupby(["topic", "entry"], sort=False)["relevant"].sum().groupby(level=0).cumsum()
           .rename("relevant_found").reset_index().rename(columns={"entry": "depth"}))
    return out
