"""The canonical assessment tables and the dispatcher over assessment formats.

An :class:`Assessments` holds three tables (all ids are strings):

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from inexflow.errors import InputError, read_bytes

SCALES = ("inex2002", "inex2005", "inex2006", "fol", "trec")
# the values of --assessments-format and of the config's assessments.format (the schema's enum is tested equal)
ASSESSMENT_FORMATS = ("auto", "fol", "trec", "inex2005", "inex2006", "inex2002")
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, accepted at the start of every input

ELEMENT_COLUMNS = {"topic": "object", "doc": "object", "xpath": "object", "exh": "float64",
                   "spec": "float64", "size": "int64", "rsize": "int64"}
PASSAGE_COLUMNS = {"topic": "object", "doc": "object", "start": "int64", "length": "int64",
                   "start_point": "object", "end_point": "object"}
DOCUMENT_COLUMNS = {"topic": "object", "doc": "object", "rel_chars": "int64",
                    "doc_chars": "int64", "bep_offset": "int64", "bep_xpath": "object"}


def make_table(rows, columns: dict) -> pd.DataFrame:
    """Build a table with exactly ``columns`` (name -> dtype) from row tuples."""
    df = pd.DataFrame.from_records(rows, columns=list(columns)) if rows else pd.DataFrame(
        {c: pd.Series([], dtype=t) for c, t in columns.items()})
    for c, t in columns.items():
        df[c] = df[c].astype(t)
    return df


@dataclass
class Assessments:
    scale: str
    source: str
    elements: pd.DataFrame = field(default_factory=lambda: make_table([], ELEMENT_COLUMNS))
    passages: pd.DataFrame = field(default_factory=lambda: make_table([], PASSAGE_COLUMNS))
    documents: pd.DataFrame = field(default_factory=lambda: make_table([], DOCUMENT_COLUMNS))

    @property
    def topics(self) -> list[str]:
        ts = set(self.documents["topic"]) | set(self.elements["topic"]) | set(self.passages["topic"])
        return sorted(ts, key=topic_sort_key)

    def save(self, outdir):
        from inexflow.io.tables import write_parquet
        out = Path(outdir)
        meta = {"scale": self.scale, "source": self.source}
        write_parquet(self.elements, out / "elements.parquet", meta)
        write_parquet(self.passages, out / "passages.parquet", meta)
        write_parquet(self.documents, out / "documents.parquet", meta)

    @classmethod
    def load(cls, outdir) -> Assessments:
        from inexflow.io.tables import read_parquet, read_parquet_metadata
        out = Path(outdir)
        meta = read_parquet_metadata(out / "elements.parquet")
        return cls(meta["scale"], meta["source"], read_parquet(out / "elements.parquet"),
                   read_parquet(out / "passages.parquet"), read_parquet(out / "documents.parquet"))


def topic_sort_key(t: str):
    """Numeric topics in numeric order, then anything else alphabetically."""
    return (0, int(t), "") if t.isdigit() else (1, 0, t)


def detect_assessment_format(path) -> str:
    """``fol`` for FOL text qrels (5 or more columns, ``Q0`` second), ``trec`` for TREC qrels (4
    columns, the second not ``Q0``: a 4-column line with ``Q0`` is a truncated FOL line),
    else ``inex2005`` or ``inex2002`` from the XML vocabulary."""
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if not head.removeprefix(BOM).lstrip().startswith(b"<"):
        first = next((line for line in head.removeprefix(BOM).splitlines() if line.strip()), b"")
        cols = first.split()
        return "trec" if len(cols) == 4 and cols[1] != b"Q0" else "fol"
    if b"<element" in head or b"<passage" in head or b"best-entry-point" in head or b"name=" in head:
        return "inex2005"
    return "inex2002"


def sniff_scale(path) -> str | None:
    """The relevance scale of an assessment file from its first 64 KiB, without parsing it
    (for checks made before anything runs): ``fol``, ``inex2002``, ``inex2005`` (2005
    elements carry exhaustivity) or ``inex2006``; None for a 2005/2006-format file whose
    head holds no ``<element`` (a topic with no relevant element says nothing of the scale)."""
    fmt = detect_assessment_format(path)
    if fmt != "inex2005":
        return fmt
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if b"exhaustivity=" in head or b"exhaustiveness=" in head:
        return "inex2005"
    return "inex2006" if b"<element" in head else None


def read_assessments(paths, fmt: str = "auto") -> Assessments:
    """Read one or more assessment files (one format) into one :class:`Assessments`."""
    from inexflow.io import assessments_inex2002, assessments_inex2005, qrels_fol, qrels_trec

    if isinstance(paths, (str, Path)):
        paths = [paths]
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
               "inex2002": assessments_inex2002.read_inex2002, "trec": qrels_trec.read_trec_qrels}
    parts = []
    for p in paths:
        if not Path(p).is_file():
            raise InputError(p, None, "assessment file not found")
        if not read_bytes(p, "assessment file").removeprefix(BOM).strip():  # unreadable: one clear error too
            raise InputError(p, None, "empty assessment file", "FOL qrels lines or INEX XML assessments")
        f = detect_assessment_format(p) if fmt == "auto" else fmt
        if f not in readers:
            raise InputError(p, None, f"unknown assessment format {f!r}", "one of auto, " + ", ".join(readers))
        parts.append(readers[f](p))
    if len(parts) == 1:
        return parts[0]
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
