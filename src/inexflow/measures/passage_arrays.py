"""The array cores of the passage and in-context measures of the official INEX 2007-2010
evaluation tool (inex_eval; Pal, Mitra & Kamps, "Evaluation effort, reliability and
reusability in XML retrieval", section 2; INEX 2006 paper section 6 for gP/AgP;
docs/measures.md, "Passage measures"), on numpy arrays alone: the definitions are in
:mod:`inexflow.measures.passage` (focused: P, R, iP, AiP) and :mod:`inexflow.measures.incontext`
(Relevant and Best in Context: F-beta and BEP scores, gP, gR, AgP), whose families score
pandas tables through these functions, as the pandas-free scoring of FOL runs
(:mod:`inexflow.front.passages`) scores Arrow columns through them: one computation, whichever
table a run is read into.
"""

from __future__ import annotations

import numpy as np

from inexflow.errors import counted, place, warn_input
from inexflow.io.arrow_arrays import stable_order
from inexflow.io.qrels_fol import INT_MAX  # the official tool counts characters in Java ints
from inexflow.measures.catalogue import mean_rows
from inexflow.measures.registry import (
    CHARS,
    IN_CONTEXT_LEVELS,
    IN_CONTEXT_RANKS,
    PASSAGE_LEVELS,
    PER_TOPIC_IP,
    incontext_measure_names,
    passage_measure_names,
    recall_level,
)

LEVELS = np.asarray(PASSAGE_LEVELS)
LEVELS11 = np.asarray(IN_CONTEXT_LEVELS)
QUANT = CHARS["fixed_quants"][0]  # the quantisation label of every passage and in-context value


