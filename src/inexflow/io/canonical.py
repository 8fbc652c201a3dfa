"""The canonical tables every reader fills, and the records the readers return.

An :class:`AssessmentTables` holds three tables (all ids are strings):

``elements``  one row per assessed element: topic, doc, xpath (canonical), exh (float:
              the exhaustivity on the campaign's scale; -1 = ``?`` too small (2005);
              NaN where the scale has no exhaustivity (2006, FOL)), spec (float: 0..3 on
              the 2002 scale, rsize/size in [0, 1] on the 2005/2006 scales), size and
              rsize (int characters; -1 where the format gives none).
``passages``  one row per highlighted passage: topic, doc, start, length (int
              characters of the document's text; -1 where only xpath points are
              known), start_point, end_point (2005 xpath points, "" for FOL).
``documents`` one row per assessed document: topic, doc, rel_chars, doc_chars (-1 if
              unknown), bep_offset (int, -1 if none), bep_xpath ("" if none).

``scale`` says which relevance scale the elements are on (``trec``: graded documents only,
in an extra ``documents`` column ``grade``): ``inex2002`` (e, s in 0..3),
``inex2005`` (e in {?, 0, 1, 2}, s in [0, 1]), ``inex2006`` (s only) or ``fol``
(passages only; element relevance is derived through the collection index, as the
2006 scale).

A :class:`RunTable` holds metadata (``run_id``, ``participant``, ``task`` -- the scoring type,
one of :data:`TASKS` --, ``task_label`` -- the label as the submission or the config gave
it, e.g. ``CO.Focussed`` --, ``format``, ``source``) and one table ``results`` with one row per result, in evaluation order
(topic by topic, best first):

=========  =======  ==========================================================
column     dtype    meaning
=========  =======  ==========================================================
topic      str      topic id
doc        str      document id (file name without ``.xml``)
xpath      str      canonical element xpath; "" for passage results
offset     int64    passage start in characters of the document's text; -1 for elements
length     int64    passage length in characters; -1 for elements
rank       int64    rank as given in the file (or file order where none is given)
rsv        float64  retrieval status value (NaN where none is given)
line       int64    line in the source file, for error messages
=========  =======  ==========================================================

Ordering rule (the single rule used everywhere, ``docs/measures.md``): results
are ordered by the rank given in the file; where a format gives only scores, by
descending score, then by file order.

The readers (:mod:`inexflow.io`) return these records; :class:`inexflow.model.assessments.Assessments`
and :class:`inexflow.model.runs.Run` add what the model does with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from inexflow.errors import InputError, counted, place, warn_input
from inexflow.io.topic_order import topic_sort_key

ELEMENT_COLUMNS = {"topic": "object", "doc": "object", "xpath": "object", "exh": "float64",
                   "spec": "float64", "size": "int64", "rsize": "int64"}
PASSAGE_COLUMNS = {"topic": "object", "doc": "object", "start": "int64", "length": "int64",
                   "start_point": "object", "end_point": "object"}
DOCUMENT_COLUMNS = {"topic": "object", "doc": "object", "rel_chars": "int64",
                    "doc_chars": "int64", "bep_offset": "int64", "bep_xpath": "object"}


RESULT_COLUMNS = {"topic": "object", "doc": "object", "xpath": "object", "offset": "int64",
                  "length": "int64", "rank": "int64", "rsv": "float64", "line": "int64"}


def make_table(rows, columns: dict) -> pd.DataFrame:
    """Build a table with exactly ``columns`` (name -> dtype) from row tuples."""
    df = pd.DataFrame.from_records(rows, columns=list(columns)) if rows else pd.DataFrame(
        {c: pd.Series([], dtype=t) for c, t in columns.items()})
    for c, t in columns.items():
        df[c] = df[c].astype(t)
    return df


@dataclass
class AssessmentTables:
    """The assessments of one source: ``scale`` (:data:`inexflow.io.detect.SCALES`), ``source``
    and the three canonical tables (module docstring)."""

    scale: str
    source: str
    elements: pd.DataFrame = field(default_factory=lambda: make_table([], ELEMENT_COLUMNS))
    passages: pd.DataFrame = field(default_factory=lambda: make_table([], PASSAGE_COLUMNS))
    documents: pd.DataFrame = field(default_factory=lambda: make_table([], DOCUMENT_COLUMNS))


@dataclass
class RunTable:
    """One run as a reader gives it: metadata and the canonical ``results`` table (module
    docstring), with the reader's integer codes of string columns where it has them."""

    run_id: str
    participant: str
    scoring_type: str  # how the run is scored (inexflow.io.task_labels.TASKS)
    format: str
    source: str
    results: pd.DataFrame
    task_label: str = ""
    name: str = ""  # the name results are filed under: the run id, or in the workflow the file name
    order: str = "rank"  # "rank": the readers' order (module docstring); "file", "trec_eval": as those tools read it
    rank_error: str = ""  # "line N: rank .. is not an integer" of a TREC run read by its scores (trec order only)

    def __post_init__(self):
        self.name = self.name or self.run_id
        self._codes = None

    def attach_codes(self, codes: dict):
        """Keep a reader's integer codes of string columns (``{"topic": (codes, uniques)}``,
        codes aligned with the rows of ``results`` as it is now and numbered in order of first
        appearance), so that scoring need not factorise the strings again."""
        self._codes = (self.results, codes)

    def codes(self, column: str):
        """``(codes, uniques)`` of ``column`` as :meth:`attach_codes` kept them, or None: they
        are given only while ``results`` is the very table they were made for."""
        if self._codes is None or self._codes[0] is not self.results:
            return None
        return self._codes[1].get(column)


