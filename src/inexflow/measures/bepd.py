"""Best in Context 2006: BEPD and EPRUM (INEX 2006 evaluation measures paper, section 7.2).

Base score of a result x in a relevant document with best entry point b:
s(x, b) = A * L / (A * L + d(x, b)), d = |start of x - b| in characters, L the mean
document length, A > 0; 0 for results in documents without a BEP.

- ``BEPD[A]`` = sum of s over the run's results / number of BEPs of the topic, averaged
  over topics.
- ``EPRUM[A]``: EPRUM with targets = the BEPs (relevance 1), user behaviour = the user
  reaches the BEP of x's document with probability s(x, b). After k results the expected
  number of targets found is F_k = sum_{i<=k} s_i (one result per article), recall
  F_k / N. Precision at recall r is "the ratio ... of the minimum expected search length
  for the ideal run to the run's minimum expected search length" (section 7.2): the run
  needs k_r ranks, the smallest k with F_k >= r * N; the ideal run (the BEPs themselves,
  each reached with probability s(b, b) = 1) needs ceil(r * N) ranks. Precision at r =
  ceil(r N) / k_r (0 if r is never reached). ``EPRUM[A]`` is that precision averaged over
  r = 0.01, 0.02, ..., 1.00. A run that returns exactly the BEPs scores 1.
- ``EPRUM[A]@r[x]``: the EPRUM precision-recall graph of section 7.3, precision at recall x
  (the same 100 levels; per topic only with the ``per_topic_curves`` option, its means
  always).
- ``EPRUM[A]@[k]``: EPRUM precision at rank k for the ``cutoffs`` (section 7.2's second
  definition, :func:`eprum_at_ranks`).

Assumptions (the paper does not fix them): L defaults to the mean ``doc_chars`` of the
assessed documents (``mean_doc_length`` option to give the collection's); d is the
absolute distance; both search lengths take whole ranks (no interpolation between ranks),
so that with 0/1 probabilities EPRUM is classical precision at the rank where each recall
level is first reached, as the paper requires; the 100 recall levels are those of iMAep.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import InputError
from inexflow.io.canonical import unresolved
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.context import ScoringContext, tidy_matrix
from inexflow.measures.element_arrays import joined_values, result_codes, row_index, topic_rows
from inexflow.measures.registry import EPRUM_RECALL_PERCENTS, bepd_measure_names
from inexflow.measures.topicset import scored_topics

RECALL_LEVELS = np.asarray(EPRUM_RECALL_PERCENTS)


def bep_offsets(ctx: ScoringContext) -> pd.Series:
    """BEP character offset per (topic, doc): the qrels offset, or the BEP xpath via the index."""
    d = ctx.assessments.documents
    off = d["bep_offset"].to_numpy(np.int64).copy()
    need = (off < 0) & (d["bep_xpath"] != "").to_numpy()
    if need.any():
        index = ctx.index
        if index is None:
            r = d[need].iloc[0]
            raise InputError(ctx.assessments.source, f"topic {r.topic} doc {r.doc}", "best entry points given as "
                             "xpaths need the collection index", "a collection directory (--collection)")
        m = d.loc[need, ["doc", "bep_xpath"]].merge(index[["doc", "xpath", "start"]], left_on=["doc", "bep_xpath"],
                                                     right_on=["doc", "xpath"], how="left")
        if m["start"].isna().any():
            r = m[m["start"].isna()].iloc[0]
            raise InputError(ctx.assessments.source, f"doc {r.doc}", f"best entry point {r.bep_xpath} not in the "
                             "collection index")
        off[need] = m["start"].to_numpy(np.int64)
    s = pd.Series(off, index=pd.MultiIndex.from_frame(d[["topic", "doc"]]))
    return s[s >= 0]


def eprum_curve(probs: np.ndarray, n_targets: int) -> np.ndarray:
    """EPRUM precision at the 100 recall levels r = 0.01 .. 1.00 for one topic (the precision-
    recall graph of section 7.3): ceil(r N) / k_r, 0 where r is never reached."""
    return _curves_of_found(np.cumsum(probs)[None, :], n_targets)[0]


def _curves_of_found(found: np.ndarray, n_targets: int) -> np.ndarray:
    """:func:`eprum_curve` of each row of ``found``, the expected targets found after each rank
    (F_k, cumulated; one row per value of A): a row of 100 precisions per row."""
    prec = np.zeros((len(found), len(RECALL_LEVELS)))
    if n_targets == 0:
        return prec
    need = RECALL_LEVELS / 100 * n_targets
    k = np.empty(prec.shape, dtype=np.int64)  # first rank (0-based) with F_k >= r N
    for row, f in zip(k, found):
        row[:] = np.searchsorted(f, need - 1e-12, side="left")
    ideal = np.ceil(need - 1e-12)  # the ideal run's search length in whole ranks
    ok = k < found.shape[1]
    prec[ok] = (ideal / (k + 1))[ok]
    return prec


def eprum_precision(probs: np.ndarray, n_targets: int) -> float:
    """Mean EPRUM precision over the 100 recall levels for one topic."""
    return float(eprum_curve(probs, n_targets).mean())


def eprum_at_ranks(probs: np.ndarray, n_targets: int, ks) -> list[float]:
    """EPRUM precision at rank k (section 7.2): the ideal run's minimum search length to reach
    the run's expected recall after k ranks, F_k / N, divided by k. F_k = the sum of the first
    k probabilities (all of them for a shorter run), at most N; the ideal run (every BEP,
    each reached with probability 1) needs ceil(F_k) whole ranks, as for precision at recall.
    With 0/1 probabilities it is the classical precision at k."""
    return _at_ranks_of_found(np.cumsum(probs)[None, :], n_targets, ks)[0].tolist()


def _at_ranks_of_found(found: np.ndarray, n_targets: int, ks) -> np.ndarray:
    """:func:`eprum_at_ranks` of each row of ``found`` (F_k, cumulated; one row per value of A):
    a row of precisions at the ranks ``ks`` per row."""
    ks = np.asarray(ks, dtype=np.int64)
    f = np.zeros((len(found), len(ks)))
    if found.shape[1]:
        f = np.minimum(found[:, np.minimum(ks, found.shape[1]) - 1], float(n_targets))
    return np.where(f > 0, np.ceil(f - 1e-12) / ks, 0.0)


def score_bepd(run, ctx: ScoringContext) -> pd.DataFrame:
    beps = ctx.memo("bep offsets", lambda: bep_offsets(ctx))
    docs = ctx.assessments.documents
    L = float(ctx.opt("mean_doc_length")
              or ctx.memo("mean doc length", lambda: docs.drop_duplicates("doc")["doc_chars"].replace(-1, np.nan).mean()))
    if not L > 0:
        raise InputError(ctx.assessments.source, None, "cannot determine the mean document length L",
                         "doc_chars in the assessments or the mean_doc_length option")
    a_values = [float(a) for a in ctx.opt("bepd_a")]
    ks = [int(k) for k in ctx.opt("cutoffs")]
    keep_curves = bool(ctx.opt("per_topic_curves"))
    n_bep = ctx.memo("bep counts", lambda: beps.groupby(level=0).size().to_dict())
    topics = scored_topics(run, list(n_bep), ctx)
    res = run.results
    if (res["offset"] < 0).any():
        raise unresolved(run, res["offset"] < 0)
    # each result's BEP: the (topic, doc) rows of the BEP table looked up by the results' codes
    # (joined where a pair is listed twice)
    table = ctx.memo("bep rows", lambda: row_index(beps.index.to_frame(index=False), ["topic", "doc"]))
    if table is None:
        bep = beps.reindex(pd.MultiIndex.from_frame(res[["topic", "doc"]])).to_numpy(np.float64)
    else:
        bep = joined_values(beps.to_numpy(np.float64), table.rows(result_codes(run, res, columns=["topic", "doc"])),
                            np.nan)
    dist = np.abs(res["offset"].to_numpy(np.float64) - bep)
    groups = topic_rows(result_codes(run, res, columns=["topic"]))
    # each topic's measures in one row, per A: BEPD, EPRUM, EPRUM@[k].., then the graph's 100 points
    names, shown = ctx.memo("bepd columns", lambda: _bepd_columns(a_values, ks, keep_curves))
    # s(x, b) of every result for each A at once (elementwise: the same values as per topic), one row per A
    unreached, near = np.isnan(dist), np.nan_to_num(dist)
    by_a = np.vstack([np.where(unreached, 0.0, a * L / (a * L + near)) for a in a_values]) if a_values \
        else np.zeros((0, len(res)))
    n_val = 2 + len(ks)
    values = np.zeros((len(topics), len(names)))
    for row, t in zip(values, topics):
        idx = groups.get(t, np.zeros(0, dtype=np.int64))
        # every A's row at once, in C order (numpy sums each row of a C-ordered matrix pairwise, as
        # it sums the row alone; a column-major copy would be summed in another order)
        probs = np.ascontiguousarray(by_a[:, idx])
        found = np.cumsum(probs, axis=1)
        graphs = _curves_of_found(found, n_bep[t])
        block = row.reshape(len(a_values), n_val + len(RECALL_LEVELS))
        block[:, 0] = probs.sum(axis=1) / n_bep[t]
        block[:, 1] = graphs.mean(axis=1)
        block[:, 2:n_val] = _at_ranks_of_found(found, n_bep[t], ks)
        block[:, n_val:] = graphs
    tail = []
    if topics:  # the graph's points per topic only with per_topic_curves, their means always
        means = mean_rows("bepd", "bep", dict(zip(names, values.T)), names)
        tail = [("all", "bep", "num_q", float(len(topics))), *means]
    return tidy_matrix(topics, "bep", [names[j] for j in shown], values[:, shown], tail)


def _bepd_columns(a_values: list[float], ks: list[int], keep_curves: bool) -> tuple[list[str], np.ndarray]:
    """(the names of a topic's row of measures, the positions of those written per topic)."""
    names = bepd_measure_names({"bepd_a": a_values, "cutoffs": ks})[1:]
    width, n_val = len(names) // max(len(a_values), 1), 2 + len(ks)
    shown = [i * width + j for i in range(len(a_values)) for j in range(width if keep_curves else n_val)]
    return names, np.asarray(shown, dtype=np.int64)
