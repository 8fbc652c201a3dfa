"""Passage scoring without pandas: how ``inexflow score`` scores FOL text runs against FOL qrels
for the focused, Relevant in Context and Best in Context tasks, at the speed of the Arrow reader
and the array cores.

The same readers, measures and printing as the general path (:func:`inexflow.io.qrels_fol.read_fol_rows`,
:func:`inexflow.io.run_arrow.read_quiet_run`, :mod:`inexflow.measures.passage_arrays`,
:class:`inexflow.model.passage_spans.PassageSpans`, :func:`inexflow.measures.output.format_rows`),
without building pandas tables: a run scored here prints exactly what the general path
(:class:`inexflow.measures.session.Session`, the ``passage``, ``ric`` and ``bic`` families)
prints for it, with the same warnings. Whatever this path does not handle goes to the general
path instead: options other than ``-q``, ``-c``, ``-e``, ``-m``, ``--beta``, ``-n`` and the output
formats ``inex``, ``trec``, ``trec_eval`` and ``tsv`` (``--topics``, ``--regroup``, JSON output, a
collection), another family, several assessment files, assessments that are not FOL qrels,
and any run that is not a plain 8-column FOL run, that the general reader would warn about
(several run ids, a negative rank, a result listed twice, blank lines), whose ranks fall
within a topic, or that the task's checks would stop or warn about beyond the results past
their document's end, the topics left out and the topics without relevant documents
(overlapping passages, a topic listed in separate blocks, interleaved articles, a second
result for an article in Best in Context; overlapping passages of one article in a topic the
qrels do not assess, which the general path scores without a word, go there too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from inexflow.io.arrow_arrays import SetLookupOptions, arrow_of, compute, numpy_of, strings_of
from inexflow.io.compressed import read_bytes
from inexflow.io.detect import BOM, detect_assessment_format
from inexflow.io.qrels_fol import read_fol_rows
from inexflow.io.run_arrow import PlainRun, canonical_numbers, read_quiet_run
from inexflow.io.task_labels import SCORING_TYPES, normalise_task
from inexflow.io.topic_order import inex_eval_topic_order
from inexflow.measures.output import format_rows, selected_rows, trec_eval_lines
from inexflow.measures.passage_arrays import (
    QUANT,
    bic_scores,
    count_distinct,
    in_context_columns,
    interpolated_precision_grouped,
    overlap_sweep,
    passage_columns,
    ric_scores,
    taken,
    topic_slots,
    warn_no_relevant,
    warn_past_end,
)
from inexflow.measures.registry import printed_measures, scoring_task, select_measures, trec_runid
from inexflow.measures.topicset import topics_to_score
from inexflow.model.passage_spans import DENSE_KEYS, PassageSpans

# the families this path scores (their array cores: measures.passage_arrays)
FAST_FAMILIES = ("passage", "ric", "bic")
# task -> the family it scores FOL qrels with, for the tasks whose family this path scores
FAMILIES = {t: st.families["passage"][0] for t, st in SCORING_TYPES.items()
            if st.families.get("passage", ("",))[0] in FAST_FAMILIES}


def handles(args) -> bool:
    """Whether the command line ``args`` of ``inexflow score`` is one this path scores."""
    task = normalise_task(args.task) if args.task else None
    if task not in FAMILIES or list(args.family or [FAMILIES[task]]) != [FAMILIES[task]]:
        return False
    return (len(args.assessments) == 1 and args.assessments_format in ("auto", "fol")
            and args.format in (None, "inex", "trec", "trec_eval", "tsv")
            and not (args.topic_subset or args.collection or args.cutoff_table or args.regroup)
            and Path(args.assessments[0]).is_file()
            and bool(read_bytes(args.assessments[0], "assessment file").removeprefix(BOM).strip())
            and (args.assessments_format == "fol" or detect_assessment_format(args.assessments[0]) == "fol"))


@dataclass
class Qrels:
    """FOL qrels as the tool reads them (:mod:`inexflow.measures.toolorder`): per topic, in the
    order of the qrels, its highlighted characters ``trel`` and relevant documents ``nrel``;
    the documents ``docs`` (first appearance) with their length (``doc_chars`` of their first
    line); the relevant (topic, doc) pairs (``rel_chars`` > 0, in file order) by the key
    ``topic index * len(docs) + doc index`` (sorted in ``pair_keys``, each one's pair in
    ``pair_at``; or a table, ``pair_lut``), their ``rel_chars`` and best entry point (-1: none);
    their highlighted passages (``spans``)."""

    trel: dict[str, int]
    nrel: dict[str, int]
    topic_index: dict[str, int]
    docs: list[str]
    doc_chars: np.ndarray
    doc_strings: pa.Array
    doc_numbers: np.ndarray  # the ids that are numbers as str writes them, sorted
    number_doc: np.ndarray  # the doc index of each of doc_numbers
    pair_keys: np.ndarray  # sorted
    pair_at: np.ndarray  # the pair of each of pair_keys
    pair_lut: np.ndarray | None  # (topic index + 1) * (len(docs) + 1) + doc index + 1 -> pair, where that is small
    rel_chars: np.ndarray
    bep: np.ndarray
    spans: PassageSpans

    @classmethod
    def read(cls, path) -> Qrels:
        """The FOL qrels ``path`` (:func:`inexflow.io.qrels_fol.read_fol_rows`, its warnings)."""
        rows, passages = read_fol_rows(path)
        trel: dict[str, int] = {}
        nrel: dict[str, int] = {}
        doc_index: dict[str, int] = {}
        chars: list[int] = []
        for t, d, rel, n, _bep, _x in rows:
            trel[t] = trel.get(t, 0) + rel
            nrel[t] = nrel.get(t, 0) + (rel > 0)
            if d not in doc_index:
                doc_index[d] = len(chars)
                chars.append(n)
        topic_index = {t: i for i, t in enumerate(trel)}
        nd = max(len(doc_index), 1)
        relevant = [r for r in rows if r[2] > 0]  # one line per (topic, doc): the reader says so
        keys = np.array([topic_index[t] * nd + doc_index[d] for t, d, *_ in relevant], np.int64)
        order = np.argsort(keys, kind="stable")
        lut = None
        if (len(topic_index) + 1) * (nd + 1) <= DENSE_KEYS:  # (a row and a column for the -1 indices)
            lut = np.full((len(topic_index) + 1, nd + 1), -1, np.int32)
            lut[keys // nd + 1, keys % nd + 1] = np.arange(len(keys))
            lut = lut.reshape(-1)
        pair_of = {(r[0], r[1]): i for i, r in enumerate(relevant)}
        on = np.array([pair_of.get((t, d), -1) for t, d, *_ in passages], np.int64)
        start = np.array([p[2] for p in passages], np.int64)
        end = start + np.array([p[3] for p in passages], np.int64)
        docs = list(doc_index)
        strings = strings_of(docs)
        numbers = canonical_numbers(strings)
        if numbers is None:  # the ids that are numbers as str writes them (canonical_numbers)
            number_doc = np.flatnonzero(np.array([d.isascii() and d.isdigit() and len(d) <= 18
                                                  and (d == "0" or d[0] != "0") for d in docs], bool))
            numbers = np.array([int(docs[i]) for i in number_doc], np.int64)
        else:
            number_doc = np.arange(len(docs))
        by_number = np.argsort(numbers, kind="stable")
        return cls(trel, nrel, topic_index, docs, np.array(chars, np.int64), strings, numbers[by_number],
                   number_doc[by_number], keys[order], order, lut,
                   np.array([r[2] for r in relevant], np.float64), np.array([r[4] for r in relevant], np.int64),
                   PassageSpans(on[on >= 0], start[on >= 0], end[on >= 0], max(len(relevant), 1)))

    def doc_positions(self, run: PlainRun) -> tuple[np.ndarray, np.ndarray, object]:
        """The run's documents as dense codes (in order of first appearance), for each code its
        index among the qrels' documents (-1: not in the qrels), and the documents' ids (an
        array indexed by code: numbers, or Arrow strings)."""
        if not isinstance(run.doc, np.ndarray):
            qd = numpy_of(compute("index_in", run.doc.dictionary, options=SetLookupOptions(self.doc_strings)), fill=-1)
            return numpy_of(run.doc.indices).astype(np.int64), qd.astype(np.int64), run.doc.dictionary
        enc = compute("dictionary_encode", arrow_of(run.doc))
        ids = numpy_of(enc.dictionary)
        qd = np.full(len(ids), -1, np.int64)
        if len(self.doc_numbers):
            pos = np.minimum(np.searchsorted(self.doc_numbers, ids), len(self.doc_numbers) - 1)
            found = self.doc_numbers[pos] == ids
            qd[found] = self.number_doc[pos[found]]
        return numpy_of(enc.indices).astype(np.int64), qd, ids

    def pairs(self, qt_of: np.ndarray, qd_of: np.ndarray, t: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The relevant pair of each (run topic ``t``, run document ``d``), given each run topic's
        and document's index in the qrels (``qt_of``, ``qd_of``; -1: not there), -1 where none."""
        width = len(self.docs) + 1
        if self.pair_lut is not None:
            return self.pair_lut[((qt_of + 1) * width)[t] + (qd_of + 1)[d]]
        qt, qd = qt_of[t], qd_of[d]
        known = (qt >= 0) & (qd >= 0)
        key = qt * max(len(self.docs), 1) + qd
        out = np.full(len(key), -1, np.int64)
        if len(self.pair_keys):
            k = key[known]
            pos = np.minimum(np.searchsorted(self.pair_keys, k), len(self.pair_keys) - 1)
            out[known] = np.where(self.pair_keys[pos] == k, self.pair_at[pos], -1)
        return out


