"""The collection indexed once: shards of the element index, keyed by their documents' content.

A collection (a directory tree of XML documents, :mod:`inexflow.io.collection`) is split
into shards by document id (``crc32(doc) mod n``, so that an added document joins one shard
and leaves the others alone), ``n`` growing with the collection (:data:`DOCS_PER_SHARD`).
Each document has a content key (a BLAKE2b digest of its bytes), each shard a key made of
its documents' ids and keys. A shard's
index (the rows :func:`~inexflow.io.collection.index_collection` gives for its documents,
documents in id order) is one columnar file named by its key, in a folder that every
campaign over the same collection shares: a changed or added document changes one shard's
key, and only that shard is indexed again; a shard that exists is never built twice.

Hashing is cached by (device, inode, size, mtime_ns, ctime_ns) in one table per collection
in the same folder, so that listing a large collection hashes only the documents that
changed since the last time (a replaced file always gets a new ctime). Nothing here reads a
document other than to hash or index it, and nothing lists the documents as Snakemake
inputs: the workflow passes a shard's key as a param of the job that builds it.

A run's element results are resolved by reading, from each shard, only the documents the
run returns (:func:`read_documents`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from inexflow.errors import InputError
from inexflow.io.collection import INDEX_COLUMNS, INDEX_SCHEMA, document_path, index_files
from inexflow.io.content_keys import file_keys
from inexflow.io.tables import compact_dictionary, read_arrow, read_arrow_metadata, write_arrow, write_json

# documents per shard (the workflow's config collection_shard_docs; its schema's default is
# this): a shard job holds its documents' rows in memory (about 160 elements per
# Wikipedia article: some 1.6 M rows at 10,000 articles), and a collection of 659,388 articles
# gives 66 shard jobs
DOCS_PER_SHARD = 10_000


def list_documents(collection) -> list[str]:
    """The ids of every document of ``collection`` (``*.xml`` files, recursively), sorted."""
    root = Path(collection)
    if not root.is_dir():
        raise InputError(root, None, "collection directory not found")
    out: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(root / rel if rel else root) as it:
            for e in it:
                name = f"{rel}/{e.name}" if rel else e.name
                if e.is_dir(follow_symlinks=False):
                    stack.append(name)
                elif e.name.endswith(".xml") and e.is_file():
                    out.append(name[:-4])
    return sorted(out)


def shard_count(n_docs: int, per_shard: int | None = None) -> int:
    return max(1, math.ceil(n_docs / (per_shard or DOCS_PER_SHARD)))


def document_name(doc: str) -> str:
    """The file name of document ``doc`` without ``.xml`` (``part-000/1000`` -> ``1000``): how
    runs and assessments name a Wikipedia article (:mod:`inexflow.io.collection`)."""
    return doc.rsplit("/", 1)[-1]


def shard_of(doc: str, shards: int) -> int:
    """The shard of document ``doc`` among ``shards``: stable across runs and machines, and
    decided by the document's name, so that a bare name (``1000``) and the path of the file it
    names (``part-000/1000``) fall in the same shard."""
    return zlib.crc32(document_name(doc).encode("utf-8")) % shards


def _shards_of(docs, shards: int) -> list[int]:
    """:func:`shard_of` of every document of ``docs`` (one loop, no call per document)."""
    crc32 = zlib.crc32
    return [crc32(d[d.rfind("/") + 1:].encode("utf-8")) % shards for d in docs]


def _cache_file(cache: Path, collection: Path) -> Path:
    name = hashlib.blake2b(str(collection.resolve()).encode(), digest_size=8).hexdigest()
    return cache / "keys" / f"{name}.parquet"


def document_keys(collection, cache, docs: list[str] | None = None) -> dict[str, str]:
    """{doc: content key} of every document of ``collection`` (or of ``docs``), hashing only
    the files whose (device, inode, size, mtime_ns, ctime_ns) the cache in ``cache`` does not
    hold (:func:`inexflow.io.content_keys.file_keys`)."""
    collection, cache = Path(collection), Path(cache)
    docs = list_documents(collection) if docs is None else docs
    try:
        root = str(collection)  # plain strings: pathlib would double the time of a warm call
        return file_keys({doc: f"{root}/{doc}.xml" for doc in docs}, _cache_file(cache, collection), "document")
    except InputError as e:
        raise InputError(collection, f"document {Path(e.path).relative_to(collection).with_suffix('')}",
                         e.problem) from None


def shard_path(cache, key: str) -> str:
    """Where the shard of content key ``key`` is kept in the cache folder ``cache``."""
    return f"{cache}/index/{key}.arrow"


@dataclass(frozen=True)
class Shard:
    number: int
    shards: int
    docs: tuple[str, ...]
    key: str

    def path(self, cache) -> Path:
        return Path(shard_path(cache, self.key))


def plan_shards(collection, cache, per_shard: int | None = None) -> list[Shard]:
    """The shards of ``collection`` (about ``per_shard`` documents each) with their documents
    (in id order) and keys."""
    keys = document_keys(collection, cache)
    n = shard_count(len(keys), per_shard)
    members: list[list[str]] = [[] for _ in range(n)]
    for doc, k in zip(keys, _shards_of(keys, n)):  # in id order
        members[k].append(doc)
    return [_shard(k, n, docs, keys) for k, docs in enumerate(members)]


def plan_shard(collection, cache, number: int, per_shard: int | None = None) -> Shard | None:
    """Shard ``number`` as :func:`plan_shards` plans it, hashing (or finding in the cache) only
    its own documents' content keys; None if the collection has fewer shards."""
    every = list_documents(collection)
    n = shard_count(len(every), per_shard)
    if number >= n:
        return None
    docs = [d for d, k in zip(every, _shards_of(every, n)) if k == number]
    return _shard(number, n, docs, document_keys(collection, cache, docs))


