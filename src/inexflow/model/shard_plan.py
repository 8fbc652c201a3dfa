"""The plan of a collection's index: which shard each document falls in, and each shard's key.

A collection (a directory tree of XML documents, :mod:`inexflow.io.collection`) is split
into shards by document name (``crc32(name) mod n``, so that an added document joins one
shard and leaves the others alone), ``n`` growing with the collection (:data:`DOCS_PER_SHARD`).
Each document has a content key (a BLAKE2b digest of its bytes), each shard a key made of
its documents' ids and keys (:mod:`inexflow.model.collection_index` builds and reads the
shards). Hashing is cached by (device, inode, size, mtime_ns, ctime_ns), so that planning a
large collection hashes only the documents that changed since the last time.

Free of pandas: the workflow's own process (the Snakefile) plans the shards once per call and
records each shard's documents and their keys in a small file named by the shard's key
(:func:`write_members`), so that the job that builds a shard reads its own documents' list
(:func:`read_members`) and neither lists the collection nor reads the keys of the others: its
memory stays that of one shard whatever the collection's size.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from inexflow.errors import InputError
from inexflow.io.atomic import write_json, write_text
from inexflow.io.content_keys import file_keys, stamps_of

# documents per shard (the workflow's config collection_shard_docs; its schema's default is
# this): a shard job holds its documents' rows in memory (about 160 elements per
# Wikipedia article: some 1.6 M rows at 10,000 articles), and a collection of 659,388 articles
# gives 66 shard jobs
DOCS_PER_SHARD = 10_000


def list_documents(collection) -> list[str]:
    """The ids of every document of ``collection`` (``*.xml`` files, recursively), sorted."""
    return scan_documents(collection, stat=False)[0]


# threads that list and stat a collection's folders side by side: the system calls run without
# Python's lock, so a stat that waits (a network filesystem) overlaps the others; on a local disk
# the per-document Python work holds the lock and they gain little (1.97 -> 1.86 s for 659,388
# articles on 2 cores, benchmarks/README.md)
SCAN_THREADS = min(8, os.cpu_count() or 1)


def scan_documents(collection, stat: bool = True) -> tuple[list[str], dict | None]:
    """The ids of every document of ``collection`` (``*.xml`` files, recursively), sorted, and
    with ``stat`` the (device, inode, size, mtime_ns, ctime_ns) of each
    (:func:`inexflow.io.content_keys.stamps_of`, in the same order): each folder is read once,
    its files stat-ed relative to it, by :data:`SCAN_THREADS` threads."""
    root = Path(collection)
    if not root.is_dir():
        raise InputError(root, None, "collection directory not found")
    names: list[str] = []
    stamps: list[dict] = []
    folders = [""]
    with ThreadPoolExecutor(SCAN_THREADS) as pool:
        while folders:
            subfolders = []
            for sub, docs, stamp in pool.map(partial(_scan_folder, str(root), stat=stat), folders):
                subfolders += sub
                names += docs
                stamps.append(stamp)
            folders = subfolders
    if "\n".join(names).count("\n") != max(len(names) - 1, 0):  # one line per document in a shard's members
        odd = next(d for d in names if "\n" in d)
        raise InputError(root, f"document {odd!r}", "a file name with a line break",
                         "file names without line breaks")
    order = sorted(range(len(names)), key=names.__getitem__)
    docs = [names[i] for i in order]
    if not stat:
        return docs, None
    at = np.asarray(order, dtype=np.int64)
    return docs, {c: np.concatenate([s[c] for s in stamps])[at] for c in stamps[0]}


def _scan_folder(root: str, rel: str, stat: bool) -> tuple[list[str], list[str], dict | None]:
    """One folder ``rel`` of the collection at ``root``: its subfolders, its documents (ids
    relative to ``root``, without ``.xml``) and, with ``stat``, their stamps. The folder is
    opened once and its files stat-ed relative to it (no path looked up from the root again)."""
    path = f"{root}/{rel}" if rel else root
    prefix = f"{rel}/" if rel else ""
    by_fd = os.scandir in os.supports_fd
    try:
        fd = os.open(path, os.O_RDONLY) if by_fd else None
    except OSError as e:
        raise InputError(path, None, f"folder cannot be read: {e.strerror}") from None
    subfolders, docs, files = [], [], []
    try:
        with os.scandir(fd if by_fd else path) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    subfolders.append(prefix + e.name)
                elif e.name.endswith(".xml") and e.is_file():
                    docs.append(prefix + e.name[:-4])
                    files.append(e)
        stats = []
        for e in files if stat else ():
            try:
                stats.append(e.stat())
            except OSError as err:
                raise InputError(f"{path}/{e.name}", None, f"document cannot be read: {err.strerror}") from None
    except OSError as e:
        raise InputError(path, None, f"folder cannot be read: {e.strerror}") from None
    finally:
        if fd is not None:
            os.close(fd)
    return subfolders, docs, stamps_of(stats) if stat else None


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


def _collection_tag(collection) -> str:
    """A short digest of the collection's absolute path, naming its files in the cache folder."""
    return hashlib.blake2b(str(Path(collection).resolve()).encode(), digest_size=8).hexdigest()


