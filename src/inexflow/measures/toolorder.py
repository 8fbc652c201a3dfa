"""How the official INEX 2009/2010 evaluation tool (inex_eval) reads a run, for the
measure families that reproduce it (:mod:`inexflow.measures.passage`,
:mod:`inexflow.measures.incontext`).

The tool reads a run line by line and never looks at the rank column ("participants' use
of the rank field might not be consistent"): a text run is scored in file order. Lines of
topics without assessments are skipped without touching any state. A topic's state
(ranks, characters retrieved, iP) is created the first time the topic is met and kept
when the topic comes back later in the file, so a topic listed in two separate blocks is
one list, the second block after the first. The table of articles seen so far, however,
is only reset when a topic is met for the first time; a block that comes back continues
with the table of the block before it. That decides which articles count as retrieved
(``num_ret``, ``num_rel_ret``) and which passages are checked against each other for
overlap: only those of one *segment* (the lines from one first meeting of a topic to the
next; a returning block joins the segment it falls in, with that segment's articles).
:meth:`ToolView.article_counts` reproduces the counting.

Judged non-relevant documents (qrels lines with ``rel_chars`` 0) are read as the tool reads
them: a document is relevant when its ``rel_chars`` column is positive, and only relevant
documents count in a topic's recall base (``num_rel``, the highlighted characters) and as
relevant retrieved articles; a judged non-relevant document scores exactly as an unjudged
one (:func:`qrels_totals`, :func:`relevant_documents`). A topic whose qrels lines are all
judged non-relevant is still one of the qrels' topics: the tool's recall is then 0/0, which
it prints as NaN (:func:`tool_div`).

Runs in other formats (XML) keep the evaluation order of :mod:`inexflow.model.runs`
(the spec's ordering rule), as the tool does not read them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from inexflow.errors import counted, place, warn_input
from inexflow.io.arrow_arrays import stable_order
from inexflow.measures.passage_arrays import distinct, warn_past_end

TEXT_FORMATS = ("fol-text", "xpath-text", "trec-text")


def in_file_order(run):
    """``run`` with its results in the order the tool reads them (file order for text runs;
    XML runs keep the readers' rank order); a run already in that order is returned as is.

    Warns when a topic's ranks disagree with the file order, since the tool (and so this
    function) follows the file, not the rank column."""
    if run.order == "file":
        return run
    return run.with_results(_tool_order(run), "file")


def _tool_order(run) -> pd.DataFrame:
    res = run.results
    if run.format not in TEXT_FORMATS or res["line"].is_monotonic_increasing:
        return res
    res = res.sort_values("line", kind="stable").reset_index(drop=True)
    same_topic = res["topic"].to_numpy()[1:] == res["topic"].to_numpy()[:-1]
    falls = np.flatnonzero(same_topic & (np.diff(res["rank"].to_numpy()) < 0))
    if len(falls):
        r = res.iloc[falls[0] + 1]
        warn_input(run.source, place(run.source, r.line), f"run {run.run_id}, topic {r.topic}: rank {r['rank']} comes "
                   f"after rank {res['rank'].iloc[falls[0]]} in the file ({counted(len(falls), 'such place')}); results "
                   "are scored in file order, as the official tool does (it ignores the rank column)")
    return res


@dataclass
class ToolView:
    """A run as the tool reads it: ``res`` in reading order, integer codes of its topics and
    articles (``tcode`` into ``topics``, ``dcode`` into ``docs``) and ``blocks``, the number of
    each line's topic block among the lines of assessed topics (-1 for other lines)."""

    res: pd.DataFrame
    tcode: np.ndarray
    topics: pd.Index
    dcode: np.ndarray
    docs: pd.Index
    blocks: np.ndarray
    segments: np.ndarray

    @classmethod
    def of(cls, res: pd.DataFrame, assessed, run=None) -> ToolView:
        """``segments`` numbers each line's article table (-1 for lines of unassessed
        topics): a new one starts where a topic is met for the first time. ``run``: the run
        whose table (in this order) ``res`` was taken from, whose reader's codes are then used."""
        codes = [run.codes(c) if run is not None and len(run.results) == len(res) else None for c in ("topic", "doc")]
        tcode, topics = codes[0] or pd.factorize(res["topic"])
        dcode, docs = codes[1] or pd.factorize(res["doc"])
        topics, docs = pd.Index(topics), pd.Index(docs)
        keep = topics.isin(list(assessed))[tcode] if len(topics) else np.zeros(0, bool)
        blocks = np.full(len(res), -1, dtype=np.int64)
        segments = np.full(len(res), -1, dtype=np.int64)
        t = tcode[keep]
        if len(t):
            starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
            blocks[keep] = np.cumsum(np.r_[True, t[1:] != t[:-1]]) - 1
            # a topic is first met at the start of one of its blocks: the first block of each topic
            first = np.zeros(len(t), dtype=np.int64)
            first[starts[np.unique(t[starts], return_index=True)[1]]] = 1
            segments[keep] = np.cumsum(first) - 1
        return cls(res, tcode, topics, dcode, docs, blocks, segments)

    def warn_past_document_end(self, run, lengths: pd.Series) -> int:
        """Warn about results that end after their document (``lengths``: doc -> characters,
        from the qrels' ``doc_chars``); they are scored in full, as the official tool does
        (docs/measures.md, "What the official tool rejects"). Looks up the distinct documents
        only. Returns how many there are."""
        if lengths.empty or not len(self.res):
            return 0
        doc_len = lengths.reindex(self.docs).to_numpy(np.float64)[self.dcode]
        end = self.res["end"].to_numpy()
        past = np.flatnonzero(end > doc_len)  # NaN (document not in the qrels) compares False
        if len(past):
            r = self.res.iloc[past[0]]
            warn_past_end(run.source, r.line, r.offset, r.length, r.doc, int(doc_len[past[0]]), len(past))
        return len(past)

    def split_topics(self) -> dict[str, list[tuple[int, int]]]:
        """Topics listed in more than one block: topic -> [(first line, last line) of each block]."""
        keep = self.blocks >= 0
        if not keep.any() or self.blocks[keep][-1] + 1 == np.count_nonzero(np.bincount(self.tcode[keep])):
            return {}
        d = pd.DataFrame({"topic": self.tcode[keep], "block": self.blocks[keep],
                          "line": self.res["line"].to_numpy()[keep]})
        spans = d.groupby(["topic", "block"], sort=False)["line"].agg(["min", "max"]).reset_index()
        many = spans["topic"].duplicated(keep=False)
        out: dict[str, list[tuple[int, int]]] = {}
        for r in spans[many].itertuples(index=False):
            out.setdefault(self.topics[r.topic], []).append((int(r.min), int(r.max)))
        return out

    def article_counts(self, relevant: pd.DataFrame | PairSet) -> dict[str, tuple[int, int]]:
        """topic -> (articles retrieved, relevant articles retrieved) as the tool counts them.

        Within one block of a topic that is the number of distinct articles; a block that
        comes back counts an article as new unless it is in the carried-over table (see the
        module docstring) or is the same article as the line before it. ``relevant`` holds
        the (topic, doc) pairs with highlighted text."""
        keep = self.blocks >= 0
        tcode, dcode = self.tcode[keep], self.dcode[keep]
        nd = max(len(self.docs), 1)
        is_rel = pair_member(self.topics, self.docs, relevant)
        if not self.split_topics():
            up = distinct(tcode.astype(np.int64) * nd + dcode, len(self.topics) * nd)
            t_of, d_of = up // nd, up % nd
            n = np.bincount(t_of, minlength=len(self.topics))
            r = np.bincount(t_of, weights=is_rel(t_of, d_of), minlength=len(self.topics))
            return {t: (int(n[i]), int(r[i])) for i, t in enumerate(self.topics) if n[i]}
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        met: set = set()
        table: set = set()
        prev = None
        for t, a, isrel in zip(tcode.tolist(), dcode.tolist(), is_rel(tcode, dcode).tolist()):
            if t not in met:
                met.add(t)
                table, prev = set(), None
            if a != prev:
                prev = a
                if a not in table:
                    table.add(a)
                    c = counts[self.topics[t]]
                    c[0] += 1
                    c[1] += isrel
        return {t: (c[0], c[1]) for t, c in counts.items()}


