"""The collection index: every element's canonical xpath and character extent.

A collection is a directory of XML documents; a document's id is its path relative to
the directory without the ``.xml`` suffix (``851.xml`` -> ``851``, ``co/2001/r1050.xml`` ->
``co/2001/r1050``), and a bare id with no such file names the one file of that name in a
subdirectory (``1000`` -> ``part-000/1000.xml``, as Wikipedia runs name articles). The
text of a document is the concatenation of all its text nodes in
document order (markup excluded, entities resolved, characters counted as Unicode code
points); every element covers the half-open range ``[start, end)`` of that text.

Index table (one row per element, documents in the order asked for, elements in
document order): doc (str), xpath (str, canonical), tag (str), start, end (int64),
depth (int64, the root is 1), parent (int64, row number of the parent within the same
document's rows, -1 for the root).

Documents are parsed one at a time (memory stays at one document), and only the
documents asked for are read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from inexflow.errors import InputError, warn_input
from inexflow.io.xmlutil import local, parse_xml

INDEX_COLUMNS = {"doc": "object", "xpath": "object", "tag": "object", "start": "int64", "end": "int64",
                 "depth": "int64", "parent": "int64"}


def document_path(collection: str | os.PathLike, doc: str) -> Path:
    return Path(collection) / f"{doc}.xml"


def documents_by_name(collection) -> dict[str, Path]:
    """{file name without ``.xml``: file} of every document under ``collection`` whose name no
    other file shares: how a run that names Wikipedia articles by number (``1000``) finds them
    in a collection distributed in numbered subdirectories (``part-000/1000.xml``)."""
    found: dict[str, Path] = {}
    shared: set[str] = set()
    for p in Path(collection).rglob("*.xml"):
        name = p.name[:-4]
        if name in found:
            shared.add(name)
        found[name] = p
    return {k: v for k, v in found.items() if k not in shared}


def index_document(path, doc: str) -> list[tuple]:
    """Rows (doc, xpath, tag, start, end, depth, parent) for one document."""
    root = parse_xml(path, "document")
    rows: list[list] = []
    pos = 0

    def visit(el, xpath, name, depth, parent):
        nonlocal pos
        me = len(rows)
        row = [doc, xpath, name, pos, 0, depth, parent]
        rows.append(row)
        if el.text:
            pos += len(el.text)
        counts: dict[str, int] = {}
        for ch in el:
            tag = ch.tag
            if isinstance(tag, str):  # an element (comments and processing instructions count only their tail)
                name = local(tag)
                k = counts[name] = counts.get(name, 0) + 1
                visit(ch, f"{xpath}/{name}[{k}]", name, depth + 1, me)
            if ch.tail:
                pos += len(ch.tail)
        row[4] = pos

    name = local(root.tag)
    visit(root, f"/{name}[1]", name, 1, -1)
    return [tuple(r) for r in rows]


def index_collection(collection, docs, missing: str = "error", log=None) -> pd.DataFrame:
    """Index the documents ``docs`` of ``collection``.

    ``missing='error'`` makes a document absent from the collection an error naming it;
    ``'warn'`` logs it and leaves it out (its results then cannot be resolved).
    """
    collection = Path(collection)
    if not collection.is_dir():
        raise InputError(collection, None, "collection directory not found")
    rows: list[tuple] = []
    docs = list(dict.fromkeys(docs))
    by_name = None
    for i, doc in enumerate(docs, 1):
        p = document_path(collection, doc)
        if not p.is_file() and "/" not in doc:  # a bare name: the file of that name in a subdirectory
            by_name = documents_by_name(collection) if by_name is None else by_name
            p = by_name.get(doc, p)
        if not p.is_file():
            if missing == "error":
                raise InputError(collection, f"document {doc}", f"not found in the collection (looked for {p})")
            warn_input(collection, f"document {doc}", "not found in the collection")
            continue
        rows.extend(index_document(p, doc))
        if log and i % 1000 == 0:
            log.info("indexed %d/%d documents", i, len(docs))
    df = pd.DataFrame.from_records(rows, columns=list(INDEX_COLUMNS)) if rows else pd.DataFrame(
        {c: pd.Series([], dtype=t) for c, t in INDEX_COLUMNS.items()})
    return df.astype(INDEX_COLUMNS)




def elements_covering(index: pd.DataFrame, doc: str, start: int, end: int) -> pd.DataFrame:
    """Elements of ``doc`` whose extent lies within [start, end) (character range -> xpaths)."""
    d = index[index["doc"] == doc]
    return d[(d["start"] >= start) & (d["end"] <= end) & (d["end"] > d["start"])]