# what gives results their character ranges, in every message that misses one
COLLECTION_HINT = "--collection DIR, the config's collection key, or collection= in Python"


def unresolved(run: RunTable, bad, qrels: bool = False) -> InputError:
    """The error for the results of ``run`` that have no character range (``bad``: a mask
    over its results), named at the first: an element result needs the collection to resolve
    it, a whole document (a TREC result) its length, which the collection gives for every
    document and FOL qrels (``qrels``: they were asked) for the documents they list only."""
    r = run.results[bad].iloc[0]
    n = int(bad.sum())
    count = f"; {counted(n, 'such result')} in the run" if n > 1 else ""
    if r.xpath:
        return InputError(run.source, place(run.source, r.line), f"element result {r.doc}{r.xpath} has no character range{count}",
                          f"the collection, which resolves elements to character ranges: {COLLECTION_HINT}")
    why = ": FOL qrels give the lengths of the documents they list only, and not this one" if qrels else ""
    return InputError(run.source, place(run.source, r.line), f"whole-document result {r.doc} has no known length{why}{count}",
                      f"the collection, which gives every document's length: {COLLECTION_HINT}")


def order_results(df: pd.DataFrame, has_rank: bool, codes: dict | None = None) -> pd.DataFrame:
    """Sort into evaluation order (see module docstring); ``df`` rows are in file order.
    ``codes`` may give a column's integer codes and distinct values (``{"topic": (codes,
    uniques)}``, as a reader's dictionary has them) so that they are not computed again."""
    codes, topics = (codes or {}).get("topic") or pd.factorize(df["topic"])
    topic_pos = np.empty(len(topics), dtype=np.int64)
    topic_pos[sorted(range(len(topics)), key=lambda i: topic_sort_key(topics[i]))] = np.arange(len(topics))
    second = df["rank"].to_numpy() if has_rank else -np.nan_to_num(df["rsv"].to_numpy(np.float64), nan=-np.inf)
    first = topic_pos[codes]
    step = np.diff(first)
    if not ((step > 0) | ((step == 0) & (second[1:] >= second[:-1]))).all():  # else in that order already: no sort
        order = np.lexsort((np.arange(len(df)), second, first))
        df = df.take(order) if (order != np.arange(len(df))).any() else df
    if not has_rank:
        df = df.assign(rank=df.groupby("topic", sort=False).cumcount().to_numpy() + 1)
    df = df[list(RESULT_COLUMNS)].reset_index(drop=True)
    if any(df[c].dtype != t for c, t in RESULT_COLUMNS.items()):
        df = df.astype(RESULT_COLUMNS)
    return df


