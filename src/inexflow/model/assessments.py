"""Assessments: the :class:`Assessments` (the readers' :class:`~inexflow.io.canonical.AssessmentTables`,
whose tables :mod:`inexflow.io.canonical` documents, with what the model does with them),
:func:`read_assessments` (the dispatcher over the assessment formats) and the collection index
of the assessed documents (:func:`index_assessed`).

``scale`` says which relevance scale the elements are on (``trec``: graded documents only,
in an extra ``documents`` column ``grade``): ``inex2002`` (e, s in 0..3),
``inex2005`` (e in {?, 0, 1, 2}, s in [0, 1]), ``inex2006`` (s only) or ``fol``
(passages only; element relevance is derived through the collection index, as the
2006 scale).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from inexflow.errors import InputError, counted, require_path
from inexflow.io import assessments_inex2002, assessments_inex2005, qrels_fol, qrels_trec
from inexflow.io.canonical import DOCUMENT_COLUMNS, AssessmentTables, make_table
from inexflow.io.collection import index_collection
from inexflow.io.compressed import read_bytes
from inexflow.io.detect import BOM, detect_assessment_format
from inexflow.io.tables import read_parquet, read_parquet_metadata, write_parquet
from inexflow.io.topic_order import topic_sort_key


@dataclass
class Assessments(AssessmentTables):
    """The assessments of a campaign (:class:`~inexflow.io.canonical.AssessmentTables`), cached
    as parquet tables (:meth:`save`, :meth:`load`)."""

    @classmethod
    def of(cls, tables: AssessmentTables) -> Assessments:
        return cls(tables.scale, tables.source, tables.elements, tables.passages, tables.documents)

    @property
    def topics(self) -> list[str]:
        ts = set(self.documents["topic"]) | set(self.elements["topic"]) | set(self.passages["topic"])
        return sorted(ts, key=topic_sort_key)

    def save(self, outdir, recorded: dict | None = None):
        """The three tables in ``outdir``, each recording the scale, the source and ``recorded``
        (what the workflow records of the files they were made from: their content keys)."""
        out = Path(outdir)
        meta = {"scale": self.scale, "source": self.source, **(recorded or {})}
        write_parquet(self.elements, out / "elements.parquet", meta)
        write_parquet(self.passages, out / "passages.parquet", meta)
        write_parquet(self.documents, out / "documents.parquet", meta)

    @classmethod
    def load(cls, outdir) -> Assessments:
        out = Path(outdir)
        meta = read_parquet_metadata(out / "elements.parquet")
        return cls(meta["scale"], meta["source"], read_parquet(out / "elements.parquet"),
                   read_parquet(out / "passages.parquet"), read_parquet(out / "documents.parquet"))



# TREC qrels as a documents table: no character counts, the grade in its own column
TREC_DOCUMENT_COLUMNS = {**DOCUMENT_COLUMNS, "grade": "float64"}


def read_trec_qrels(path) -> AssessmentTables:
    """TREC qrels (:mod:`inexflow.io.qrels_trec`) as assessment tables."""
    rows = [(t, d, 0, -1, -1, "", g) for t, d, g in qrels_trec.read_trec_judgements(path)]
    return AssessmentTables("trec", str(path), documents=make_table(rows, TREC_DOCUMENT_COLUMNS))


def read_assessments(paths, fmt: str = "auto") -> Assessments:
    """Read one or more assessment files (one format) into one :class:`Assessments`."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)):
        require_path(paths, "read_assessments", "or a list of paths; a DataFrame: inexflow.assessments_from_frame, "
                     "or pass it to inexflow.evaluate")
    for p in paths:
        require_path(p, "read_assessments", "a file or a directory of one file per topic")
    expanded = []
    for p in paths:  # a directory stands for its files (one file per topic, as INEX shipped them)
        if Path(p).is_dir():
            expanded.extend(sorted(str(f) for f in Path(p).iterdir() if f.is_file() and not f.name.startswith(".")))
        else:
            expanded.append(p)
    for p in paths:
        if Path(p).is_dir() and not any(str(e).startswith(str(p).rstrip("/") + "/") for e in expanded):
            raise InputError(p, None, "no assessment files in directory", "one file per topic, or a qrels file")
    paths = expanded
    if not paths:
        raise InputError(",".join(map(str, paths)) or "assessments", None, "no assessment files given")
    readers = {"fol": qrels_fol.read_fol_qrels, "inex2005": assessments_inex2005.read_inex2005,
               "inex2006": assessments_inex2005.read_inex2005,
               "inex2002": assessments_inex2002.read_inex2002, "trec": read_trec_qrels}
    parts = []
    for p in paths:
        if not Path(p).exists() and not Path(p).is_symlink():  # (a broken link or a loop: the read says which)
            raise InputError(p, None, "assessment file not found")
        if not read_bytes(p, "assessment file").removeprefix(BOM).strip():  # unreadable: one clear error too
            raise InputError(p, None, "empty assessment file", "FOL qrels lines or INEX XML assessments")
        f = detect_assessment_format(p) if fmt == "auto" else fmt
        if f not in readers:
            raise InputError(p, None, f"unknown assessment format {f!r}", "one of auto, " + ", ".join(readers))
        parts.append(readers[f](p))
    if len(parts) == 1:
        return Assessments.of(parts[0])
    # a 2005/2006 file without any assessed element (a topic with nothing relevant in its pool)
    # says nothing of the scale: it joins the others' (the reader warned about it)
    scales = {a.scale for a in parts if not (a.scale == "inex2006" and a.elements.empty and a.passages.empty)}
    if len(scales) > 1:
        raise InputError(paths[0], None, f"assessment files are on different scales {sorted(scales)}",
                         "one scale per campaign")
    merged = Assessments(next(iter(scales)) if scales else parts[0].scale, ",".join(a.source for a in parts),
                         pd.concat([a.elements for a in parts], ignore_index=True),
                         pd.concat([a.passages for a in parts], ignore_index=True),
                         pd.concat([a.documents for a in parts], ignore_index=True))
    dup = merged.documents.duplicated(["topic", "doc"], keep=False)
    if dup.any():
        row = merged.documents[dup].iloc[0]
        raise InputError(",".join(map(str, paths)), f"topic {row.topic} doc {row.doc}",
                         "document assessed in more than one file", "each (topic, doc) once")
    return merged


def index_assessed(collection, a, log=None, read=None) -> pd.DataFrame:
    """The collection index of every document assessed in ``a`` (an :class:`Assessments`
    or a list of them: a campaign's assessment sets), parsed from the collection, or taken
    from ``read(docs)`` (the rows of those documents, e.g. from the collection's index
    shards). An assessed element that the collection document does not have is an error
    naming it: assessments and collection do not belong together, and scoring would silently
    lose the element's extent."""
    sets = a if isinstance(a, (list, tuple)) else [a]
    docs = sorted(set().union(*(set(s.documents["doc"]) | set(s.elements["doc"]) | set(s.passages["doc"])
                                for s in sets)))
    index = read(docs) if read is not None else index_collection(collection, docs, log=log)
    for s in sets:
        els = s.elements[["topic", "doc", "xpath"]]
        if len(els):
            m = els.merge(index[["doc", "xpath"]].drop_duplicates(), on=["doc", "xpath"], how="left", indicator=True)
            bad = m[m["_merge"] == "left_only"]
            if len(bad):
                r = bad.iloc[0]
                raise InputError(s.source, f"topic {r.topic}", f"assessed element {r.doc}{r.xpath} does not exist in "
                                 f"the collection document ({counted(len(bad), 'such element')})",
                                 f"assessments made on the collection {collection}")
    return index