def relevant_documents(docs: pd.DataFrame) -> pd.DataFrame:
    """The (topic, doc) rows of the qrels' ``documents`` table that the tool takes as relevant:
    ``rel_chars`` > 0."""
    return docs[docs["rel_chars"].to_numpy() > 0]


def qrels_totals(docs: pd.DataFrame) -> tuple[dict[str, int], dict[str, int]]:
    """For every topic of the qrels (judged non-relevant lines included): its highlighted
    characters (the ``rel_chars`` column summed, the tool's ``rel_size``) and its relevant
    documents (``num_rel``); judged non-relevant lines count in neither."""
    trel = docs.groupby("topic", sort=False)["rel_chars"].sum()
    nrel = (docs["rel_chars"] > 0).groupby(docs["topic"], sort=False).sum()
    return ({t: int(v) for t, v in trel.items()}, {t: int(v) for t, v in nrel.items()})


def tool_div(a, b) -> float:
    """a / b in doubles as Java divides: x / 0 is NaN for x = 0 and +-Infinity otherwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def describe_split(run, split: dict[str, list[tuple[int, int]]]) -> str:
    t, spans = next(iter(split.items()))
    where = ", ".join(place(run.source, a, b) for a, b in spans)
    more = f" (and {counted(len(split) - 1, 'more topic')})" if len(split) > 1 else ""
    return f"run {run.run_id}: topic {t} is listed in {len(spans)} separate blocks ({where}){more}"


class PairSet:
    """(topic, doc) pairs (e.g. the qrels' relevant documents) prepared once for lookups by
    :func:`pair_member` and :func:`pair_rows`; ``frame`` is the table they were taken from,
    whose rows :func:`pair_rows` gives (a pair listed twice gives its first row)."""

    def __init__(self, pairs: pd.DataFrame):
        qt, qtopics = pd.factorize(pairs["topic"])
        qd, qdocs = pd.factorize(pairs["doc"])
        self.nq = max(len(qdocs), 1)
        self.keys, self.rows = np.unique(qt.astype(np.int64) * self.nq + qd, return_index=True)
        self.topics, self.docs = pd.Index(qtopics), pd.Index(qdocs)
        self.frame = pairs


def pair_rows(topics, docs, pairs: pd.DataFrame | PairSet):
    """A function (topic codes, doc codes) -> the row of ``pairs.frame`` holding
    (topics[t], docs[d]), -1 where there is none."""
    ps = pairs if isinstance(pairs, PairSet) else PairSet(pairs)
    keys, nq = ps.keys, ps.nq
    t_map = ps.topics.get_indexer(topics)
    d_map = ps.docs.get_indexer(docs)

    def rows(t, d):
        qt_, qd_ = t_map[t], d_map[d]
        out = np.full(len(qt_), -1, np.int64)
        found = np.flatnonzero((qt_ >= 0) & (qd_ >= 0))
        if len(keys) == 0 or not len(found):
            return out
        k = qt_[found].astype(np.int64) * nq + qd_[found]
        order = stable_order(k)  # the keys searched in ascending order: the binary searches stay in cache
        k = k[order]
        pos = np.minimum(np.searchsorted(keys, k), len(keys) - 1)
        out[found[order]] = np.where(keys[pos] == k, ps.rows[pos], -1)
        return out
    return rows


def pair_member(topics, docs, pairs: pd.DataFrame | PairSet):
    """A function (topic codes, doc codes) -> bool array: is (topics[t], docs[d]) in ``pairs``."""
    rows = pair_rows(topics, docs, pairs)
    return lambda t, d: rows(t, d) >= 0
