"""The canonical run table and the dispatcher over run formats.

A :class:`Run` holds metadata (``run_id``, ``participant``, ``task`` -- the scoring type,
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
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from inexflow.errors import InputError, read_bytes

RESULT_COLUMNS = {"topic": "object", "doc": "object", "xpath": "object", "offset": "int64",
                  "length": "int64", "rank": "int64", "rsv": "float64", "line": "int64"}

TASKS = ("thorough", "focused", "relevant-in-context", "best-in-context", "fetch-browse")

# Every year's submission task label -> the scoring type it is evaluated with. Labels are
# matched case-insensitively, ignoring everything but letters, with "Focussed" read as
# "Focused" anywhere. Sources: INEX 2005 measures paper, section 6 (CO/COS tasks; the four
# CAS tasks are evaluated with overlap off, as Thorough); INEX 2006 paper, footnote 6
# (the run DTD calls Relevant in Context "AllInContext"); the 2007-2010 run formats.
TASK_LABELS = {
    # generic names and the 2006-2010 labels
    "thorough": "thorough", "focused": "focused", "relevantincontext": "relevant-in-context",
    "ric": "relevant-in-context", "bestincontext": "best-in-context", "bic": "best-in-context",
    "fetchbrowse": "fetch-browse", "fetchandbrowse": "fetch-browse",
    "allincontext": "relevant-in-context",  # 2006
    "restrictedfocused": "focused", "restrictedrelevantincontext": "relevant-in-context",  # 2010
    # 2005
    "cothorough": "thorough", "cofocused": "focused", "costhorough": "thorough", "cosfocused": "focused",
    "cofetchbrowse": "fetch-browse", "cosfetchbrowse": "fetch-browse",
    "sscas": "thorough", "svcas": "thorough", "vscas": "thorough", "vvcas": "thorough",
}


def task_key(label: str) -> str:
    """The matching key of a task label: lower case, letters only, "focussed" -> "focused"."""
    return re.sub(r"[^a-z]", "", label.lower()).replace("focussed", "focused")


def normalise_task(name: str) -> str | None:
    """The scoring type of a task label (``CO.Focussed`` -> ``focused``, ``AllInContext`` ->
    ``relevant-in-context``), or None for an unknown label."""
    return TASK_LABELS.get(task_key(name))


@dataclass
class Run:
    run_id: str
    participant: str
    task: str
    format: str
    source: str
    results: pd.DataFrame
    task_label: str = ""
    name: str = ""  # the name results are filed under: the run id, or in the workflow the file name
    order: str = "rank"  # "rank": the readers' order (module docstring); "file", "trec_eval": as those tools read it

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

    def with_results(self, results: pd.DataFrame, order: str) -> Run:
        """A copy holding ``results`` in ``order``; the codes stay when the table is the same."""
        import dataclasses

        out = dataclasses.replace(self, results=results, order=order)
        if results is self.results and self._codes is not None:
            out.attach_codes(self._codes[1])
        return out

    @property
    def is_passage(self) -> bool:
        return bool((self.results["offset"] >= 0).any())

    def meta(self) -> dict:
        return {"run_id": self.run_id, "name": self.name, "participant": self.participant, "task": self.task,
                "task_label": self.task_label or self.task, "format": self.format, "source": self.source}

    def save(self, path, made_from: dict | None = None):
        from inexflow.io.tables import write_parquet
        write_parquet(self.results, path, {**self.meta(), "made_from": made_from or {}})

    @classmethod
    def load(cls, path, name: str | None = None, categorical: bool = False) -> Run:
        """A run cached by :meth:`save`; with ``name``, a cached table of another run is an error.
        ``categorical``: topics and documents as pandas categoricals (read from the file's
        dictionary pages: faster to read and to factorise, for stages that only look them up)."""
        from inexflow.io.tables import check_identity, read_parquet, read_parquet_metadata
        m = read_parquet_metadata(path)
        if name is not None:
            check_identity(path, m, name=name)
        try:
            return cls(m["run_id"], m["participant"], m["task"], m["format"], m["source"],
                       read_parquet(path, categories=("topic", "doc") if categorical else None),
                       m.get("task_label", m["task"]), m.get("name", ""))
        except KeyError as e:
            from inexflow.io.tables import CachedTableError
            raise CachedTableError(path, f"cached run table has no {e.args[0]!r} in its metadata") from None


def order_results(df: pd.DataFrame, has_rank: bool, codes: dict | None = None) -> pd.DataFrame:
    """Sort into evaluation order (see module docstring); ``df`` rows are in file order.
    ``codes`` may give a column's integer codes and distinct values (``{"topic": (codes,
    uniques)}``, as a reader's dictionary has them) so that they are not computed again."""
    from inexflow.model.assessments import topic_sort_key

    codes, topics = (codes or {}).get("topic") or pd.factorize(df["topic"])
    topic_pos = np.empty(len(topics), dtype=np.int64)
    topic_pos[sorted(range(len(topics)), key=lambda i: topic_sort_key(topics[i]))] = np.arange(len(topics))
    second = df["rank"].to_numpy() if has_rank else -np.nan_to_num(df["rsv"].to_numpy(np.float64), nan=-np.inf)
    order = np.lexsort((np.arange(len(df)), second, topic_pos[codes]))
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
    # one hash pass over (result, offset) packed into an int64 finds the candidates; only those
    # are compared on all three keys
    span = int(off.max(initial=0)) - int(off.min(initial=0)) + 1
    if len(df) and int(composite.max()) < (1 << 62) // span:
        cand = np.flatnonzero(pd.Series(composite * span + (off - off.min())).duplicated(keep=False).to_numpy())
    else:
        cand = np.arange(len(df))
    if len(cand):
        dup[cand] = pd.DataFrame({"k": composite[cand], "o": off[cand], "n": length[cand]}).duplicated().to_numpy()
    return dup