def tool_f1(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The tool's F1 per topic: 0 unless precision is positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, 2 * p * r / np.where(p > 0, p + r, 1), 0.0)


# the names of the per-topic iP lines and of the 101 points of the interpolated precision curve
IP_NAMES = [(k, f"iP[{recall_level(k)}]") for k in PER_TOPIC_IP]
CURVE_NAMES = [f"ircl_prn.{recall_level(k)}" for k in LEVELS]


def interpolated_precision(size: np.ndarray, rsize: np.ndarray, trel: int) -> np.ndarray:
    """iP at the 101 recall levels for one topic, from the results' sizes and highlighted
    sizes in reading order (the tool's per-result update and backward fill; module docstring).
    Levels never fall along the list, so iP[x] is the best precision from the first result
    on level >= x up to the last result on a level <= 100."""
    ip = np.zeros(len(LEVELS))
    if len(size) == 0 or trel <= 0:
        return ip
    cs = np.cumsum(size)
    cr = np.cumsum(rsize)
    level = np.floor(100.0 * (cr / float(trel)))
    n = int(np.searchsorted(level, 100.0, side="right"))
    if n == 0:
        return ip
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(cs[:n] > 0, cr[:n] / np.where(cs[:n] > 0, cs[:n], 1), 0.0)
    sufmax = np.maximum.accumulate(prec[::-1])[::-1]
    first = np.searchsorted(level[:n], LEVELS, side="left")
    ok = first < n
    ip[ok] = sufmax[first[ok]]
    return ip


def interpolated_precision_grouped(group: np.ndarray, size: np.ndarray, rsize: np.ndarray,
                                   trel: np.ndarray) -> np.ndarray:
    """iP (groups x 101) for many topics at once, the same values as
    :func:`interpolated_precision` per topic (tested): ``group`` numbers each result's topic
    (0..len(trel)-1), results of a group in reading order; ``trel`` per group (<= 0: all 0)."""
    ip = np.zeros((len(trel), len(LEVELS)))
    if len(group) == 0:
        return ip
    if (group[1:] >= group[:-1]).all():  # already topic by topic (the usual case): no sort
        g, size, rsize = group, size, rsize
    else:
        order = np.argsort(group, kind="stable")
        g, size, rsize = group[order], size[order], rsize[order]
    adds = rsize > 0  # (only these can set a level's best precision: ip_from_running_sums)
    return ip_from_running_sums(g[adds], grouped_cumsum(g, size)[adds], grouped_cumsum(g, rsize)[adds], trel)


def grouped_cumsum(g: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Running sums of ``values`` restarting at every new value of the non-decreasing ``g``."""
    c = np.cumsum(values)
    if len(g) < 2:
        return c
    first = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    # the sums within each group: the running sums less those at the end of the previous group
    return c - np.repeat(np.r_[0, c[first[1:] - 1]], np.diff(np.r_[first, len(g)]))


def ip_from_running_sums(g: np.ndarray, cs: np.ndarray, cr: np.ndarray, trel: np.ndarray) -> np.ndarray:
    """iP (groups x 101) from each result's running size ``cs`` and highlighted size ``cr``
    within its group (``g`` non-decreasing, ``trel`` per group). Only results that add
    highlighted text can set a level's best precision (precision falls along results that add
    none, on the same level), so callers may pass those alone, with their running sums over
    the whole list."""
    ip = np.zeros((len(trel), len(LEVELS)))
    if len(g) == 0:
        return ip
    tr = trel[g]
    with np.errstate(divide="ignore", invalid="ignore"):
        level = np.floor(100.0 * (cr / tr))
        prec = cr / cs
    ok = (tr > 0) & (cs > 0) & (level <= 100)
    # levels never fall within a group, so (group, level) keys come in runs: the best precision
    # of each run, then the backward fill over the levels
    key = g[ok] * len(LEVELS) + level[ok].astype(np.int64)
    if len(key):
        starts = np.r_[0, np.flatnonzero(key[1:] != key[:-1]) + 1]
        ip.reshape(-1)[key[starts]] = np.maximum.reduceat(prec[ok], starts)
    return np.maximum.accumulate(ip[:, ::-1], axis=1)[:, ::-1]


# the tool's ``all`` lines, in its order: the family's measures without the per-topic AiP
PASSAGE_MEANS = [m for m in passage_measure_names({}) if m != "AiP"]


def passage_columns(family: str, topics: list[str], slot: np.ndarray, ip_all: np.ndarray, ret_size: np.ndarray,
                    rel_ret_size: np.ndarray, n_ret: np.ndarray, rel_ret_docs: np.ndarray, trel: dict,
                    nrel: dict, source=None) -> tuple[dict, list]:
    """The focused (or thorough) per-topic values of the scored ``topics`` (measure -> one value
    per topic) and the ``all`` rows: ``slot`` gives each scored topic's position among the run's
    topics (-1: the run lacks it, every value 0), ``ip_all`` (run topics x 101), ``ret_size``
    and ``rel_ret_size`` per run topic; ``n_ret`` and ``rel_ret_docs`` (articles retrieved,
    relevant articles retrieved) per scored topic; ``trel``, ``nrel``: the qrels' highlighted
    characters and relevant documents per topic (module docstring of
    :mod:`inexflow.measures.passage`); ``source``: the run, named in the warning that the official
    tool's 32-bit character counts would wrap around on it."""
    there = slot >= 0

    def per_topic(values, fill=0.0):
        return np.where(there, np.asarray(values, np.float64)[np.maximum(slot, 0)], fill) if len(values) else \
            np.full(len(topics), fill)
    ip = np.where(there[:, None], ip_all[np.maximum(slot, 0)], 0.0) if len(ip_all) else np.zeros((len(topics), len(LEVELS)))
    n_ret, rel_ret_docs = np.asarray(n_ret, np.float64), np.asarray(rel_ret_docs, np.float64)
    num_rel = np.array([nrel[t] for t in topics], np.float64)
    rel_size = np.array([trel[t] for t in topics], np.float64)
    ret, rel_ret = per_topic(ret_size), per_topic(rel_ret_size)
    if source is not None and ret.sum() > INT_MAX:
        warn_input(source, None, f"the run retrieves {int(ret.sum()):,} characters, more than a Java int holds "
                   f"({INT_MAX:,}): the official tool's ret_size, and its measures where a topic's count passes "
                   "it, wrap around on this run; these are counted in 64 bits")
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(n_ret > 0, rel_ret_docs / n_ret, 0.0)
        ar = rel_ret_docs / num_rel  # the tool's division: 0/0 is NaN
        cp = np.where(ret > 0, rel_ret / ret, 0.0)
        cr = rel_ret / rel_size
        columns = {"num_ret": n_ret, "num_rel": num_rel, "num_rel_ret": rel_ret_docs, "ret_size": ret,
                   "rel_size": rel_size, "rel_ret_size": rel_ret, "art_prec": ap, "art_rec": ar,
                   "art_f1": tool_f1(ap, ar), "char_prec": cp, "char_rec": cr, "char_f1": tool_f1(cp, cr)}
    for k, name in IP_NAMES:
        columns[name] = ip[:, k]
    columns["AiP"] = np.cumsum(ip, axis=1)[:, -1] / len(LEVELS)  # tool_mean of each row: summed left to right
    # the interpolated precision at all 101 levels is averaged, not printed per topic
    means = mean_rows(family, QUANT, {**columns, **dict(zip(CURVE_NAMES, ip.T))}, PASSAGE_MEANS)
    return columns, means


def gp_measures(scores: np.ndarray, relevant: np.ndarray, nrel: int, ranks=IN_CONTEXT_RANKS, short_list: str = "last"):
    """gP/gR at ``ranks``, AgP and the 11-point interpolated gP for one topic
    (:func:`gp_measures_grouped` for one group): (dict of gP[r], gR[r]; AgP; iP array)."""
    vals, agp, ip = gp_measures_grouped(np.zeros(len(scores), np.int64), scores, relevant, np.array([nrel]), ranks,
                                        short_list)
    return {m: float(v[0]) for m, v in vals.items()}, float(agp[0]), ip[0]


def gp_measures_grouped(group: np.ndarray, scores: np.ndarray, relevant: np.ndarray, nrel: np.ndarray,
                        ranks=IN_CONTEXT_RANKS, short_list: str = "last"):
    """gP/gR at ``ranks``, AgP and the 11-point interpolated gP of many topics at once, with
    the tool's arithmetic. ``group`` numbers each article's topic (0..len(nrel)-1),
    the articles of a topic in rank order; ``nrel`` per topic. Returns
    (``{"gP[r]": array, "gR[r]": array}``, AgP array, iP array topics x 11).

    Per topic: gP[r] = (sum of the first r scores) / r, summed left to right; a list shorter
    than r reports its last rank (sum / articles retrieved, not / r; ``short_list="zero"``
    divides by r instead, the missing ranks scoring 0 as in the 2006 paper's formula); gR =
    relevant articles so far / ``nrel`` in doubles (NaN when ``nrel`` is 0); each rank lands on
    recall point floor(10 * gR) (0 for NaN, as Java's (int) cast), the points are filled
    backwards with the running maximum; AgP = (sum of gP at the ranks of relevant articles,
    left to right) / ``nrel``; a topic without articles scores 0 (AgP 0 / ``nrel``).
    ``relevant`` is 0 or 1 (False or True) per article, ``scores`` are not negative.

    Only the articles that are relevant or score are summed (a row per topic of a zero-padded
    topics x those articles matrix, whose running sums along the row are sequential): the
    others add 0.0 to every sum, which changes no bit, and where they land on a recall point
    an earlier article of the topic lands with a gP at least as high (or both are 0)."""
    nt = len(nrel)
    if len(group) and not (group[1:] >= group[:-1]).all():  # topics in file order, not in topic order
        order = np.argsort(group, kind="stable")
        group, scores, relevant = group[order], scores[order], relevant[order]
    scores = np.asarray(scores, np.float64)
    rel = np.asarray(relevant) > 0
    n = np.bincount(group, minlength=nt)
    starts = np.cumsum(n) - n
    kept = np.flatnonzero(rel | (scores != 0))
    kg = group[kept]
    rank = kept - starts[kg] + 1  # each kept article's rank in its topic
    kstarts = np.searchsorted(kept, starts)  # each topic's first kept article
    rel_count = _running_count(kg, kstarts, rel[kept])  # relevant articles up to each kept one
    width = max(int(np.bincount(kg, minlength=nt).max(initial=0)), 1)
    flat = kg * width + np.arange(len(kept)) - kstarts[kg]
    score_m = np.zeros(nt * width)
    score_m[flat] = scores[kept]
    cum = np.cumsum(score_m.reshape(nt, width), axis=1).reshape(-1)
    gp_kept = cum[flat] / rank
    nrel = np.asarray(nrel, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the gP at the ranks of relevant articles, the others adding 0.0 (exact) to the sum
        rel_gp = np.zeros(nt * width)
        rel_gp[flat] = np.where(rel[kept], gp_kept, 0.0)
        agp = np.cumsum(rel_gp.reshape(nt, width), axis=1)[:, -1] / nrel
        gr_kept = rel_count / nrel[kg]
    some = n > 0
    vals = {}
    for r in ranks:
        k = np.maximum(np.minimum(r, n), 1)  # the rank reported
        c = np.searchsorted(kept, starts + k - 1, side="right") - kstarts  # the kept articles up to it
        summed = np.where(some & (c > 0), cum[np.arange(nt) * width + np.maximum(c, 1) - 1], 0.0)
        g = summed / k if short_list == "last" else np.where(r <= n, summed / k, summed / r)
        found = rel_count[np.minimum(kstarts + c - 1, max(len(kept) - 1, 0))] if len(kept) else np.zeros(nt)
        with np.errstate(divide="ignore", invalid="ignore"):
            vals[f"gP[{r}]"] = np.where(some, g, 0.0)
            vals[f"gR[{r}]"] = np.where(some, np.where(c > 0, found, 0) / nrel, 0.0)
    point = np.nan_to_num(np.floor(10.0 * gr_kept), nan=0.0).astype(np.int64)
    ip = np.zeros((nt, len(LEVELS11)))
    np.maximum.at(ip.reshape(-1), kg * len(LEVELS11) + np.minimum(point, len(LEVELS11) - 1), gp_kept)
    return vals, agp, np.maximum.accumulate(ip[:, ::-1], axis=1)[:, ::-1]


def _running_count(group: np.ndarray, starts: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """The number of ``flags`` set up to and including each item, within its topic (``group``
    non-decreasing, ``starts`` the first item of each topic)."""
    c = np.cumsum(flags, dtype=np.int64)
    before = np.r_[0, c][starts]  # the count before each topic's first article
    return c - before[group]


# the in-context families' ``all`` lines: their measures without the per-topic AgP
IN_CONTEXT_MEANS = [m for m in incontext_measure_names({}) if m != "AgP"]


def taken(values: np.ndarray, row: np.ndarray, fill) -> np.ndarray:
    """``values[row]`` where ``row`` >= 0 (a relevant article's row), ``fill`` elsewhere;
    ``values`` may be empty (assessments without any relevant article: every row is -1)."""
    if not len(values):
        return np.full(len(row), fill, dtype=np.result_type(values.dtype, np.asarray(fill).dtype))
    return np.where(row >= 0, values[np.maximum(row, 0)], fill)


def ric_scores(length: np.ndarray, rsize: np.ndarray, first: np.ndarray, rel_chars: np.ndarray,
               beta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relevant in Context: each article's score F-beta, characters retrieved and highlighted
    characters retrieved, from its results' ``length`` and highlighted ``rsize`` (articles
    starting at the rows ``first``) and its qrels ``rel_chars`` (0 for an article without
    highlighted text; module docstring of :mod:`inexflow.measures.incontext`)."""
    ret = np.add.reduceat(length, first) if len(first) else np.zeros(0, np.int64)
    rel = np.add.reduceat(rsize, first) if len(first) else np.zeros(0, np.int64)
    ret, rel = ret.astype(np.float64), rel.astype(np.float64)
    hit = rel > 0  # the tool scores an article only when it retrieved highlighted text
    p = rel / np.where(hit, ret, 1)
    r = rel / np.where(hit, rel_chars, 1)
    f = (1.0 + beta * beta) * p * r / np.where(hit, beta * beta * p + r, 1)
    return np.where(hit, f, 0.0), ret, rel


def bic_scores(start: np.ndarray, bep: np.ndarray, is_rel: np.ndarray, n: float) -> np.ndarray:
    """Best in Context: each article's score (n - d) / n for d = |BEP - ``start``| (the start of
    its result) at most n, else 0; ``bep`` -1 where the article has none."""
    d = np.abs(bep - start)
    return np.where(is_rel & (bep > -1) & (d <= n), (n - d) / n, 0.0)


def in_context_columns(kind: str, topics: list[str], topic_slot: np.ndarray, article_topic: np.ndarray,
                       score: np.ndarray, is_rel: np.ndarray, ret: np.ndarray, rel: np.ndarray, trel: dict,
                       nrel: dict) -> tuple[dict, list]:
    """The in-context per-topic values of the scored ``topics`` and the ``all`` rows, from each
    article's run topic (``article_topic``, codes into the run's topics, whose position among
    ``topics`` ``topic_slot`` gives, -1 for a topic not scored), ``score``, relevance and
    characters retrieved (``ret``, highlighted ``rel``; the articles of a topic in rank order);
    ``trel``, ``nrel`` per qrels topic."""
    group = topic_slot[article_topic]
    keep = np.flatnonzero(group >= 0)
    group = group[keep]
    nrel_t = np.array([nrel[t] for t in topics], np.int64)
    gvals, agp, ip = gp_measures_grouped(group, score[keep], is_rel[keep], nrel_t)
    count = np.bincount(group, minlength=len(topics)).astype(np.float64)
    summed = [np.bincount(group, weights=w[keep], minlength=len(topics)) for w in (is_rel, ret, rel)]
    columns = {"num_ret": count, "num_rel": nrel_t.astype(np.float64), "num_rel_ret": summed[0],
               "ret_size": summed[1], "rel_size": np.array([trel[t] for t in topics], np.float64),
               "rel_ret_size": summed[2], **gvals, "AgP": agp}
    # the interpolated precision at the 11 levels is averaged, not printed per topic
    curve = {f"ircl_prn.{k / 10:.2f}": ip[:, k] for k in LEVELS11}
    # the tool's num_rel and rel_size count every qrels topic (aggregator qrels_sum)
    means = mean_rows(kind, QUANT, {**columns, **curve}, IN_CONTEXT_MEANS,
                      qrels_values={"num_rel": list(nrel.values()), "rel_size": list(trel.values())})
    return columns, means


def topic_slots(run_topics: list[str], topics: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``topics`` its position among ``run_topics`` (-1 where absent), and for each
    run topic its position among ``topics`` (-1 where not scored)."""
    at = {t: i for i, t in enumerate(run_topics)}
    slot = np.array([at.get(t, -1) for t in topics], np.int64)
    back = np.full(len(run_topics), -1, np.int64)
    back[slot[slot >= 0]] = np.flatnonzero(slot >= 0)
    return slot, back


def overlap_sweep(key: np.ndarray, start: np.ndarray, end: np.ndarray, shift: int):
    """Ranges [``start``, ``end``) in groups ``key`` (non-negative integers) sorted by group and
    start, with each group's running maximum end: (the order, the keys in it, each range's group
    number from 1, the running maximum of end + group * ``shift`` (``shift`` above every end, so
    that one running maximum serves every group), the positions in the order of the ranges that
    start before an earlier range of their group ends)."""
    span = int(start.max(initial=0)) + 1
    if int(key.max(initial=0)) < 2**62 // span:  # by group, then start
        sort = stable_order(key * span + start)
    else:  # (keys too wide to combine)
        sort = np.lexsort((start, key))
    keys = key[sort]
    group = np.cumsum(np.r_[True, np.diff(keys) != 0])
    reach = np.maximum.accumulate(end[sort] + group * shift)
    bad = np.flatnonzero(start[sort][1:] + group[1:] * shift < reach[:-1]) + 1
    return sort, keys, group, reach, bad


# up to this bound, distinct integers are found in a bitmap (a byte each: 50 MB at most), above it by sorting
BITMAP_BOUND = 50_000_000


def count_distinct(values: np.ndarray, bound: int) -> int:
    """The number of distinct values of non-negative integers below ``bound`` (:func:`distinct`)."""
    return len(distinct(values, bound))


def distinct(values: np.ndarray, bound: int) -> np.ndarray:
    """Sorted distinct values of non-negative integers below ``bound`` (a bitmap up to
    :data:`BITMAP_BOUND`, else np.unique)."""
    if bound > BITMAP_BOUND:
        return np.unique(values)
    seen = np.zeros(bound, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen)


def warn_no_relevant(source, topics, nrel: dict):
    """A warning for scored topics whose qrels hold no relevant document (the tool's recall is NaN)."""
    empty = [t for t in topics if nrel.get(t, 0) == 0]
    if empty:
        one = len(empty) == 1
        warn_input(source, None, f"{counted(len(empty), 'scored topic')} {'has' if one else 'have'} no relevant "
                   f"document in the qrels ({', '.join(empty[:10])}): {'its' if one else 'their'} recall is 0/0, "
                   "printed as NaN as the official tool does")


def warn_past_end(source, line: int, offset: int, length: int, doc: str, doc_chars: int, count: int):
    """The warning for ``count`` results that end after their document (the first on ``line``:
    ``offset``, ``length`` of ``doc``, which has ``doc_chars`` characters); they are scored in
    full, as the official tool does (docs/measures.md, "What the official tool rejects")."""
    warn_input(source, place(source, line), f"passage {offset}:{length} of document {doc} ends at {offset + length}, "
               f"after the document's {doc_chars} characters ({counted(count, 'such result')}; scored in full, as "
               "the official tool does)")