@dataclass
class Scorer:
    """The qrels, the task's family, its options and the measures printed, for every run of
    one call of ``inexflow score``."""

    args: object
    family: str
    qrels: Qrels
    measures: list[str] | None
    beta: float
    bep_distance: float
    all_qrels_topics: bool

    @classmethod
    def of(cls, args, options) -> Scorer:
        """The scorer of ``args`` with their ``options`` (:class:`~inexflow.model.options.Options`),
        set up as the general path sets up its session (qrels read, then the task and the
        measures checked)."""
        path = args.assessments[0]
        qrels = Qrels.read(path)
        args.task = scoring_task("fol", path, args.task, args.family)
        family = FAMILIES[normalise_task(args.task)]
        measures = select_measures(args.measures, [family], options) if args.measures else \
            printed_measures([family], options)
        return cls(args, family, qrels, measures, float(options.beta), float(options.bep_distance),
                   bool(options.all_qrels_topics))

    def score_path(self, path) -> tuple[str, str] | None:
        """What ``inexflow score`` prints for the run at ``path`` and its run id; None where
        this path does not score it (module docstring)."""
        source = Path(path)  # what the general reader calls the run in what it says (a/./b.run: a/b.run)
        run = read_quiet_run(source, 8)
        if run is None:
            return None
        rows = self.score_rows(str(source), run)
        return None if rows is None else self.output_text(path, run, rows)

    def score_rows(self, source: str, run: PlainRun) -> list[tuple] | None:
        """The rows ``(topic, quant, measure, value)`` of ``run`` (read from ``source``), or None
        where the general path would say more than this path says."""
        q = self.qrels
        tcode = numpy_of(run.topic.indices).astype(np.int64)
        run_topics = run.topic.dictionary.to_pylist()
        if ((tcode[1:] == tcode[:-1]) & (run.rank[1:] < run.rank[:-1])).any():
            return None  # ranks falling within a topic: the general path warns
        dcode, qd_of, ids = q.doc_positions(run)
        ndocs = max(len(ids), 1)
        qt_of = np.array([q.topic_index.get(t, -1) for t in run_topics], np.int64)
        assessed = qt_of[tcode] >= 0
        t = tcode[assessed]
        if len(t) and np.count_nonzero(t[1:] != t[:-1]) + 1 != count_distinct(t, len(run_topics)):
            return None  # a topic listed in separate blocks
        key = tcode * ndocs + dcode  # one integer per (topic, article)
        start, length = run.offset, run.length
        end = start + length
        if self.family == "bic":
            if count_distinct(key, len(run_topics) * ndocs) < len(key):
                return None  # a second result for an article: an error
            first = np.arange(len(key))
        else:
            sort, keys, _, _, bad = overlap_sweep(key, start, end, int(end.max(initial=0)) + 1)
            same = keys[1:] == keys[:-1]
            if len(bad):  # overlapping passages (an error in an assessed topic), a result listed twice among them
                return None
            articles = keys[np.r_[True, ~same]]  # the run's (topic, article) keys, sorted
            first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
            if self.family == "ric" and len(first) != len(articles):
                return None  # interleaved articles: an error
        pair = q.pairs(qt_of, qd_of, tcode, dcode)
        if self.family == "passage":  # (Relevant in Context warns of them after the topics, as the general path)
            self.warn_past_end(source, run, dcode, qd_of, ids)
        topics = inex_eval_topic_order(topics_to_score(run_topics, source, list(q.trel), empty_zero=self.all_qrels_topics))
        warn_no_relevant(source, topics, q.nrel)
        if self.family == "passage":
            # the articles of assessed topics, retrieved and relevant, per run topic
            a_topic, a_doc = articles // ndocs, articles % ndocs
            counted = qt_of[a_topic] >= 0
            relevant = q.pairs(qt_of, qd_of, a_topic, a_doc) >= 0
            n_ret = np.bincount(a_topic[counted], minlength=len(run_topics))
            n_rel = np.bincount(a_topic[counted & relevant], minlength=len(run_topics))
            rsize = q.spans.overlap_of_keys(pair, pair >= 0, start, end, sort)
            trel = np.array([q.trel.get(t, 0) for t in run_topics], np.float64)
            ip_all = interpolated_precision_grouped(tcode, length, rsize, trel)
            slot = topic_slots(run_topics, topics)[0]
            there, at_slot = slot >= 0, np.maximum(slot, 0)
            columns, means = passage_columns(
                "passage", topics, slot, ip_all, np.bincount(tcode, weights=length, minlength=len(run_topics)),
                np.bincount(tcode, weights=rsize, minlength=len(run_topics)),
                np.where(there, n_ret[at_slot], 0), np.where(there, n_rel[at_slot], 0), q.trel, q.nrel, source=source)
            return table_rows(topics, columns, means)
        at, rel_pair = tcode[first], pair[first]
        is_rel = rel_pair >= 0
        if self.family == "ric":
            self.warn_past_end(source, run, dcode, qd_of, ids)
            rsize = q.spans.overlap_of_keys(pair, pair >= 0, start, end, sort)
            rc = taken(q.rel_chars, rel_pair, 0.0)
            score, ret, rel = ric_scores(length, rsize, first, rc, self.beta)
        else:
            bep = taken(q.bep, rel_pair, -1)
            score = bic_scores(start[first], bep, is_rel, self.bep_distance)
            ret = rel = np.zeros(len(first))
        columns, means = in_context_columns(self.family, topics, topic_slots(run_topics, topics)[1], at, score,
                                            is_rel, ret, rel, q.trel, q.nrel)
        return table_rows(topics, columns, means)

    def warn_past_end(self, source, run: PlainRun, dcode, qd_of, ids):
        """The warning of the results that end after their document (the qrels' ``doc_chars``)."""
        q = self.qrels
        chars = np.where(qd_of >= 0, q.doc_chars[np.maximum(qd_of, 0)], -1)[dcode] if len(q.doc_chars) else \
            np.full(len(dcode), -1)
        past = np.flatnonzero((chars >= 0) & (run.offset + run.length > chars))
        if len(past):
            i = int(past[0])
            doc = ids[int(dcode[i])]
            warn_past_end(source, int(run.line[i]), int(run.offset[i]), int(run.length[i]),
                          str(doc) if isinstance(doc, (int, np.integer)) else doc.as_py(), int(chars[i]), len(past))

    def output_text(self, path, run: PlainRun, rows: list[tuple]) -> tuple[str, str]:
        """The text of ``rows`` in the output format the arguments ask for, and the run's id."""
        args = self.args
        run_id = run.run_id.dictionary[0].as_py()
        lines_only = args.format == "trec_eval" and trec_runid(args.measures)
        if self.measures is not None:
            rows = [rows[i] for i in selected_rows([r[2] for r in rows], [r[0] for r in rows], self.measures)]
        text = ""
        if rows or lines_only or self.measures is None:
            if args.format == "trec_eval":
                text = trec_eval_lines(rows, args.per_topic, run_id if trec_runid(args.measures) else None)
            else:
                text = format_rows(rows, args.per_topic, align=args.format == "inex")
                if args.format == "tsv":
                    text = "".join(f"{run_id}\t{line}\n" for line in text.splitlines())
        if args.format == "inex":
            text = f'<eval run-id="{run_id}" file="{path}">\n{text}</eval>\n'
        return text, run_id


def table_rows(topics: list[str], columns: dict, means: list[tuple]) -> list[tuple]:
    """The rows ``(topic, quant, measure, value)`` of per-topic ``columns`` and the ``all`` rows
    ``means``, in the order of a family's score table (:func:`inexflow.measures.context.tidy_columns`)."""
    names = list(columns)
    values = np.column_stack([np.asarray(columns[m], np.float64) for m in names]).tolist() if topics else []
    return [(t, QUANT, m, v) for t, row in zip(topics, values) for m, v in zip(names, row)] + list(means)