def check_duplicates(df: pd.DataFrame, path, codes: dict | None = None):
    """A result (same element or same passage) listed twice for one topic is legal but odd:
    the official tools score every line, so it is kept and reported as a warning naming
    the first repeated line and how many there are. ``codes``: as for :func:`order_results`."""
    from inexflow.errors import warn_input

    key = ["topic", "doc", "xpath", "offset", "length"]
    dup = duplicate_mask(df, codes)
    if dup.any():
        second = df[dup].iloc[0]
        same = df[(df[key] == second[key]).all(axis=1)].iloc[0]
        what = second.xpath or f"{second.offset}:{second.length}"
        warn_input(path, f"line {second.line}", f"duplicate result: topic {second.topic} doc {second.doc} "
                   f"{what} already on line {same.line} ({int(dup.sum())} repeated results in the run; "
                   "each line is read, as the official tools do, where the task allows overlap)")


def detect_run_format(path) -> str:
    with open(path, "rb") as fh:
        head = fh.read(4096).removeprefix(b"\xef\xbb\xbf").lstrip()
    return "xml" if head.startswith(b"<") else "text"


def read_run(path, task: str | None = None, participant: str | None = None, fmt: str = "auto") -> Run:
    """Read one run file. ``task``/``participant`` override or fill in what the file says."""
    from inexflow.io import run_text, run_xml

    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "run file not found")
    if not os.access(path, os.R_OK):
        read_bytes(path, "run file")  # unreadable: one clear error
    f = detect_run_format(path) if fmt == "auto" else fmt
    if f == "xml":
        run = run_xml.read_xml_run(path)
    elif f == "text":
        run = run_text.read_text_run(path)
    else:
        raise InputError(path, None, f"unknown run format {f!r}", "auto, xml or text")
    if task:
        t = normalise_task(task)
        if t is None:
            raise InputError(path, None, f"unknown task {task!r}", ", ".join(TASKS) + " or a submission label "
                             "such as CO.Focussed, SSCAS, AllInContext")
        run.task, run.task_label = t, str(task)
    if participant:
        run.participant = str(participant)
    if not run.participant:
        run.participant = run.run_id
    return run
