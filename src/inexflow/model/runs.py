"""Runs: the :class:`Run` (the readers' :class:`~inexflow.io.canonical.RunTable`, whose
columns and ordering rule :mod:`inexflow.io.canonical` documents, with what the model does
with it), :func:`read_run` (the dispatcher over the run formats, :mod:`inexflow.io.run_xml` and
:mod:`inexflow.io.run_text`) and the character ranges of element results
(:func:`resolve_extents`, :func:`convert_to_fol`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from inexflow.errors import InputError, open_input
from inexflow.io import run_text, run_xml
from inexflow.io.canonical import RunTable
from inexflow.io.collection import index_collection
from inexflow.io.detect import detect_run_format
from inexflow.io.tables import CachedTableError, check_identity, read_parquet, read_parquet_metadata, write_parquet
from inexflow.io.task_labels import TASKS, normalise_task


@dataclass
class Run(RunTable):
    """A run: its metadata and canonical ``results`` (:class:`~inexflow.io.canonical.RunTable`),
    cached as a parquet table (:meth:`save`, :meth:`load`)."""

    @classmethod
    def of(cls, table: RunTable) -> Run:
        """The run of a reader's record, keeping the reader's codes."""
        run = cls(**{f.name: getattr(table, f.name) for f in dataclasses.fields(table)})
        if table._codes is not None and table._codes[0] is table.results:
            run.attach_codes(table._codes[1])
        return run

    def with_results(self, results: pd.DataFrame, order: str) -> Run:
        """A copy holding ``results`` in ``order``; the codes stay when the table is the same."""
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
        write_parquet(self.results, path, {**self.meta(), "made_from": made_from or {}})

    @classmethod
    def load(cls, path, name: str | None = None, categorical: bool = False) -> Run:
        """A run cached by :meth:`save`; with ``name``, a cached table of another run is an error.
        ``categorical``: topics and documents as pandas categoricals (read from the file's
        dictionary pages: faster to read and to factorise, for stages that only look them up)."""
        m = read_parquet_metadata(path)
        if name is not None:
            check_identity(path, m, name=name)
        try:
            return cls(m["run_id"], m["participant"], m["task"], m["format"], m["source"],
                       read_parquet(path, categories=("topic", "doc") if categorical else None),
                       m.get("task_label", m["task"]), m.get("name", ""))
        except KeyError as e:
            raise CachedTableError(path, f"cached run table has no {e.args[0]!r} in its metadata") from None



def read_run(path, task: str | None = None, participant: str | None = None, fmt: str = "auto") -> Run:
    """Read one run file. ``task``/``participant`` override or fill in what the file says."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "run file not found")
    open_input(path, "run file").close()  # a directory, a special or an unreadable file: one clear error
    f = detect_run_format(path) if fmt == "auto" else fmt
    if f == "xml":
        run = Run.of(run_xml.read_xml_run(path))
    elif f == "text":
        run = Run.of(run_text.read_text_run(path))
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


def resolve_extents(run: Run, collection, index: pd.DataFrame | None = None) -> Run:
    """Fill offset/length of element results (and of whole-document results, length -1)
    with the character range from the collection.

    Documents found in ``index`` are taken from it; the others are indexed from
    ``collection`` (a document missing there is an error naming it).
    """
    if collection is None:
        return run
    res = run.results
    el = (res["xpath"] != "").to_numpy()
    whole = ((res["xpath"] == "") & (res["length"] < 0)).to_numpy()
    if not (el.any() or whole.any()):
        return run
    need = list(dict.fromkeys(res.loc[el | whole, "doc"]))
    have = set(index["doc"].unique()) if index is not None and len(index) else set()
    extra = index_collection(collection, [d for d in need if d not in have])
    ix = pd.concat([index, extra], ignore_index=True) if index is not None and len(index) else extra
    res = res.copy()
    if el.any():
        m = res.loc[el, ["doc", "xpath", "line", "topic"]].merge(
            ix[["doc", "xpath", "start", "end"]], on=["doc", "xpath"], how="left")
        bad = m["start"].isna().to_numpy()
        if bad.any():
            r = m[bad].iloc[0]
            raise InputError(run.source, f"line {r.line}", f"element {r.doc}{r.xpath} (topic {r.topic}) does not "
                             f"exist in the collection document ({int(bad.sum())} unresolvable results)",
                             "the xpath of an element of that document")
        res.loc[el, "offset"] = m["start"].to_numpy(np.int64)
        res.loc[el, "length"] = (m["end"] - m["start"]).to_numpy(np.int64)
    if whole.any():
        roots = ix[ix["depth"] == 1].set_index("doc")["end"]
        res.loc[whole, "offset"] = 0
        res.loc[whole, "length"] = res.loc[whole, "doc"].map(roots).to_numpy(np.int64)
    run.results = res
    return run


def convert_to_fol(run, collection=None, doc_lengths: dict | None = None):
    """A TREC (whole-document) or element run with the character range of every result: from
    the collection, or for whole documents from ``doc_lengths`` (doc -> characters, e.g. the
    ``doc_chars`` of FOL qrels). A document found in neither is an error naming its line."""
    res = run.results.copy()
    whole = ((res["xpath"] == "") & (res["length"] < 0)).to_numpy()
    if doc_lengths is not None and whole.any():
        n = res.loc[whole, "doc"].map(doc_lengths)
        known = n.notna().to_numpy()
        idx = np.flatnonzero(whole)[known]
        res.loc[res.index[idx], "offset"] = 0
        res.loc[res.index[idx], "length"] = n[known].astype(np.int64).to_numpy()
        run.results = res
    if collection is not None:
        run = resolve_extents(run, collection)
    return run