def _cache_file(cache: Path, collection: Path) -> Path:
    return cache / "keys" / f"{_collection_tag(collection)}.arrow"


def document_keys(collection, cache, docs: list[str] | None = None) -> dict[str, str]:
    """{doc: content key} of every document of ``collection`` (or of ``docs``), hashing only
    the files whose (device, inode, size, mtime_ns, ctime_ns) the cache in ``cache`` does not
    hold (:func:`inexflow.io.content_keys.file_keys`)."""
    collection, cache = Path(collection), Path(cache)
    try:
        docs, stamps = scan_documents(collection) if docs is None else (docs, None)
        return file_keys(_DocumentFiles(str(collection), docs), _cache_file(cache, collection), "document", stamps)
    except InputError as e:  # a document named by its id in the collection
        where = Path(e.path)
        if where.suffix != ".xml" or collection not in where.parents:
            raise
        raise InputError(collection, f"document {where.relative_to(collection).with_suffix('')}", e.problem) from None


class _DocumentFiles(Mapping):
    """{document id: its file}, each path made when it is asked for (a warm call of
    :func:`document_keys` asks only for the files it hashes)."""

    def __init__(self, root: str, docs: list[str]):
        self.root, self.docs = root, docs

    def __getitem__(self, doc: str) -> str:
        return f"{self.root}/{doc}.xml"

    def __iter__(self):
        return iter(self.docs)

    def __len__(self):
        return len(self.docs)


def shard_path(cache, key: str) -> str:
    """Where the shard of content key ``key`` is kept in the cache folder ``cache``."""
    return f"{cache}/index/{key}.arrow"


@dataclass(frozen=True)
class Shard:
    number: int
    shards: int
    docs: tuple[str, ...]
    key: str
    doc_keys: tuple[str, ...]  # the content key of each of docs

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


def _members_text(number: int, shards: int, docs, doc_keys) -> str:
    """A shard's members as :func:`write_members` writes them: a line ``number/shards``, then a
    line ``document<TAB>content key`` per document in id order. The shard's key is the digest
    of this text."""
    return f"{number}/{shards}\n" + "".join([f"{d}\t{k}\n" for d, k in zip(docs, doc_keys)])