def duplicate_mask(df: pd.DataFrame, codes: dict | None = None) -> np.ndarray:
    """True for every result whose (topic, doc, xpath, offset, length) came on an earlier row
    (``DataFrame.duplicated`` on those columns). ``codes``: as for :func:`order_results`."""
    composite = np.zeros(len(df), dtype=np.int64)
    for k in ("topic", "doc", "xpath"):
        c, uniq = (codes or {}).get(k) or pd.factorize(df[k])
        composite = composite * max(len(uniq), 1) + c
    off, length = df["offset"].to_numpy(np.int64), df["length"].to_numpy(np.int64)
    dup = np.zeros(len(df), dtype=bool)
    # one sort of (result, offset) packed into an int64 finds the candidates (the rows whose key
    # is repeated; usually none); only those are compared on all three keys
    span = int(off.max(initial=0)) - int(off.min(initial=0)) + 1
    if len(df) and int(composite.max()) < (1 << 62) // span:
        packed = composite * span + (off - off.min())
        ordered = np.sort(packed)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        cand = np.flatnonzero(np.isin(packed, repeated)) if len(repeated) else np.zeros(0, np.int64)
    else:
        cand = np.arange(len(df))
    if len(cand):
        dup[cand] = pd.DataFrame({"k": composite[cand], "o": off[cand], "n": length[cand]}).duplicated().to_numpy()
    return dup


def check_scores_and_ranks(df: pd.DataFrame, path, scores_optional: bool = False):
    """A score that is not a finite number (``inf``, or one beyond float range such as
    ``1e400``; ``nan`` too unless ``scores_optional``, as in XML runs, where a result without
    ``<rsv>`` has none) is an :class:`~inexflow.errors.InputError` naming its line: no ranking
    by it would mean anything. A negative rank and a passage of length 0 are legal but odd: a
    warning naming the first."""
    rsv = df["rsv"].to_numpy(np.float64)
    bad = np.flatnonzero(np.isinf(rsv) if scores_optional else ~np.isfinite(rsv))
    if len(bad):
        r = df.iloc[bad[0]]
        raise InputError(path, place(path, r.line), f"score {float(r.rsv)!r} is not a finite number ({len(bad)} in the run)",
                         "a finite number (the result's retrieval status value)")
    neg = np.flatnonzero(df["rank"].to_numpy(np.float64) < 0)
    if len(neg):
        r = df.iloc[neg[0]]
        warn_input(path, place(path, r.line), f"negative rank {r['rank']} ({len(neg)} in the run; ranks count from 1)")
    empty = np.flatnonzero((df["offset"].to_numpy() >= 0) & (df["length"].to_numpy() == 0))
    empty = empty[df["xpath"].to_numpy()[empty] == ""]
    if len(empty):
        r = df.iloc[empty[0]]
        warn_input(path, place(path, r.line), f"passage of length 0 ({len(empty)} in the run): it retrieves nothing")


def check_duplicates(df: pd.DataFrame, path, codes: dict | None = None):
    """A result (same element or same passage) listed twice for one topic is legal but odd:
    the official tools score every line, so it is kept and reported as a warning naming
    the first repeated line and how many there are. ``codes``: as for :func:`order_results`."""
    key = ["topic", "doc", "xpath", "offset", "length"]
    dup = duplicate_mask(df, codes)
    if dup.any():
        second = df[dup].iloc[0]
        same = df[(df[key] == second[key]).all(axis=1)].iloc[0]
        what = second.xpath or f"{second.offset}:{second.length}"
        warn_input(path, f"line {second.line}", f"duplicate result: topic {second.topic} doc {second.doc} "
                   f"{what} already on line {same.line} ({counted(int(dup.sum()), 'repeated result')} in the run; "
                   "the INEX families read each line, as the official tools do, where the task allows overlap; "
                   "document measures count a document once, at its highest-scoring line, where trec_eval stops)")
