"""Precision and set-based overlap at cut-offs (Hiemstra & Mihajlovic, "The simplest
evaluation measures for XML information retrieval that could possibly be useful",
section 4, Eq. 17).

- ``P[k]`` (per quantisation): the sum of the quantised assessments of the first k
  results divided by k (binary quantisations: relevant elements among the first k / k);
  unassessed elements count 0.
- ``overlap[k]``: the fraction of the first k results that overlap (are nested with, or
  equal to) another of the first k results of the same article (Eq. 17).

Lists shorter than k are padded, as the paper does, with elements that are neither
relevant nor overlapping, so both are divided by k. Defaults k in {5, 10, 20, 30, 100,
200, 1500} (option ``cutoff_ks``); the paper's quantisations are strict, liberal,
e3s321 ("exhaust.") and s3e321 ("specific") -- whichever quantisations the context has.
:func:`cutoff_table` lays one run's means out like the paper's Tables 1-4 and 6-8,
:func:`runs_cutoff_tables` does it for every run of a task, and :func:`ranked_runs` ranks
the runs like Tables 5 and 9 (precision at 10 and 100 averaged over the quantisations, with
overlap and rank).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.measures.catalogue import aggregate
from inexflow.measures.context import ScoringContext, element_results, tidy
from inexflow.measures.element_arrays import element_codes
from inexflow.measures.topicset import scored_topics
from inexflow.measures.xcg import assessed_gains, thorough_gains


def overlapping_flags(docs: np.ndarray, xpaths: np.ndarray) -> np.ndarray:
    """For a list of elements: does each overlap (nest with, or equal) another in the list?"""
    flags = np.zeros(len(docs), dtype=bool)
    by_doc: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        by_doc.setdefault(d, []).append(i)
    for idx in by_doc.values():
        if len(idx) < 2:
            continue
        # sorted step by step (an ancestor's steps are a prefix of its descendants', so each element
        # comes right after its ancestors and their other descendants, whatever characters its tag
        # names hold), a nested or equal pair is adjacent-reachable through prefixes: check each
        # element against the open chain of its ancestors in sorted order
        xs = [(x, i) for _, x, i in sorted((xpaths[i].split("/"), xpaths[i], i) for i in idx)]
        stack: list[tuple[str, int]] = []
        for x, i in xs:
            while stack and not (x == stack[-1][0] or x.startswith(stack[-1][0] + "/")):
                stack.pop()
            if stack:
                flags[i] = True
                for _, j in stack:
                    flags[j] = True
            stack.append((x, i))
    return flags


def score_cutoff(run, ctx: ScoringContext) -> pd.DataFrame:
    ks = [int(k) for k in ctx.opt("cutoff_ks")]
    res = element_results(run, "cutoff")
    codes = element_codes(run)
    groups = res.groupby("topic", sort=False).indices
    assessed = set(ctx.assessed_topics())
    topics = scored_topics(run, sorted(assessed), ctx)
    rows = []
    per: dict[tuple[str, str], list[float]] = {}
    for quant, rb in sorted(ctx.recallbases.items()):
        gains = thorough_gains(res, rb, assessed_gains(ctx, quant, rb), codes)
        for t in topics:
            g = gains[groups[t]] if t in groups else np.zeros(0)
            cum = np.cumsum(g)
            for k in ks:
                v = float(cum[min(k, len(g)) - 1] / k) if len(g) else 0.0
                rows.append((t, quant, f"P[{k}]", v))
                per.setdefault((quant, f"P[{k}]"), []).append(v)
    for t in topics:
        idx = groups.get(t, np.zeros(0, dtype=np.int64))
        docs, xps = res["doc"].to_numpy()[idx], res["xpath"].to_numpy()[idx]
        for k in ks:
            n = min(k, len(idx))
            v = float(overlapping_flags(docs[:n], xps[:n]).sum() / k)
            rows.append((t, "-", f"overlap[{k}]", v))
            per.setdefault(("-", f"overlap[{k}]"), []).append(v)
    if topics:
        rows.append(("all", "-", "num_q", float(len(topics))))
        rows.extend(("all", q, m, aggregate("cutoff", m, v)) for (q, m), v in per.items())
    return tidy(rows)


def cutoff_table(scores: pd.DataFrame, quants=None) -> pd.DataFrame:
    """The paper's layout: one row per cut-off, mean P[k] per quantisation (in the order of
    ``quants`` when given), then overlap."""
    m = scores[scores["topic"] == "all"]
    p = m[m["measure"].str.startswith("P[")]
    o = m[m["measure"].str.startswith("overlap[")]
    table = p.assign(cutoff=p["measure"].str[2:-1].astype(int)).pivot_table(
        index="cutoff", columns="quant", values="value", aggfunc="first")
    if quants:
        table = table[[q for q in quants if q in table.columns]]
    table["overlap"] = o.assign(cutoff=o["measure"].str[8:-1].astype(int)).set_index("cutoff")["value"]
    table.columns.name = None
    return table.reset_index()


def runs_cutoff_tables(scores: pd.DataFrame, quants=None) -> pd.DataFrame:
    """:func:`cutoff_table` of every run in ``scores`` (one task), stacked with a ``run``
    column, runs in name order."""
    cut = scores[scores["measure"].str.startswith(("P[", "overlap["))]
    tables = [cutoff_table(g, quants).assign(run=run) for run, g in cut.groupby("run", sort=True)]
    if not tables:
        return pd.DataFrame(columns=["run", "cutoff", "overlap"])
    out = pd.concat(tables, ignore_index=True)
    return out[["run"] + [c for c in out.columns if c != "run"]]


def ranked_runs(scores: pd.DataFrame, ks=(10, 100)) -> pd.DataFrame:
    """Hiemstra & Mihajlovic Tables 5 and 9: per run, the mean precision at each cut-off in
    ``ks`` averaged over the quantisations, the overlap at that cut-off and the run's rank by
    that precision (1 = best; equal values share the smaller rank); rows ordered by the rank
    at the first cut-off, then the second, then run name."""
    m = scores[scores["topic"] == "all"]
    out = pd.DataFrame({"run": sorted(set(m["run"]))})
    for k in ks:
        p = m[m["measure"] == f"P[{k}]"].groupby("run")["value"].mean()  # over the quantisations
        o = m[m["measure"] == f"overlap[{k}]"].set_index("run")["value"]
        out[f"P[{k}]"] = out["run"].map(p)
        out[f"overlap[{k}]"] = out["run"].map(o)
        # ranked on 12 significant digits: means that differ only by float summation order tie
        tied = out[f"P[{k}]"].map(lambda v: float(f"{v:.12g}"))
        out[f"rank[{k}]"] = tied.rank(method="min", ascending=False).astype("Int64")
    order = [f"rank[{k}]" for k in ks] + ["run"]
    return out.sort_values(order, kind="stable").reset_index(drop=True)