def _shard(number: int, shards: int, docs: list[str], keys: dict[str, str]) -> Shard:
    """A shard's key: made of its number, the number of shards and its documents' ids and
    content keys."""
    h = hashlib.blake2b(f"{number}/{shards}\n".encode(), digest_size=16)
    h.update("".join([f"{d}\t{keys[d]}\n" for d in docs]).encode())
    return Shard(number, shards, tuple(docs), h.hexdigest())


def plan_path(cache, collection, campaign: str) -> str:
    """Where the workflow's main process records campaign ``campaign``'s plan of ``collection``
    (:func:`write_plan`): in the cache folder, beside the shards, named by the campaign and the
    collection's absolute path."""
    where = hashlib.blake2b(str(Path(collection).resolve()).encode(), digest_size=8).hexdigest()
    return f"{cache}/plans/{campaign}-{where}.json"


def write_plan(path, collection, per_shard: int | None, shards: list[Shard]) -> None:
    """Record ``shards`` (the plan of ``collection`` at ``per_shard`` documents a shard) in
    ``path``, so that the processes that run the workflow's jobs (on a cluster, each builds the
    job's part of the DAG again) read the numbers and keys of the shards instead of listing and
    hashing the whole collection again (:func:`read_plan`)."""
    write_json({"collection": str(Path(collection).resolve()), "per_shard": per_shard or DOCS_PER_SHARD,
                "shards": {s.key: s.number for s in shards}}, path)


def read_plan(path, collection, per_shard: int | None) -> dict[str, int] | None:
    """{shard key: shard number} as :func:`write_plan` recorded them for the same collection
    and shard size; None where there is no such plan (absent, unreadable, or made for another
    collection or size: the caller plans then)."""
    try:
        plan = json.loads(Path(path).read_text(encoding="utf-8"))
        same = (plan["collection"] == str(Path(collection).resolve())
                and plan["per_shard"] == (per_shard or DOCS_PER_SHARD))
        return {str(k): int(n) for k, n in plan["shards"].items()} if same else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def build_shard(collection, cache, number: int, key: str, log=None, per_shard: int | None = None) -> Path:
    """Index shard ``number`` of ``collection`` into the cache, after checking that its
    documents still have the content ``key`` was computed from (a document changed since the
    workflow planned the shard is an error: run the workflow again).

    The shard is an uncompressed Arrow IPC file (read memory-mapped: a run's documents are
    row ranges of it, sliced without decoding the rest): the rows of
    :data:`~inexflow.io.collection.INDEX_SCHEMA` of its documents in id order, the integers
    as int32, the document ids as a dictionary in that order, and a ``name`` column
    (:func:`document_name`)."""
    shard = plan_shard(collection, cache, number, per_shard)
    if shard is None or shard.key != key:
        raise InputError(collection, f"shard {number}", "documents changed while the workflow ran (the shard's "
                         "content key differs from the planned one)", "an unchanged collection: run snakemake again")
    root = str(collection)
    index = index_files((d, os.path.join(root, d + ".xml")) for d in shard.docs)
    index = index.unify_dictionaries().combine_chunks()  # the documents' dictionary stays in row order
    docs = index.column("doc").chunk(0) if index.num_rows else pa.array([], INDEX_SCHEMA.field("doc").type)
    names = pa.array([document_name(d) for d in docs.dictionary.to_pylist()], pa.string())
    columns = {c: index.column(c) if pa.types.is_dictionary(INDEX_SCHEMA.field(c).type)
               else index.column(c).cast(pa.int32()) for c in INDEX_COLUMNS}
    columns["name"] = pa.DictionaryArray.from_arrays(docs.indices, names)
    write_arrow(pa.table(columns), shard.path(cache), {"shard": number, "shards": shard.shards, "key": key,
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
    stored = doc.dictionary.to_pylist() if doc is not None else []
    by_name: dict[str, list[int]] = {}
    for i, s in enumerate(stored):
        by_name.setdefault(document_name(s), []).append(i)
    position = {s: i for i, s in enumerate(stored)}
    pairs = []  # (stored document, id asked by)
    for d in asked:
        if d in position:
            pairs.append((position[d], d))
        elif "/" not in d and by_name.get(d):
            if len(by_name[d]) > 1 and collection is not None:
                paths = ", ".join(f"{stored[i]}.xml" for i in by_name[d])
                raise InputError(collection, f"document {d}", f"{len(by_name[d])} files have that name ({paths})",
                                 "a document named by its path in the collection")
            if len(by_name[d]) == 1:
                pairs.append((by_name[d][0], d))
    if not pairs:
        return INDEX_SCHEMA.empty_table()
    codes = doc.indices.to_numpy(zero_copy_only=False)  # non-decreasing: documents in row order
    which = np.array([s for s, _ in pairs])
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
