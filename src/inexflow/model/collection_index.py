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
import math
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from inexflow.errors import InputError
from inexflow.io.collection import INDEX_COLUMNS, document_path, index_collection
from inexflow.io.content_keys import file_keys
from inexflow.io.tables import read_parquet_metadata, write_parquet

# documents per shard: a shard job holds its documents' rows in memory (about 160 elements per
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


def shard_count(n_docs: int) -> int:
    return max(1, math.ceil(n_docs / DOCS_PER_SHARD))


def shard_of(doc: str, shards: int) -> int:
    """The shard of document ``doc`` among ``shards``: stable across runs and machines."""
    return zlib.crc32(doc.encode("utf-8")) % shards


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
        return file_keys({doc: os.path.join(root, doc + ".xml") for doc in docs}, _cache_file(cache, collection),
                         "document")
    except InputError as e:
        raise InputError(collection, f"document {Path(e.path).relative_to(collection).with_suffix('')}",
                         e.problem) from None


@dataclass(frozen=True)
class Shard:
    number: int
    shards: int
    docs: tuple[str, ...]
    key: str

    def path(self, cache) -> Path:
        return Path(cache) / "index" / f"{self.key}.parquet"


def plan_shards(collection, cache) -> list[Shard]:
    """The shards of ``collection`` with their documents (in id order) and keys."""
    keys = document_keys(collection, cache)
    n = shard_count(len(keys))
    members: list[list[str]] = [[] for _ in range(n)]
    for doc in keys:  # in id order
        members[shard_of(doc, n)].append(doc)
    out = []
    for k, docs in enumerate(members):
        h = hashlib.blake2b(f"{k}/{n}\n".encode(), digest_size=16)
        for d in docs:
            h.update(f"{d}\t{keys[d]}\n".encode())
        out.append(Shard(k, n, tuple(docs), h.hexdigest()))
    return out


def build_shard(collection, cache, number: int, key: str, log=None) -> Path:
    """Index shard ``number`` of ``collection`` into the cache, after checking that its
    documents still have the content ``key`` was computed from (a document changed since the
    workflow planned the shard is an error: run the workflow again)."""
    shard = next((s for s in plan_shards(collection, cache) if s.number == number), None)
    if shard is None or shard.key != key:
        raise InputError(collection, f"shard {number}", "documents changed while the workflow ran (the shard's "
                         "content key differs from the planned one)", "an unchanged collection: run snakemake again")
    index = index_collection(collection, shard.docs, log=log)
    write_parquet(index, shard.path(cache), {"shard": number, "shards": shard.shards, "key": key,
                                             "documents": len(shard.docs)})
    return shard.path(cache)


def read_documents(shard_files, docs, collection=None) -> pd.DataFrame:
    """The index rows of ``docs``, read from the shard files, each read only for the documents
    it holds; documents in ``docs`` order, elements in document order (the rows
    :func:`~inexflow.io.collection.index_collection` gives). With ``collection``, a document
    that no shard holds is an error naming it, as there; without, it is left out."""
    docs = list(dict.fromkeys(docs))
    files = list(shard_files)
    parts = []
    if docs and files:
        numbers = {read_parquet_metadata(f)["shard"]: f for f in files}
        n = read_parquet_metadata(files[0])["shards"]
        by_shard: dict[int, list[str]] = {}
        for d in docs:
            by_shard.setdefault(shard_of(d, n), []).append(d)
        parts = [pq.read_table(numbers[k], filters=[("doc", "in", ds)]).to_pandas()
                 for k, ds in sorted(by_shard.items()) if k in numbers]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({c: [] for c in INDEX_COLUMNS})
    if collection is not None:
        found = set(df["doc"])
        for d in docs:
            if d not in found:
                raise InputError(collection, f"document {d}", "not found in the collection (looked for "
                                 f"{document_path(collection, d)})")
    order = {d: i for i, d in enumerate(docs)}
    df = df.iloc[df["doc"].map(order).to_numpy().argsort(kind="stable")].reset_index(drop=True)
    return df.astype(INDEX_COLUMNS)