def _key_of(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def _shard(number: int, shards: int, docs: list[str], keys: dict[str, str]) -> Shard:
    """A shard's key: made of its number, the number of shards and its documents' ids and
    content keys (the digest of :func:`_members_text`)."""
    doc_keys = [keys[d] for d in docs]
    return Shard(number, shards, tuple(docs), _key_of(_members_text(number, shards, docs, doc_keys)),
                 tuple(doc_keys))


def members_path(cache, key: str) -> str:
    """Where the members of the shard of content key ``key`` are recorded (:func:`write_members`)."""
    return f"{cache}/members/{key}.tsv"


def write_members(cache, shards: list[Shard]) -> None:
    """Record each shard's documents and their content keys (:func:`_members_text`) in
    :func:`members_path`, once: the file is named by the shard's key, which is the digest of
    its text, so a file already there holds the same text and is left alone (its date too).
    Each file is written atomically, so two campaigns writing one at once both leave it whole."""
    for s in shards:
        path = members_path(cache, s.key)
        if not os.path.exists(path):
            write_text(_members_text(s.number, s.shards, s.docs, s.doc_keys), path)


def read_members(cache, key: str) -> Shard:
    """The shard of content key ``key`` as the workflow's main process recorded it
    (:func:`write_members`): its number, the number of shards, its documents and their keys,
    read from its own file only. A missing file, or one whose text is not that of ``key``, is
    an :class:`~inexflow.errors.InputError` naming it."""
    path = members_path(cache, key)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, f"the shard's list of documents cannot be read ({getattr(e, 'strerror', e)})",
                         "the list the workflow writes when it plans the shards (run snakemake again)") from None
    if _key_of(text) != key:
        raise InputError(path, None, "the shard's list of documents does not match its key (changed since the "
                         "workflow wrote it)", "the list the workflow wrote (remove the file and run snakemake again)")
    head, _, body = text.partition("\n")
    number, shards = (int(x) for x in head.split("/"))
    rows = [line.rsplit("\t", 1) for line in body.split("\n")[:-1]]
    return Shard(number, shards, tuple(d for d, _ in rows), key, tuple(k for _, k in rows))


def plan_path(cache, collection, campaign: str) -> str:
    """Where the workflow's main process records campaign ``campaign``'s plan of ``collection``
    (:func:`write_plan`): in the cache folder, beside the shards, named by the campaign and the
    collection's absolute path."""
    return f"{cache}/plans/{campaign}-{_collection_tag(collection)}.json"


def write_plan(path, collection, per_shard: int | None, shards: list[Shard], folders: dict | None = None) -> None:
    """Record ``shards`` (the plan of ``collection`` at ``per_shard`` documents a shard) in
    ``path``, so that the processes that run the workflow's jobs (on a cluster, each builds the
    job's part of the DAG again) read the numbers and keys of the shards instead of listing and
    hashing the whole collection again (:func:`read_plan`); with ``folders``, the collection's
    folders as :func:`folder_stamps` found them before the plan was made, for
    :func:`unchanged_plan`."""
    plan = {"collection": str(Path(collection).resolve()), "per_shard": per_shard or DOCS_PER_SHARD,
            "shards": {s.key: s.number for s in shards}}
    write_json(plan | ({"folders": folders} if folders is not None else {}), path)


def _read_plan(path, collection, per_shard: int | None) -> dict | None:
    """The plan recorded at ``path`` for the same collection and shard size, else None."""
    try:
        plan = json.loads(Path(path).read_text(encoding="utf-8"))
        same = (plan["collection"] == str(Path(collection).resolve())
                and plan["per_shard"] == (per_shard or DOCS_PER_SHARD))
        return plan if same else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def read_plan(path, collection, per_shard: int | None) -> dict[str, int] | None:
    """{shard key: shard number} as :func:`write_plan` recorded them for the same collection
    and shard size; None where there is no such plan (absent, unreadable, or made for another
    collection or size: the caller plans then)."""
    plan = _read_plan(path, collection, per_shard)
    try:
        return {str(k): int(n) for k, n in plan["shards"].items()} if plan else None
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


# how the workflow notices a changed collection on each call (the config's collection_check; its
# schema's default is the first): every document's file stat-ed (a document added, removed,
# replaced or edited in place is seen), or only the folders (one added, removed or moved in or
# out changes its folder's modification time; one edited in place does not)
COLLECTION_CHECKS = ("files", "folders")


