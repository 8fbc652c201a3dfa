"""Focused passage retrieval measures of the official INEX 2007-2010 evaluation tool
(inex_eval; Pal, Mitra & Kamps, "Evaluation effort, reliability and reusability in XML
retrieval", section 2; docs/measures.md, "Passage measures").

For one topic with results r = 1..L in the order the tool reads them (file order, see
:mod:`inexflow.measures.toolorder`), rsize(r) the highlighted characters inside result r,
size(r) its length and Trel the topic's highlighted characters:

- P[r] = sum_{j<=r} rsize(j) / sum_{j<=r} size(j), R[r] = sum_{j<=r} rsize(j) / Trel;
- result r lands on recall level b(r) = floor(100 * R[r]), computed as the tool does in
  double precision (so 29/100 lands on level 28: 0.29 * 100 = 28.999999999999996);
  results with b(r) > 100 (possible only when text is retrieved twice) are skipped, as
  the tool skips them;
- iP[x] = max P[r] over the results r with b(r) >= 100 x (0 when there is none);
- AiP = mean of iP over x = 0.00, 0.01, ..., 1.00; MAiP = mean of AiP over topics.

Thorough (the tool's ``-t``): overlapping results are allowed. In an article with relevant
text, a result counts only its characters not retrieved earlier in that article (size and
highlighted size of the new part; a result wholly inside earlier ones counts 0 and 0); in
an article without relevant text every result counts its full length.

Relevance is the tool's: an article is relevant when its qrels ``rel_chars`` is positive;
judged non-relevant articles score as unjudged ones (:mod:`inexflow.measures.toolorder`).

Bookkeeping lines as the tool prints them: num_ret (articles retrieved), num_rel
(relevant articles), num_rel_ret (relevant articles retrieved), ret_size, rel_size,
rel_ret_size (characters), art_prec/art_rec/art_f1 (articles) and
char_prec/char_rec/char_f1 (characters). The ``all`` lines give sums of the counts,
means of the rest and ``ircl_prn.x`` = the mean iP[x] at all 101 levels.

A topic listed in separate blocks of the run (the shared ``bert-focused.run`` lists
topic 2009079 twice, with two different rankings of the same passages) is scored as the
tool scores it: one list, the blocks in file order, with the articles of a returning
block counted again (num_ret 200 for two blocks of 100 articles) and a warning.

Topic set (the tool's rule): topics in both the run and the qrels; with ``-c``
(``all_qrels_topics``) every topic in the qrels, missing ones scoring 0.
"""

from __future__ import annotations

import bisect

import numpy as np
import pandas as pd

from inexflow.errors import InputError, counted, warn_input
from inexflow.io.canonical import unresolved
from inexflow.io.topic_order import inex_eval_topic_order
from inexflow.measures.context import ScoringContext, tidy_columns
from inexflow.measures.passage_arrays import (
    QUANT,
    interpolated_precision_grouped,
    overlap_sweep,
    passage_columns,
    topic_slots,
    warn_no_relevant,
)
from inexflow.measures.toolorder import (
    PairSet,
    ToolView,
    describe_split,
    pair_member,
    qrels_totals,
    relevant_documents,
)
from inexflow.measures.topicset import scored_topics
from inexflow.model.recallbase import PassageIndex, normalised_passages


def passage_index(ctx: ScoringContext) -> PassageIndex:
    """The highlighted passages of the context's relevant documents (``rel_chars`` > 0, as the
    tool reads the qrels), indexed once per context."""
    def build():
        a = ctx.assessments
        p = normalised_passages(a)
        rel = relevant_documents(a.documents)
        if len(rel) < len(a.documents):
            p = p.merge(rel[["topic", "doc"]], on=["topic", "doc"], how="inner")
        return PassageIndex(p)
    return ctx.memo("passage_index", build)


def document_lengths(ctx: ScoringContext) -> pd.Series:
    """doc -> characters, for the documents whose length the assessments give (once per context)."""
    def build():
        d = ctx.assessments.documents
        return d[d["doc_chars"] >= 0].drop_duplicates("doc").set_index("doc")["doc_chars"]
    return ctx.memo("document_lengths", build)


