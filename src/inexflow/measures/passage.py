"""Focused passage retrieval measures of the official INEX 2007-2010 evaluation tool
(inex_eval; Pal, Mitra & Kamps, "Evaluation effort, reliability and reusability in XML
retrieval", section 2; spec note "Passage measures").

For one topic with results r = 1..L in rank order, rsize(r) the highlighted characters
inside result r, size(r) its length and Trel the topic's highlighted characters:

- P[r] = sum_{j<=r} rsize(j) / sum_{j<=r} size(j), R[r] = sum_{j<=r} rsize(j) / Trel;
- iP[x] = max P[r] over r with R[r] >= x (0 when the run never reaches x); recall levels
  are compared exactly in integers (100 * relret >= k * Trel);
- AiP = mean of iP over x = 0.00, 0.01, ..., 1.00; MAiP = mean of AiP over topics.

Bookkeeping lines as the tool prints them: num_ret (distinct documents retrieved),
num_rel (relevant
documents), num_rel_ret (relevant documents retrieved), ret_size, rel_size,
rel_ret_size (characters), art_prec/art_rec/art_f1 (documents) and
char_prec/char_rec/char_f1 (characters). The ``all`` lines give sums of the counts,
means of the rest and ``ircl_prn.x`` = the mean iP[x] at all 101 levels.

Known deviation: where a run lists one topic in two separate blocks of lines (the shared
``bert-focused.run`` does so for topic 2009079, with two different rankings), the tool
counts articles per block and its iP differs from the one on the merged, rank-ordered
list computed here; every other topic matches the tool to 1e-9.

Topic set (the tool's rule): topics in both the run and the qrels; with ``-c``
(``all_qrels_topics``) every topic in the qrels, missing ones scoring 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import InputError
from inexflow.measures import ScoringContext, register_family
from inexflow.measures.topicset import scored_topics, tidy
from inexflow.recallbase import normalised_passages, overlap_with_passages

LEVELS = np.arange(101)
PER_TOPIC_IP = (0, 1, 5, 10)
COUNT_LINES = ("num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size")
RATIO_LINES = ("art_prec", "art_rec", "art_f1", "char_prec", "char_rec", "char_f1")


def _f1(p, r):
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _level(k: int) -> str:
    return f"{k / 100:.2f}"


def interpolated_precision(size: np.ndarray, rsize: np.ndarray, trel: int) -> np.ndarray:
    """iP at the 101 recall levels for one topic (ranked sizes and relevant sizes)."""
    ip = np.zeros(len(LEVELS))
    if len(size) == 0 or trel <= 0:
        return ip
    cs = np.cumsum(size)
    cr = np.cumsum(rsize)
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(cs > 0, cr / np.where(cs > 0, cs, 1), 0.0)
    sufmax = np.maximum.accumulate(prec[::-1])[::-1]
    first = np.searchsorted(100 * cr, LEVELS * trel, side="left")
    ok = first < len(cr)
    ip[ok] = sufmax[first[ok]]
    return ip


def passage_results(run) -> pd.DataFrame:
    """The run's results as character ranges; element results need their extent resolved."""
    res = run.results
    if ((res["offset"] < 0) | (res["length"] < 0)).any():
        r = res[(res["offset"] < 0) | (res["length"] < 0)].iloc[0]
        raise InputError(run.source, f"line {r.line}", f"element result {r.doc}{r.xpath} has no character "
                         "range", "a collection directory in the config (or --collection) to convert xpaths")
    out = res[["topic", "doc", "offset", "length"]].copy()
    out["start"] = out["offset"]
    out["end"] = out["offset"] + out["length"]
    return out


def check_no_overlap(run, res: pd.DataFrame):
    """Focused runs: two different results of a topic whose character ranges intersect are an
    error naming the run, topic, article and line (exact repeats are only warned about when
    the run is read, as the official tool scores them)."""
    d = res[["topic", "doc", "start", "end"]].assign(line=run.results["line"].to_numpy())
    d = d.drop_duplicates(["topic", "doc", "start", "end"])
    d = d.sort_values(["topic", "doc", "start", "end"], kind="stable")
    same = (d["topic"].to_numpy()[1:] == d["topic"].to_numpy()[:-1]) & (d["doc"].to_numpy()[1:] == d["doc"].to_numpy()[:-1])
    prev_end = d.groupby(["topic", "doc"], sort=False)["end"].cummax().to_numpy()[:-1]
    bad = same & (d["start"].to_numpy()[1:] < prev_end)
    if bad.any():
        i = int(np.flatnonzero(bad)[0]) + 1
        r = d.iloc[i]
        raise InputError(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: passage {r.start}:"
                         f"{r.end - r.start} of article {r.doc} overlaps an earlier result of that article "
                         f"({int(bad.sum())} overlapping results)", "non-overlapping results in a focused run "
                         "(score overlapping runs with --task thorough)")