def folder_stamps(collection) -> dict[str, list[int]]:
    """{folder relative to ``collection`` ("" for itself): [inode, mtime_ns, ctime_ns]} of every
    folder of the collection: a folder's modification time changes when an entry is added to
    it, removed or renamed (a file moved in or out, a subfolder made), not when a file in it is
    written in place. Reads only the folders' entries' types, no document's ``stat``."""
    root = Path(collection)
    out = {}
    for here, subfolders, _ in os.walk(root):
        subfolders.sort()
        st, rel = os.stat(here), Path(here).relative_to(root).as_posix()
        out["" if rel == "." else rel] = [st.st_ino, st.st_mtime_ns, st.st_ctime_ns]
    return out


def unchanged_plan(path, collection, per_shard: int | None, cache) -> dict[str, int] | None:
    """{shard key: shard number} of the plan at ``path`` (:func:`write_plan` with ``folders``)
    when every folder it recorded is still as it was, no folder was added (its parent's time
    changed) and every shard's list of documents is still in the cache folder ``cache``;
    else None, and the caller plans again. One ``stat`` per folder instead of one per
    document: a document edited in place is not seen (the config's ``collection_check:
    folders``, for a collection that never changes)."""
    plan = _read_plan(path, collection, per_shard)
    folders = plan.get("folders") if plan else None
    if not isinstance(folders, dict) or not folders:
        return None
    root = Path(collection)
    for rel, stamp in folders.items():
        try:
            st = os.stat(root / rel)
        except OSError:
            return None
        if [st.st_ino, st.st_mtime_ns, st.st_ctime_ns] != stamp:
            return None
    shards = read_plan(path, collection, per_shard)
    if not shards or not all(os.path.exists(members_path(cache, k)) for k in shards):
        return None
    return shards


def _plan_shards(plan: Path) -> set[str] | None:
    """The shard keys a recorded plan names; None for a plan that cannot be read."""
    try:
        return {str(k) for k in json.loads(plan.read_text(encoding="utf-8"))["shards"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def collection_files(cache, collection) -> list[Path]:
    """The files of the cache folder ``cache`` that hold ``collection``'s index: the plans of it
    that campaigns recorded (:func:`plan_path`), the shard files and member lists those plans
    name, and the table of its documents' digests (:func:`document_keys`). Removing them indexes
    that collection again from scratch and leaves every other collection's shards in the shared
    cache (``benchmarks/campaign.py`` does so before a full run); a campaign whose plan named
    them stops at its next run with the line that asks for ``--forcerun index_collection``."""
    cache = Path(cache)
    plans = sorted((cache / "plans").glob(f"*-{_collection_tag(collection)}.json"))
    keys = {k for plan in plans for k in _plan_shards(plan) or ()}  # an unreadable plan names none; removed too
    shards = [Path(p) for k in sorted(keys) for p in (shard_path(cache, k), members_path(cache, k))]
    return [p for p in [*plans, *shards, _cache_file(cache, Path(collection))] if p.exists()]


def unused_files(cache) -> tuple[list[Path], int, int]:
    """The shard files and member lists in the cache folder ``cache`` that no recorded plan
    names (``plans/*.json``, one per campaign and collection, :func:`write_plan`): those of
    shards superseded by changed or added documents, which the workflow never removes itself
    (another campaign may still use them). Returns them, the number of shards kept and of plans
    read. An unreadable plan is an :class:`~inexflow.errors.InputError`: nothing can be known
    unused then; without any plan nothing is."""
    cache = Path(cache)
    if not cache.is_dir():
        raise InputError(cache, None, "collection cache folder not found", "the folder of the config's collection_cache")
    keep: set[str] = set()
    plans = sorted((cache / "plans").glob("*.json"))
    for plan in plans:
        shards = _plan_shards(plan)
        if shards is None:
            raise InputError(plan, None, "the plan cannot be read", "a plan the workflow wrote (remove it if its "
                             "campaign is gone: its shards are then unused)")
        keep |= shards
    if not plans:
        return [], 0, 0
    unused = [f for folder, suffix in (("index", ".arrow"), ("members", ".tsv"))
              for f in sorted((cache / folder).glob(f"*{suffix}")) if f.stem not in keep]
    return unused, len(keep), len(plans)

