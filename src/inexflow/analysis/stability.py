"""Stability of system rankings under reduced judgements and topic sets (Pal, Mitra &
Kamps, "Pool Sampling" and "Query Sampling"; INEX 2005 paper section 7).

- pool sampling: at each fraction f, ``samples`` random subsets of each topic's relevant
  documents (whole documents; floor(f * n), at least one per topic: footnote 4) stay relevant, the
  others count as non-relevant; every run is re-scored (:mod:`.rejudge`);
- pool-depth reduction ("Reducing Pool Depth"): the pool is regenerated from the analysed
  runs with its depth counted in articles (a run's top d are its first d distinct
  documents, :func:`~inexflow.model.pool.article_ranks`; the paper's INEX pool depth "is at
  least 30 in terms of articles"); the X% pool of topic Q is that pool down to d_Q(X), "the
  minimum depth at which the number of distinct documents in the generated pool is greater
  than (or equal to)" X% of "the original pool size for Q" (:func:`depth_levels`), the
  original pool being the documents Q's qrels judge (:func:`original_pools`); the X% qrels
  are the original relevant documents inside the X% pool (:func:`depth_reduction`), the
  100% qrels those inside the pool at d_Q(100);
- topic sampling: ``samples`` random subsets of ceil(f * T) topics.

For each sample, Kendall tau-b and tau_AP between the system ranking (mean over topics)
and the full ranking; reported as mean and standard error per level and measure, with
the smallest level whose mean tau reaches 0.9.
"""

from __future__ import annotations

import logging
import math
from fractions import Fraction

import numpy as np
import pandas as pd

from inexflow.analysis.pairs import judged_pairs, pair_positions, pairs_in
from inexflow.analysis.rankcorr import tau_ap, tau_b


