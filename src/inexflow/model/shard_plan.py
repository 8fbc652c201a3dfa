"""The plan of a collection's index: which shard each document falls in, and each shard's key.

A collection (a directory tree of XML documents, :mod:`inexflow.io.collection`) is split
into shards by document name (``crc32(name) mod n``, so that an added document joins one
shard and leaves the others alone), ``n`` growing with the collection (:data:`DOCS_PER_SHARD`).
Each document has a content key (a BLAKE2b digest of its bytes), each shard a key made of
its documents' ids and keys (:mod:`inexflow.model.collection_index` builds and reads the
shards). Hashing is cached by (device, inode, size, mtime_ns, ctime_ns), so that planning a
large collection hashes only the documents that changed since the last time.

Free of pandas: the workflow's own process (the Snakefile) plans the shards once per call.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from inexflow.errors import InputError
from inexflow.io.atomic import write_json
from inexflow.io.content_keys import file_keys

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