@register_family("passage")
def score_passage(run, ctx: ScoringContext) -> pd.DataFrame:
    """Focused: overlapping results are an error."""
    res = passage_results(run)
    check_no_overlap(run, res)
    return _score_passage(run, ctx, res)


@register_family("passage_thorough")
def score_passage_thorough(run, ctx: ScoringContext) -> pd.DataFrame:
    """Thorough (the tool's ``-t``): overlapping results are allowed and every result's
    characters count as retrieved, so the values equal the focused ones for any run without
    overlap (as the reference ``bert-focused.t.q.out`` shows). How the official tool credits
    text retrieved twice cannot be read off the shared reference outputs (that run has no
    overlap); counting it each time is the assumption made here."""
    return _score_passage(run, ctx, passage_results(run))


def _score_passage(run, ctx: ScoringContext, res: pd.DataFrame) -> pd.DataFrame:
    a = ctx.assessments
    docs = a.documents
    trel = docs.groupby("topic")["rel_chars"].sum().to_dict()
    nrel = docs.groupby("topic")["doc"].nunique().to_dict()
    reldocs = set(zip(docs["topic"], docs["doc"]))
    topics = scored_topics(run, list(trel), ctx, empty_zero=bool(ctx.opt("all_qrels_topics", False)))
    res["rsize"] = overlap_with_passages(res, normalised_passages(a))
    groups = res.groupby("topic", sort=False).indices
    rows = []
    ips, per = [], []
    q = "chars"
    for t in topics:
        idx = groups.get(t, np.zeros(0, dtype=np.int64))
        g = res.iloc[idx]
        size = g["length"].to_numpy(np.int64)
        rsize = g["rsize"].to_numpy(np.int64)
        ip = interpolated_precision(size, rsize, trel[t])
        ret_docs = set(g["doc"])
        rel_ret_docs = sum(1 for d in ret_docs if (t, d) in reldocs)
        vals = {"num_ret": len(ret_docs), "num_rel": nrel[t], "num_rel_ret": rel_ret_docs,
                "ret_size": int(size.sum()), "rel_size": int(trel[t]), "rel_ret_size": int(rsize.sum())}
        ap = rel_ret_docs / len(ret_docs) if ret_docs else 0.0
        ar = rel_ret_docs / nrel[t] if nrel[t] else 0.0
        cp = vals["rel_ret_size"] / vals["ret_size"] if vals["ret_size"] else 0.0
        cr = vals["rel_ret_size"] / vals["rel_size"] if vals["rel_size"] else 0.0
        vals.update(art_prec=ap, art_rec=ar, art_f1=_f1(ap, ar), char_prec=cp, char_rec=cr, char_f1=_f1(cp, cr))
        for k in PER_TOPIC_IP:
            vals[f"iP[{_level(k)}]"] = float(ip[k])
        vals["AiP"] = float(ip.mean())
        rows.extend((t, q, m, float(v)) for m, v in vals.items())
        ips.append(ip)
        per.append(vals)
    if per:
        rows.append(("all", q, "num_q", float(len(per))))
        for m in COUNT_LINES:
            rows.append(("all", q, m, float(sum(v[m] for v in per))))
        for m in RATIO_LINES:
            rows.append(("all", q, m, float(np.mean([v[m] for v in per]))))
        mean_ip = np.mean(ips, axis=0)
        for k in PER_TOPIC_IP:
            rows.append(("all", q, f"iP[{_level(k)}]", float(mean_ip[k])))
        rows.append(("all", q, "MAiP", float(np.mean([v["AiP"] for v in per]))))
        for k in LEVELS:
            rows.append(("all", q, f"ircl_prn.{_level(k)}", float(mean_ip[k])))
    return tidy(rows)