def passage_results(run) -> pd.DataFrame:
    """The run's results as character ranges, in the run's order (``score_run`` gives these
    families the run in file order, as the official tool reads it); element results need
    their extent resolved."""
    res = run.results
    bad = (res["offset"] < 0) | (res["length"] < 0)
    if bad.any():
        raise unresolved(run, bad)
    # a new table over the run's columns (pandas copies on write: the run's table is never
    # changed through it), not a copy of them
    off = res["offset"]
    return pd.DataFrame({"topic": res["topic"], "doc": res["doc"], "offset": off, "length": res["length"],
                         "line": res["line"], "start": off, "end": off + res["length"]}, copy=False)


def check_no_overlap(run, view: ToolView):
    """Focused and in-context runs: two results of one article whose character ranges
    intersect (start1 < end2 and start2 < end1: a repeated passage, or an empty one strictly
    inside another, included) are an error naming the run, topic, article and both lines. As
    in the tool, results are checked within one article table (``view.segments``; lines of
    unassessed topics are not checked), not across the blocks of a topic listed twice.

    One sort and a running maximum over the non-empty results; the (rare) empty ones are
    then looked up in the same sorted order."""
    res = view.res
    start = res["start"].to_numpy()
    end = res["end"].to_numpy()
    ndocs = max(len(view.docs), 1)
    assessed = view.segments >= 0
    rows = np.flatnonzero(assessed & (end > start))
    group_key = view.segments[rows] * ndocs + view.dcode[rows]
    shift = int(end.max(initial=0)) + 1  # per-group offset: one running maximum serves every group
    sort, keys, group, reach, bad = overlap_sweep(group_key, start[rows], end[rows], shift)
    order = rows[sort]
    if len(bad):
        i = order[bad[0]]
        same = order[:bad[0]][group[:bad[0]] == group[bad[0]]]
        _overlap_error(run, res, i, same[np.flatnonzero(end[same] > start[i])[0]], len(bad))
    empty = np.flatnonzero(assessed & (end == start))
    if len(empty) and len(order):
        ekey = view.segments[empty] * ndocs + view.dcode[empty]
        pos = np.searchsorted((keys << 32) + start[order], (ekey << 32) + start[empty], side="left")
        gpos = np.minimum(np.searchsorted(keys, ekey), len(keys) - 1)
        known = (pos > 0) & (keys[gpos] == ekey)
        inside = known & (reach[np.maximum(pos - 1, 0)] > start[empty] + group[gpos] * shift)
        if inside.any():
            k = int(np.flatnonzero(inside)[0])
            i = empty[k]
            same = order[(keys == ekey[k])]
            _overlap_error(run, res, i, same[np.flatnonzero((start[same] < start[i]) & (end[same] > start[i]))[0]],
                           int(inside.sum()))


def _overlap_error(run, res, i, j, count):
    first, second = sorted((i, j), key=lambda k: res["line"].iat[k])
    r1, r2 = res.iloc[first], res.iloc[second]
    raise InputError(run.source, f"line {r2.line}", f"run {run.run_id}, topic {r2.topic}: passage "
                     f"{r2.start}:{r2.end - r2.start} of article {r2.doc} overlaps passage "
                     f"{r1.start}:{r1.end - r1.start} on line {r1.line} ({counted(count, 'overlapping result')})",
                     "non-overlapping passages per article, as the official tool requires in the focused and "
                     "in-context tasks (score overlapping runs with --task thorough)")


def score_passage(run, ctx: ScoringContext) -> pd.DataFrame:
    """Focused: overlapping results are an error."""
    return _score_passage(run, ctx, check_overlap=True)


def score_passage_thorough(run, ctx: ScoringContext) -> pd.DataFrame:
    """Thorough (the tool's ``-t``): overlapping results are allowed; in an article with
    relevant text only the characters not retrieved before in that article count (module
    docstring), so the values equal the focused ones for any run without overlap."""
    return _score_passage(run, ctx, check_overlap=False)


