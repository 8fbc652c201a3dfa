"""Re-scoring focused passage runs when only a subset of the relevant documents is judged
relevant (pool sampling, pool-depth reduction, leave-one-group-out), from cached data.

:class:`JudgedRuns` computes once, for every run and result, the result's size and the
highlighted characters it retrieves, and the index of its document among the topic's
relevant documents. A judgement "mask" (which relevant documents stay relevant) then
re-scores every run without touching the run files again: results in documents that are
no longer relevant retrieve 0 highlighted characters, Trel drops to the kept documents'
highlighted characters, and iP/AiP follow :mod:`inexflow.measures.passage`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from inexflow.io.tables import check_identity, check_inputs, read_codes, read_parquet_metadata
from inexflow.io.topic_order import topic_sort_key
from inexflow.measures.catalogue import per_topic_name
from inexflow.measures.ordering import in_evaluation_order
from inexflow.measures.passage import passage_results
from inexflow.measures.passage_arrays import grouped_cumsum, ip_from_running_sums
from inexflow.measures.registry import PASSAGE_MEASURES
from inexflow.model.assessments import Assessments
from inexflow.model.pool import LazyTables
from inexflow.model.recallbase import normalised_passages, overlap_with_passages


def labelled(names) -> tuple[list[str], Callable]:
    """The per-topic measures the analyses compute for the configured ``names`` (``MAiP`` ->
    ``AiP``), and a function that names a table's ``measure`` column as the config does, so
    one measure has one name in every analysis table."""
    per_topic = [per_topic_name(m) for m in names]
    back = dict(zip(per_topic, names))

    def relabel(df):
        return df.assign(measure=df["measure"].map(lambda m: back.get(m, m))) if len(df) else df

    return per_topic, relabel


class JudgedRuns:
    def __init__(self, assessments: Assessments, runs: Mapping[str, object]):
        """Judge ``runs`` (name -> run; a :class:`~inexflow.model.pool.LazyTables` reads them one at
        a time) against ``assessments``."""
        log = logging.getLogger("inexflow")
        self._index(assessments)
        parts = {}
        for k, (name, run) in enumerate(runs.items()):
            log.info("judging run %s (%d/%d)", name, k + 1, len(runs))
            parts[name] = self.judge(run)
        self._assemble(parts)

    @classmethod
    def from_parts(cls, assessments: Assessments, parts: Mapping[str, pd.DataFrame | Mapping[str, np.ndarray]]) -> JudgedRuns:
        """The same as ``JudgedRuns(assessments, runs)`` from each run's :meth:`judge` table,
        cached by the ``judge_run`` stage (a :class:`~inexflow.model.pool.LazyTables` of them): the
        runs themselves are not read again."""
        self = cls.__new__(cls)
        self._index(assessments)
        self._assemble(parts)
        return self

    @classmethod
    def from_files(cls, assessments: Assessments, paths, assessment_tables) -> JudgedRuns:
        """:meth:`from_parts` over the ``judge_run`` tables at ``paths`` (each named by its
        file, ``judged/RUN.parquet``), read one at a time and checked by :func:`judged_columns`
        against ``assessment_tables``."""
        tables = list(assessment_tables)
        return cls.from_parts(assessments, LazyTables({Path(p).stem: p for p in paths},
                                                      lambda p, name: judged_columns(p, name, tables)))

    @classmethod
    def from_stage_inputs(cls, inputs) -> JudgedRuns:
        """What the analyses that re-judge runs start from: ``inputs`` names the assessment
        set's tables (``documents``, ``passages``, ``elements``, from parse_assessments) and
        the analysed runs' ``judged`` tables (judge_run); see :meth:`from_files`."""
        tables = [inputs.documents, inputs.passages, inputs.elements]
        return cls.from_files(Assessments.load(Path(inputs.documents).parent), inputs.judged, tables)

    def _index(self, assessments: Assessments) -> None:
        """What only the assessments decide: the topics, their relevant documents and
        highlighted characters, and every judged document numbered across topics."""
        docs = assessments.documents
        self.topics = sorted(set(docs["topic"]), key=topic_sort_key)
        self.rel_docs = {t: g["doc"].tolist() for t, g in docs.groupby("topic", sort=False)}
        self.rel_chars = {t: g["rel_chars"].to_numpy(np.int64) for t, g in docs.groupby("topic", sort=False)}
        self._passages = normalised_passages(assessments)
        # every judged document numbered across topics (topic by topic, in self.topics order)
        self._tix = {t: i for i, t in enumerate(self.topics)}
        counts = np.array([len(self.rel_docs[t]) for t in self.topics], dtype=np.int64)
        self._doc_offset = np.r_[0, np.cumsum(counts)[:-1]] if len(counts) else np.zeros(0, np.int64)
        self._ndocs = int(counts.sum())
        # (topic, doc) -> index of doc among its topic's documents, as sorted integer keys:
        # topic number x len(vocab) + document number in a vocabulary of the judged documents
        vocab: dict[str, int] = {}
        for names in self.rel_docs.values():
            for d in names:
                vocab.setdefault(d, len(vocab))
        self._vocab = vocab
        nv = max(len(vocab), 1)
        keys = np.array([self._tix[t] * nv + vocab[d] for t, docs in self.rel_docs.items() for d in docs],
                        dtype=np.int64)
        didxs = np.array([i for docs in self.rel_docs.values() for i in range(len(docs))], dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        self._rel_keys, self._rel_didx = keys[order], didxs[order]

    def judge(self, run) -> pd.DataFrame:
        """One run judged: the results that retrieve highlighted text, topic by topic (in
        :attr:`topics` order, file order within), as (``topic``: the topic's number in
        :attr:`topics`, ``running``: the size of the topic's list up to and including the
        result, ``rsize``: the highlighted characters it retrieves, ``doc``: its document's
        number among all judged documents). Only such results can set an interpolated
        precision (:func:`~inexflow.measures.passage.ip_from_running_sums`), and no judgement
        mask changes the running sizes."""
        res = passage_results(in_evaluation_order(run, "passage"))
        rsize = overlap_with_passages(res, self._passages)
        tix, didx = self._topic_and_doc_index(res)
        rows = np.flatnonzero(tix >= 0)                     # results of judged topics
        o = rows[np.argsort(tix[rows], kind="stable")]      # topic by topic, file order within
        # the running size of each topic's list (a highlighted passage whose document the
        # documents table lacks counts nothing, as a dropped document does)
        cs = grouped_cumsum(tix[o], res["length"].to_numpy(np.int64)[o])
        hit = (rsize[o] > 0) & (didx[o] >= 0)
        h = o[hit]
        return pd.DataFrame({"topic": tix[h], "running": cs[hit], "rsize": rsize[h],
                             "doc": self._doc_offset[tix[h]] + didx[h]})

    def _assemble(self, parts: Mapping[str, pd.DataFrame | Mapping[str, np.ndarray]]) -> None:
        """Every run's :meth:`judge` table, as flat arrays sorted by group (run x topic)."""
        self.runs = list(parts)
        self._rix = {r: i for i, r in enumerate(self.runs)}
        nt = len(self.topics)
        group, running, rsizes, docidx = [], [], [], []
        for k, name in enumerate(self.runs):
            part = parts[name]  # a judge table or its columns as arrays (judged_columns)
            group.append(k * nt + np.asarray(part["topic"], np.int64))
            running.append(np.asarray(part["running"], np.int64))
            rsizes.append(np.asarray(part["rsize"], np.int64))
            docidx.append(np.asarray(part["doc"], np.int64))
        flat = [np.concatenate(x) if x else np.zeros(0, np.int64) for x in (group, running, rsizes, docidx)]
        # results of a run's topics in the order its topics come: sorted by group, stably
        order = np.argsort(flat[0], kind="stable")
        self._group, self._running, self._rsize, self._doc = (a[order] for a in flat)

    def _topic_and_doc_index(self, res: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Per result: its topic's number in ``self.topics`` (-1: a topic without judged
        documents) and its document's index among the topic's judged documents (-1: not
        judged), from integer codes (no string merge)."""
        tc, tu = pd.factorize(res["topic"])
        dc, du = pd.factorize(res["doc"])
        tmap = np.array([self._tix.get(str(t), -1) for t in tu] + [-1], dtype=np.int64)
        dmap = np.array([self._vocab.get(str(d), -1) for d in du] + [-1], dtype=np.int64)
        tix, dno = tmap[tc], dmap[dc]
        key = tix * max(len(self._vocab), 1) + dno
        pos = np.minimum(np.searchsorted(self._rel_keys, key), max(len(self._rel_keys) - 1, 0))
        found = (tix >= 0) & (dno >= 0) & (self._rel_keys[pos] == key) if len(self._rel_keys) else \
            np.zeros(len(key), bool)
        return tix, np.where(found, self._rel_didx[pos] if len(self._rel_keys) else -1, -1)

    def relevant_pairs(self) -> set[tuple[str, str]]:
        """(topic, doc) of every judged document with highlighted text; the judged
        non-relevant documents (``rel_chars`` 0) of :attr:`rel_docs` are not among them."""
        return {(t, d) for t, docs in self.rel_docs.items() for d, c in zip(docs, self.rel_chars[t]) if c > 0}

    def full_masks(self) -> dict[str, np.ndarray]:
        return {t: np.ones(len(d), bool) for t, d in self.rel_docs.items()}

    def score(self, masks: dict[str, np.ndarray], measures=("AiP",), runs=None, topics=None) -> dict:
        """{measure: DataFrame runs x topics} under the judgement ``masks`` (topic -> kept docs).

        Topics without any kept relevant document are left out (as topics without
        assessments are); topics a run does not answer score 0 for it. Every run and topic
        is scored at once (:func:`~inexflow.measures.passage.ip_from_running_sums`), the same
        values as :func:`~inexflow.measures.passage.interpolated_precision` per run and topic
        with the dropped documents' highlighted characters set to 0 (tested).
        """
        runs = runs or self.runs
        topics, values = self.score_arrays(masks, measures, runs, topics)
        return {m: pd.DataFrame(v, index=runs, columns=topics) for m, v in values.items()}

    def score_arrays(self, masks: dict[str, np.ndarray], measures=("AiP",), runs=None, topics=None):
        """:meth:`score` as (the topics scored, {measure: array runs x topics})."""
        runs = runs or self.runs
        topics = [t for t in (topics or self.topics) if masks.get(t) is not None and masks[t].any()]
        nt = len(self.topics)
        keep = np.zeros(self._ndocs, bool)
        trel = np.zeros(nt)
        for t in topics:
            i, m = self._tix[t], masks[t]
            keep[self._doc_offset[i]:self._doc_offset[i] + len(m)] = m
            trel[i] = int(self.rel_chars[t][m].sum())
        run_ix = np.array([self._rix[r] for r in runs], dtype=np.int64)
        wanted = np.zeros(len(self.runs), bool)
        wanted[run_ix] = True
        e = np.flatnonzero(keep[self._doc] & wanted[self._group // max(nt, 1)])
        g = self._group[e]
        ip = ip_from_running_sums(g, self._running[e], grouped_cumsum(g, self._rsize[e]), np.tile(trel, len(self.runs)))
        ip = np.ascontiguousarray(ip).reshape(len(self.runs), nt, -1)[np.ix_(run_ix, [self._tix[t] for t in topics])]
        out = {}
        for m in measures:
            lv = PASSAGE_MEASURES[m]
            out[m] = ip.mean(axis=2) if lv is None else ip[:, :, lv]
        return topics, out


# the columns of a JudgedRuns.judge table
JUDGED_COLUMNS = ("topic", "running", "rsize", "doc")


def judged_columns(path, name: str, assessment_tables) -> dict[str, np.ndarray]:
    """A run's cached :meth:`JudgedRuns.judge` table (the ``judge_run`` stage) as NumPy arrays,
    read without building a pandas table (what :meth:`JudgedRuns.from_files` assembles); a table
    of another run, or one made from other assessment tables than ``assessment_tables``, is a
    :class:`~inexflow.io.tables.CachedTableError` naming it."""
    meta = read_parquet_metadata(path)
    check_identity(path, meta, name=name)
    check_inputs(path, meta, assessment_tables)
    return read_codes(path, (), JUDGED_COLUMNS)