def _standard_error(v) -> float:
    """The standard error of the mean of the defined values of ``v`` (NaN, an undefined tau,
    left out of both), as ``scipy.stats.sem(v, nan_policy="omit")``; NaN below two values."""
    v = np.asarray(v, float)
    v = v[~np.isnan(v)]
    return float(np.std(v, ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")


def _summary(rows, level_name: str) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["measure", level_name, "sample", "tau", "tau_ap"])
    g = df.groupby(["measure", level_name], sort=False)
    out = g.agg(tau=("tau", "mean"), tau_se=("tau", _standard_error), tau_ap=("tau_ap", "mean"),
                tau_ap_se=("tau_ap", _standard_error), samples=("tau", "size")).reset_index()
    return out


def smallest_stable(summary: pd.DataFrame, level_name: str, threshold: float = 0.9, count: str | None = None
                    ) -> pd.DataFrame:
    """Per measure, the smallest level whose mean tau reaches ``threshold``, and, with a
    ``count`` column (``reldocs``, ``topics``), Pal et al.'s Tables 3 and 6 as counts: the
    passing region is the levels from the top down to the lowest one with tau >= threshold at
    it and at every level above; ``COUNT_failing`` is the count at the highest level below it
    (tau < threshold), ``COUNT_passing`` the count at its lowest level, ``estimate_percent``
    the level where tau crosses the threshold by linear interpolation between the two, and
    ``paper`` the cell as the paper prints it: Table 3 (``reldocs``) ">3,871, <5,164 (~75%)",
    ">5,164 (>80%)" when only the top level passes; Table 6 (``topics``) the queries of the
    lowest passing level, "86 (80%)"; both "<=2,589 (<=40%)" when the lowest level passes."""
    rows = []
    for m, g in summary.groupby("measure", sort=False):
        ok = g[g["tau"] >= threshold]
        row = {"measure": m, f"smallest_{level_name}_tau_ge_{threshold}": float(ok[level_name].min()) if len(ok)
               else float("nan")}
        if count:
            row.update(_paper_cell(g.sort_values(level_name, ascending=False), level_name, threshold, count))
        rows.append(row)
    return pd.DataFrame(rows)


def _paper_cell(g: pd.DataFrame, level: str, threshold: float, count: str) -> dict:
    scale = 100 if level == "fraction" else 1
    lv, tau, cnt = g[level].to_numpy(float), g["tau"].to_numpy(float), g[count].to_numpy()
    n_pass = int(np.argmin(np.r_[tau >= threshold, False]))  # levels passing from the top down
    out = {f"{count}_failing": None, f"{count}_passing": None, "estimate_percent": None}
    if n_pass:
        out[f"{count}_passing"] = int(cnt[n_pass - 1])
    if n_pass < len(lv):
        out[f"{count}_failing"] = int(cnt[n_pass])
    if 0 < n_pass < len(lv):
        hi, lo = n_pass - 1, n_pass
        x = lv[lo] + (threshold - tau[lo]) * (lv[hi] - lv[lo]) / (tau[hi] - tau[lo])
        out["estimate_percent"] = round(float(x) * scale, 1)
    if n_pass == len(lv):
        out["paper"] = f"<={int(cnt[-1]):,} (<={lv[-1] * scale:g}%)"
    elif count == "topics" and n_pass:  # Table 6: the queries of the lowest passing level, "86 (80%)"
        out["paper"] = f"{int(cnt[n_pass - 1]):,} ({lv[n_pass - 1] * scale:g}%)"
    elif n_pass <= 1:
        out["paper"] = f">{int(cnt[n_pass]):,} (>{lv[n_pass] * scale:g}%)"
    else:  # the estimate to the nearest 5%, as Table 3 prints 77% ("~75%") and 65.9% ("~65%")
        x = out["estimate_percent"]
        out["paper"] = (f">{out[f'{count}_failing']:,}, <{out[f'{count}_passing']:,} "
                        f"(~{5 * math.floor(x / 5 + 0.5) if math.isfinite(x) else x}%)")
    return out


def topic_sampling(matrices: dict[str, pd.DataFrame], fractions, samples: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows, sizes = [], {}
    for m, mat in matrices.items():
        full = mat.mean(axis=1).to_numpy()
        n = mat.shape[1]
        for f in fractions:
            k = sizes[(m, float(f))] = max(1, math.ceil(Fraction(repr(float(f))) * n))  # the config's decimal
            for s in range(samples):
                # in topic order: the mean sums as the full mean does, so the 100% level gives tau 1
                # exactly (a sum in another order can differ in the last bit and split tied runs)
                cols = np.sort(rng.choice(n, size=k, replace=False))
                est = mat.iloc[:, cols].mean(axis=1).to_numpy()
                rows.append((m, float(f), s, tau_b(full, est), tau_ap(full, est)))
    out = _summary(rows, "fraction")
    # the topics each sample holds (Pal et al. Table 6 counts queries)
    return out.assign(topics=[sizes[(m, f)] for m, f in zip(out["measure"], out["fraction"])])


def sample_size(fraction: float, n: int) -> int:
    """The relevant documents random pool sampling keeps of a topic's ``n`` at ``fraction``:
    floor(fraction x n), at least one. Pal et al., footnote 4: "For a few topics there were
    less than five relevant documents. For such topics, one relevant document was included in
    the reduced qrels at 20% sampling level" (floor(0.2 n) = 0 exactly when n < 5). The
    fraction is taken as the decimal the config writes (0.7 x 10 is 7, not 7.000000000000001
    or 6.999...)."""
    return max(1, math.floor(Fraction(repr(float(fraction))) * n))


def pool_sampling(judged, measures, fractions, samples: int, seed: int) -> pd.DataFrame:
    """Pal et al., "Random sampling" (Tables 1-2): per fraction f, ``samples`` times keep
    max(1, floor(f x n_Q)) of each topic's n_Q relevant documents at random (whole documents:
    :func:`sample_size`);
    tau and tau_AP of the mean scores against the full qrels, their mean and standard error,
    and ``reldocs``, the relevant documents kept (the same in every sample). Judged
    non-relevant documents (no highlighted text) are neither sampled nor counted: "these
    entries do not figure during the computation of precision scores, and are therefore
    ignored in these experiments" (footnote 3)."""
    rng = np.random.default_rng(seed)
    full = judged.score(judged.full_masks(), measures)
    full_means = {m: v.mean(axis=1).to_numpy() for m, v in full.items()}
    relevant = {t: np.flatnonzero(c > 0) for t, c in judged.rel_chars.items()}
    kept = {float(f): sum(sample_size(f, len(r)) for r in relevant.values() if len(r)) for f in fractions}
    rows = []
    for f in fractions:
        for s in range(samples):
            masks = {}
            for t, docs in judged.rel_docs.items():
                keep = np.zeros(len(docs), bool)
                if len(relevant[t]):
                    k = sample_size(f, len(relevant[t]))
                    keep[relevant[t][rng.choice(len(relevant[t]), size=k, replace=False)]] = True
                masks[t] = keep
            est = judged.score(masks, measures)
            for m in measures:
                e = est[m].reindex(columns=full[m].columns, fill_value=0.0).mean(axis=1).to_numpy()
                rows.append((m, float(f), s, tau_b(full_means[m], e), tau_ap(full_means[m], e)))
            logging.getLogger("inexflow").info("pool sampling: fraction %g sample %d/%d done", f, s + 1, samples)
    out = _summary(rows, "fraction")
    return out.assign(reldocs=out["fraction"].map(kept).astype("int64"))


def paper_shape(summary: pd.DataFrame, level: str) -> pd.DataFrame:
    """Pal et al.'s Tables 1-2 and 4-5: one row per level, labelled "X (#reldocs)" with X in
    percent, then tau and tau_AP for each measure (in the summary's order)."""
    out: dict[str, dict] = {}
    for r in summary.sort_values(level, kind="stable").itertuples(index=False):
        x = getattr(r, level) * (100 if level == "fraction" else 1)
        row = out.setdefault(f"{x:g} ({int(r.reldocs):,})", {})
        row[f"{r.measure} tau"], row[f"{r.measure} tau_AP"] = r.tau, r.tau_ap
    df = pd.DataFrame.from_dict(out, orient="index")
    df.index.name = "Pool % (# reldocs)"
    return df.reset_index()


ORIGINAL_FROM = ("qrels", "campaign pool")  # where original_pools finds each topic's original pool


def original_pools(judged, pool: pd.DataFrame) -> tuple[dict[str, list], str]:
    """Pal et al.'s original pool of each topic, whose size the regenerated pools are cut to
    ("the original pool size for Q", "Reducing Pool Depth"): the documents the qrels judge for
    it, relevant or not ("the original qrels contain assessed nonrelevant units as well",
    footnote 3). Qrels that list no judged non-relevant document at all (the INEX 2009-2010
    FOL qrels, the demo's) do not record what was judged; the campaign's pool ``pool`` (topic,
    doc: build_pool's, at ``pool.target`` or ``pool.depth``) then stands in for every topic.
    ``judged`` is a :class:`~inexflow.analysis.rejudge.JudgedRuns`. Returns topic -> documents
    and where they come from (:data:`ORIGINAL_FROM`)."""
    log = logging.getLogger("inexflow")
    if any((c <= 0).any() for c in judged.rel_chars.values()):
        log.info("original pools (the sizes Pal et al.'s pools are cut to): the documents the qrels judge")
        return {t: list(d) for t, d in judged.rel_docs.items()}, ORIGINAL_FROM[0]
    log.warning("pool depth and leave-one-group-out: the qrels record no judged non-relevant document (FOL qrels "
                "list highlighted passages only), so each topic's original pool, whose size the regenerated pools are "
                "cut to, is the campaign's pool (reduced_pools.tsv: original_from 'campaign pool')")
    out: dict[str, list] = {}
    for t, d in zip(pool["topic"].tolist(), pool["doc"].tolist()):
        out.setdefault(str(t), []).append(d)
    return out, ORIGINAL_FROM[1]


def depth_levels(entry: pd.DataFrame, pool_sizes: dict, percents) -> pd.DataFrame:
    """Pal, Mitra & Kamps, "Reducing Pool Depth": per topic Q and level X (100 always
    included), d_Q(X), the smallest depth at which the pool regenerated from ``entry``
    (topic, doc, entry depth in articles) holds at least ceil(X% of ``pool_sizes[Q]``, the
    original pool size of Q) documents (every document when it never does), the size of the
    pool at that depth and the original pool size."""
    levels = sorted({float(x) for x in percents} | {100.0})
    rows = []
    for t, g in entry.groupby("topic", sort=False):
        e = np.sort(g["entry"].to_numpy(np.int64))
        size = pool_sizes.get(t, 0)
        for x in levels:
            target = max(1, math.ceil(round(x / 100 * size, 9)))
            d = int(e[min(target, len(e)) - 1])
            rows.append((t, x, d, int(np.searchsorted(e, d, side="right")), size))
    return pd.DataFrame(rows, columns=["topic", "percent", "depth", "pool_size", "original_pool"])


def pool_at(entry: pd.DataFrame, levels: pd.DataFrame, percent) -> pd.DataFrame:
    """The rows of ``entry`` inside each topic's X% pool (entry depth <= d_Q(X) of
    :func:`depth_levels`)."""
    sel = levels[levels["percent"] == float(percent)]
    depth = dict(zip(sel["topic"].tolist(), sel["depth"].tolist()))
    codes, topics = pd.factorize(entry["topic"])
    cut = np.array([depth.get(t, -1) for t in topics], dtype=np.int64)[codes]
    return entry[entry["entry"].to_numpy(np.int64) <= cut]


def depth_reduction(judged, measures, entry: pd.DataFrame, levels: pd.DataFrame, percents) -> pd.DataFrame:
    """Pal, Mitra & Kamps, Tables 4-5: tau and tau_AP between the rankings by the 100% qrels
    (the original relevant documents inside the regenerated pool at depth d_Q) and by the X%
    qrels (those inside the pool at d_Q(X)); with the relevant documents of each level and
    the numbers of topics (with relevant documents at 100%) and systems of the caption."""
    depth = dict(zip(zip(levels["topic"].tolist(), levels["percent"].tolist()), levels["depth"].tolist()))
    # each judged document's entry depth (inf: not in the pool), topic by topic in rel_docs order
    rel_topic, rel_doc, _, sizes = judged_pairs(judged)
    at = pair_positions(entry["topic"], entry["doc"], rel_topic, rel_doc)
    ent = np.where(at >= 0, entry["entry"].to_numpy(np.float64)[np.maximum(at, 0)] if len(entry) else 0, np.inf)
    bounds = np.r_[0, np.cumsum(sizes)].astype(np.int64)

    def masks(x):
        kept = ent <= np.repeat(np.array([depth.get((t, x), -1) for t in judged.rel_docs], np.float64), sizes)
        return {t: kept[a:b] for t, a, b in zip(judged.rel_docs, bounds[:-1], bounds[1:])}

    relevant = {t: c > 0 for t, c in judged.rel_chars.items()}  # the judged non-relevant documents count nowhere
    full_masks = masks(100.0)
    full = judged.score(full_masks, measures)
    full_means = {m: v.mean(axis=1).to_numpy() for m, v in full.items()}
    n_topics = sum(bool((k & relevant[t]).any()) for t, k in full_masks.items())
    rows = []
    for x in sorted({float(p) for p in percents}):
        mx = masks(x)
        reldocs = int(sum(int((k & relevant[t]).sum()) for t, k in mx.items()))
        est = judged.score(mx, measures)
        for m in measures:
            e = est[m].reindex(index=full[m].index, columns=full[m].columns, fill_value=0.0).mean(axis=1).to_numpy()
            rows.append((m, x, reldocs, tau_b(full_means[m], e), tau_ap(full_means[m], e), n_topics,
                         len(judged.runs)))
        logging.getLogger("inexflow").info("pool depth at %g%% of the pool done", x)
    return pd.DataFrame(rows, columns=["measure", "percent", "reldocs", "tau", "tau_ap", "topics", "systems"])


def reduced_pools(entry: pd.DataFrame, levels: pd.DataFrame, judged) -> pd.DataFrame:
    """Per topic and level X: d_Q(X), the pool size at that depth, the original pool size
    and the pool's relevant documents."""
    rel = pairs_in(entry["topic"], entry["doc"], judged.relevant_pairs())
    code, topics = pd.factorize(entry["topic"])
    e = entry["entry"].to_numpy(np.int64)
    # every (topic, entry depth) as one sorted key; each level counts the relevant rows of its
    # topic's block up to its depth
    span = int(e.max()) + 2 if len(e) else 1
    key = code.astype(np.int64) * span + e
    order = np.argsort(key, kind="stable")
    key, found = key[order], np.r_[0, np.cumsum(rel[order])]
    at = pd.Index(topics).get_indexer(levels["topic"]).astype(np.int64)
    depth = np.minimum(levels["depth"].to_numpy(np.int64), span - 1)
    relevant = found[np.searchsorted(key, at * span + depth, side="right")] - found[np.searchsorted(key, at * span)]
    return levels.assign(relevant=np.where(at >= 0, relevant, 0).astype(np.int64))


def relevant_vs_depth(judged, entry: pd.DataFrame) -> pd.DataFrame:
    """Per topic: relevant documents found in the pool ``entry`` (topic, doc, entry depth)
    down to each entry depth (Figure 6, "Number of relevant documents vs. pool-depth")."""
    e = entry.assign(relevant=pairs_in(entry["topic"], entry["doc"], judged.relevant_pairs()))
    out = (e.groupby(["topic", "entry"], sort=False)["relevant"].sum().groupby(level=0).cumsum()
           .rename("relevant_found").reset_index().rename(columns={"entry": "depth"}))
    return out
