"""The collection indexed once: shards of the element index, keyed by their documents' content.

Which shard holds a document, and each shard's key, are planned by
:mod:`inexflow.model.shard_plan`. A shard's index (the rows
:func:`~inexflow.io.collection.index_collection` gives for its documents, documents in id
order) is one columnar file named by its key, in a folder that every campaign over the same
collection shares: a changed or added document changes one shard's key, and only that shard
is indexed again; a shard that exists is never built twice. Nothing here reads a document
other than to hash or index it, and nothing lists the documents as Snakemake inputs: the
workflow passes a shard's key as a param of the job that builds it.

A run's element results are resolved by reading, from each shard, only the documents the
run returns (:func:`read_documents`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.errors import InputError
from inexflow.io.collection import INDEX_COLUMNS, INDEX_SCHEMA, document_path, index_files
from inexflow.io.content_keys import content_key
from inexflow.io.tables import compact_dictionary, read_arrow, read_arrow_metadata, write_arrow
from inexflow.model.shard_plan import document_name, read_members, shard_of


def build_shard(collection, cache, key: str, log=None) -> Path:
    """Index the shard of content key ``key`` of ``collection`` into the cache: the documents
    the workflow's planning recorded for it (:func:`~inexflow.model.shard_plan.read_members`;
    no other document is listed, read or looked up), after which each document is hashed to
    check that it still has the content ``key`` was computed from (a document changed since
    the workflow planned the shard is an error: run the workflow again).

    The shard is an uncompressed Arrow IPC file (read memory-mapped: a run's documents are
    row ranges of it, sliced without decoding the rest): the rows of
    :data:`~inexflow.io.collection.INDEX_SCHEMA` of its documents in id order, the integers
    as int32, the document ids as a dictionary in that order, and a ``name`` column
    (:func:`document_name`)."""
    shard = read_members(cache, key)
    root = str(collection)
    paths = [os.path.join(root, d + ".xml") for d in shard.docs]
    index = index_files(zip(shard.docs, paths))
    if [content_key(p) for p in paths] != list(shard.doc_keys):  # after indexing: a change meanwhile is seen
        raise InputError(collection, f"shard {shard.number}", "documents changed while the workflow ran (the "
                         "shard's content key differs from the planned one)",
                         "an unchanged collection: run snakemake again")
    index = index.unify_dictionaries().combine_chunks()  # the documents' dictionary stays in row order
    docs = index.column("doc").chunk(0) if index.num_rows else pa.array([], INDEX_SCHEMA.field("doc").type)
    names = pa.array([document_name(d) for d in docs.dictionary.to_pylist()], pa.string())
    columns = {c: index.column(c) if pa.types.is_dictionary(INDEX_SCHEMA.field(c).type)
               else index.column(c).cast(pa.int32()) for c in INDEX_COLUMNS}
    columns["name"] = pa.DictionaryArray.from_arrays(docs.indices, names)
    write_arrow(pa.table(columns), shard.path(cache), {"shard": shard.number, "shards": shard.shards, "key": key,
                                                        "documents": len(shard.docs)})
    if log:
        log.info("indexed %d documents: %d elements", len(shard.docs), index.num_rows)
    return shard.path(cache)


def iter_document_tables(shard_files, docs, collection=None):
    """The index rows of ``docs`` one shard at a time: an Arrow table
    (:data:`~inexflow.io.collection.INDEX_SCHEMA`) per shard file that holds some, read only
    for those documents, so that memory holds one shard's share at a time.

    A document is named by its path in the collection or, as in runs and assessments of the
    Wikipedia collections, by its bare name when no file has that path and exactly one file
    has that name (:mod:`inexflow.io.collection`); its rows carry the id it was asked by. With
    ``collection``, a bare name that two files share is an error naming it."""
    docs = list(dict.fromkeys(docs))
    files = list(shard_files)
    if not (docs and files):
        return
    numbers = {read_arrow_metadata(f)["shard"]: f for f in files}
    n = read_arrow_metadata(files[0])["shards"]
    by_shard: dict[int, list[str]] = {}
    for d in docs:
        by_shard.setdefault(shard_of(d, n), []).append(d)
    for k, asked in sorted(by_shard.items()):
        if k in numbers:
            yield _read_shard(numbers[k], asked, collection)


def read_document_table(shard_files, docs, collection=None) -> pa.Table:
    """The index rows of ``docs`` (:func:`iter_document_tables`) as one table: documents in
    ``docs`` order, elements in document order (the rows
    :func:`~inexflow.io.collection.index_table` gives). With ``collection``, a document that
    no shard holds is an error naming it; without, it is left out."""
    docs = list(dict.fromkeys(docs))
    parts = list(iter_document_tables(shard_files, docs, collection))
    table = pa.concat_tables(parts) if parts else INDEX_SCHEMA.empty_table()
    if collection is not None:
        found = set(table.column("doc").unique().to_pylist()) if table.num_rows else set()
        for d in docs:
            if d not in found:
                raise InputError(collection, f"document {d}", "not found in the collection (looked for "
                                 f"{document_path(collection, d)})")
    if not table.num_rows:
        return table
    # documents in the order asked; a shard's rows of one document are in document order
    table = table.unify_dictionaries()
    col = table.column("doc")
    rank = {d: i for i, d in enumerate(docs)}
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in col.chunks])
    order = np.array([rank[d] for d in col.chunks[0].dictionary.to_pylist()], dtype=np.int64)[codes]
    return table.take(pa.array(np.argsort(order, kind="stable")))


def _read_shard(path, asked: list[str], collection) -> pa.Table:
    """The rows of the documents ``asked`` from one shard file (:func:`build_shard`), with the
    ids asked by: each document's rows are one range of the memory-mapped file."""
    table = read_arrow(path)
    doc = table.column("doc").chunk(0) if table.num_rows else None
    stored = doc.dictionary if doc is not None else pa.array([], pa.string())
    # each id asked for looked up among the shard's document paths, then among their bare names
    # (its name column: document_name of each path, in the same order), by hash lookups in C,
    # not a loop over the shard's documents
    ids = pa.array(asked, pa.string())
    by_path = pc.index_in(ids, value_set=stored).fill_null(-1).to_numpy(zero_copy_only=False)
    names = (table.column("name").chunk(0).dictionary if doc is not None and "name" in table.column_names
             else pa.array([document_name(d) for d in stored.to_pylist()], pa.string()))
    by_name = pc.index_in(ids, value_set=names).fill_null(-1).to_numpy(zero_copy_only=False)
    counts = pc.value_counts(names)
    shared = set(counts.field("values").filter(pc.greater(counts.field("counts"), 1)).to_pylist())
    pairs = []  # (stored document, id asked by)
    for d, at, named in zip(asked, by_path.tolist(), by_name.tolist()):
        if at >= 0:
            pairs.append((at, d))
        elif "/" not in d and named >= 0:
            if d in shared:
                if collection is not None:
                    same = [p for p, n in zip(stored.to_pylist(), names.to_pylist()) if n == d]
                    paths = ", ".join(f"{p}.xml" for p in same)
                    raise InputError(collection, f"document {d}", f"{len(same)} files have that name ({paths})",
                                     "a document named by its path in the collection")
                continue
            pairs.append((named, d))
    if not pairs:
        return INDEX_SCHEMA.empty_table()
    codes = doc.indices.to_numpy(zero_copy_only=False)  # non-decreasing: documents in row order
    which = np.array([s for s, _ in pairs], dtype=codes.dtype)  # codes' own dtype: no copy of codes to search
    lo, hi = np.searchsorted(codes, which, "left"), np.searchsorted(codes, which, "right")
    sizes = hi - lo
    rows = np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes - lo, sizes)
    out = table.select(list(INDEX_COLUMNS)).take(pa.array(rows)).combine_chunks()
    columns = {c: compact_dictionary(out.column(c).chunk(0)) if pa.types.is_dictionary(out.schema.field(c).type)
               else out.column(c) for c in INDEX_COLUMNS}
    columns["doc"] = pa.DictionaryArray.from_arrays(pa.array(np.repeat(np.arange(len(pairs), dtype=np.int32), sizes)),
                                                    pa.array([d for _, d in pairs], pa.string()))
    return pa.table(columns).cast(INDEX_SCHEMA)


def read_documents(shard_files, docs, collection=None) -> pd.DataFrame:
    """:func:`read_document_table` as a DataFrame (dtypes :data:`~inexflow.io.collection.INDEX_COLUMNS`)."""
    return read_document_table(shard_files, docs, collection).to_pandas().astype(INDEX_COLUMNS)