def new_parts(view: ToolView, rows: np.ndarray):
    """For the results ``rows`` (indices into ``view.res``, in reading order): the parts of each
    result's range not covered by earlier results of the same article table and article
    (every assessed line counts as earlier, relevant or not). Returns (row of each part,
    start, end)."""
    res = view.res
    start, end = res["start"].to_numpy(), res["end"].to_numpy()
    group = view.segments * max(len(view.docs), 1) + view.dcode
    cover: dict[int, tuple[list, list]] = {}
    out_row, out_s, out_e = [], [], []
    for i in rows.tolist():
        s, e = int(start[i]), int(end[i])
        if e <= s:
            continue
        starts, ends = cover.setdefault(int(group[i]), ([], []))
        lo = bisect.bisect_right(ends, s)
        hi, cur = lo, s
        while hi < len(starts) and starts[hi] < e:
            if starts[hi] > cur:
                out_row.append(i), out_s.append(cur), out_e.append(starts[hi])
            cur = max(cur, ends[hi])
            hi += 1
        if cur < e:
            out_row.append(i), out_s.append(cur), out_e.append(e)
        if hi > lo:
            s, e = min(s, starts[lo]), max(e, ends[hi - 1])
        starts[lo:hi], ends[lo:hi] = [s], [e]
    return np.asarray(out_row, np.int64), np.asarray(out_s, np.int64), np.asarray(out_e, np.int64)


def thorough_sizes(view: ToolView, relevant_row: np.ndarray, index: PassageIndex):
    """(size, highlighted size) of every result as the tool counts them in the thorough task:
    the new part of results in relevant articles, the full length elsewhere."""
    res = view.res
    size = res["length"].to_numpy(np.int64).copy()
    rsize = np.zeros(len(res), dtype=np.int64)
    group = np.where(view.segments >= 0, view.segments * max(len(view.docs), 1) + view.dcode, -1)
    needed = np.isin(group, np.unique(group[relevant_row & (group >= 0)]))
    part_row, ps, pe = new_parts(view, np.flatnonzero(needed & (group >= 0)))
    rel_rows = np.flatnonzero(relevant_row)
    size[rel_rows] = 0
    keep = relevant_row[part_row]
    part_row, ps, pe = part_row[keep], ps[keep], pe[keep]
    np.add.at(size, part_row, pe - ps)
    overlap = index.overlap([view.topics, view.docs], [view.tcode[part_row], view.dcode[part_row]], ps, pe)
    np.add.at(rsize, part_row, overlap)
    return size, rsize


def _score_passage(run, ctx: ScoringContext, check_overlap: bool) -> pd.DataFrame:
    trel, nrel = ctx.memo("qrels_totals", lambda: qrels_totals(ctx.assessments.documents))
    res = passage_results(run)
    view = ToolView.of(res, trel, run)
    view.warn_past_document_end(run, document_lengths(ctx))
    if check_overlap:
        check_no_overlap(run, view)
    split = view.split_topics()
    if split:
        warn_input(run.source, None, describe_split(run, split) + "; scored as the official tool does: one "
                   "list in file order, articles of a returning block counted again")
    relevant = ctx.memo("relevant_pairs", lambda: PairSet(relevant_documents(ctx.assessments.documents)))
    counts = view.article_counts(relevant)
    topics = inex_eval_topic_order(scored_topics(run, list(trel), ctx, empty_zero=bool(ctx.opt("all_qrels_topics"))))
    warn_no_relevant(run.source, topics, nrel)
    tcode, run_topics = view.tcode, view.topics
    index = passage_index(ctx)
    if check_overlap:
        size = res["length"].to_numpy(np.int64)
        rsize = index.overlap([view.topics, view.docs], [view.tcode, view.dcode], res["start"].to_numpy(np.int64),
                              res["end"].to_numpy(np.int64))
    else:
        relevant_row = pair_member(view.topics, view.docs, relevant)(view.tcode, view.dcode) & (view.segments >= 0)
        size, rsize = thorough_sizes(view, relevant_row, index)
    ip_all = interpolated_precision_grouped(tcode, size, rsize,
                                            np.array([trel.get(t, 0) for t in run_topics], np.float64))
    ret_size = np.bincount(tcode, weights=size, minlength=len(run_topics))
    rel_ret_size = np.bincount(tcode, weights=rsize, minlength=len(run_topics))
    art = np.array([counts.get(t, (0, 0)) for t in topics], np.float64).reshape(len(topics), 2)
    columns, means = passage_columns("passage" if check_overlap else "passage_thorough", topics,
                                     topic_slots(list(run_topics), topics)[0], ip_all, ret_size, rel_ret_size,
                                     art[:, 0], art[:, 1], trel, nrel, source=run.source)
    return tidy_columns(topics, QUANT, columns, means)
