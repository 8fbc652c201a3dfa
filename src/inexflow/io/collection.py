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

Only the documents asked for are read. Each is checked by libxml2 (a malformed document is an
error naming its line) and brought to a form where every ``<`` opens a tag and the next ``>``
closes it (:func:`_document_bytes`: most documents are already in it; others are written out
by lxml). Then the rows of a batch of documents (:data:`BATCH_BYTES` of them) are computed
by array operations over all their bytes (:func:`_index_batch`), with no Python call per
element: tag positions by one byte comparison, text lengths from the byte counts between
tags less UTF-8 continuation bytes and references, depth by a cumulative sum of +1/-1 per
tag, each element's end tag by pairing start and end tags per depth, parents by a binary
search one depth up, names by 64-bit word operations on the bytes after ``<``
(:func:`_tag_names`), and xpaths one depth at a time from the distinct (parent xpath, step)
pairs (:func:`_xpaths`). ``tests/test_index_reference.py`` checks the rows against a visit
of lxml's tree, element by element, on generated documents with every construct; the
speed against a bare ``lxml.etree.parse`` is ``benchmarks/index_speed.py``'s.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from lxml import etree

from inexflow.errors import InputError, read_bytes, warn_input
from inexflow.io.xmlutil import check_xml, parse_xml

INDEX_COLUMNS = {"doc": "object", "xpath": "object", "tag": "object", "start": "int64", "end": "int64",
                 "depth": "int64", "parent": "int64"}
# the index as Arrow columns: strings dictionary-encoded (an xpath, a tag name, a document id
# repeats across the rows)
INDEX_SCHEMA = pa.schema([(c, pa.dictionary(pa.int32(), pa.string()) if t == "object" else pa.int64())
                          for c, t in INDEX_COLUMNS.items()])


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


# Documents are scanned in batches of about this many bytes
BATCH_BYTES = 8 << 20

_LT, _GT, _SLASH, _AMP, _SEMI, _BANG, _QUESTION = (ord(c) for c in "<>/&;!?")
# bytes of a tag read at once to find its name (names as long are read one by one)
_WINDOW = 24
_NAME_END_RE = re.compile(rb"[\s/>]")
_PROLOG = re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:<\?xml(?:[^?]|\?(?!>))*\?>)?\s*(?=<[^?!])")
_ENCODING = re.compile(rb"encoding\s*=\s*[\"']([^\"']*)[\"']")


def _document_bytes(path) -> bytes:
    """The document from its root's ``<`` to its last ``>``, checked by libxml2 (a malformed
    document is an error naming its line), in a form where every ``<`` opens a tag and the
    next ``>`` closes it, and every ``&`` in the text starts a reference that stands for one
    character.

    A document in UTF-8 with no DTD, comment, processing instruction, CDATA section, carriage
    return or unescaped ``>`` is already in that form: it is checked without a tree
    (:func:`~inexflow.io.xmlutil.check_xml`) and taken as it is. This function looks at the
    encoding, the prolog and carriage returns; :func:`_index_batch` finds the rest by array
    operations and has any other document written out by :func:`_written_out`."""
    data = read_bytes(path, "document")
    prolog = _PROLOG.match(data)
    if prolog is not None and b"\r" not in data:
        enc = _ENCODING.search(prolog.group(0))
        if enc is None or enc.group(1).lower() in (b"utf-8", b"utf8", b"us-ascii"):
            check_xml(path, data)
            return data[prolog.end():data.rfind(b">") + 1]
    return _written_out(path, data)


def _written_out(path, data: bytes | None = None) -> bytes:
    """The document parsed and written out by lxml: UTF-8, comments and processing
    instructions dropped (their tails stay in the text), CDATA as escaped text, internal
    entities resolved, '>' escaped."""
    root = parse_xml(path, "document", read_bytes(path, "document") if data is None else data)
    etree.strip_elements(root, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    return etree.tostring(root, encoding="utf-8")


def _not_plain(buf: np.ndarray, lt: np.ndarray, gt: np.ndarray, doc_first: np.ndarray) -> np.ndarray:
    """The documents (numbers) with a ``<!`` or ``<?`` (a comment, CDATA section, DTD or
    processing instruction) or an unescaped ``>`` (more of them than of ``<``)."""
    odd = lt[(buf[lt + 1] == _BANG) | (buf[lt + 1] == _QUESTION)]
    counts_differ = np.diff(np.r_[np.searchsorted(lt, doc_first), len(lt)]) != \
        np.diff(np.r_[np.searchsorted(gt, doc_first), len(gt)])
    return np.union1d(np.searchsorted(doc_first, odd, side="right") - 1, np.flatnonzero(counts_differ))


def _index_batch(docs: list[str], blobs: list[bytes], paths: list) -> pa.Table:
    """The index rows of documents in the form :func:`_document_bytes` gives, computed by array
    operations over all their bytes at once: no Python call per element."""
    joined = b"".join([*blobs, bytes(_WINDOW)])  # zeros after the last document: every tag has a full window
    buf = np.frombuffer(joined, dtype=np.uint8)
    size = len(buf) - _WINDOW
    doc_first = np.cumsum([0] + [len(b) for b in blobs[:-1]], dtype=np.int64)
    marks = np.flatnonzero((buf | 2) == _GT)  # '<' (0x3c) and '>' (0x3e), found in one pass
    opening = buf[marks] == _LT
    lt, gt = marks[opening], marks[~opening]
    redo = _not_plain(buf, lt, gt, doc_first)
    if len(redo):
        for i in redo.tolist():
            blobs[i] = _written_out(paths[i])
        return _index_batch(docs, blobs, paths)  # written out, every document is plain
    if len(lt) != len(gt) or np.any(gt < lt) or np.any(gt[:-1] > lt[1:]):
        raise RuntimeError("serialised document does not alternate < and >")  # cannot happen (_document_bytes)

    # characters of the text between tag i and tag i + 1: its bytes less UTF-8 continuation
    # bytes, less the bytes of each reference after its '&' (a reference stands for one character)
    text_end = np.r_[lt[1:], size]
    segment = text_end - gt - 1
    if not joined.isascii():
        cont = np.flatnonzero((buf & 0xC0) == 0x80)
        segment -= np.searchsorted(cont, text_end) - np.searchsorted(cont, gt)
    if b"&" in joined:
        amp = np.flatnonzero(buf == _AMP)
        amp = amp[np.searchsorted(gt, amp) == np.searchsorted(lt, amp)]  # as many '>' as '<' before it: text
        semi = np.flatnonzero(buf == _SEMI)
        segment -= np.bincount(np.searchsorted(gt, amp) - 1, semi[np.searchsorted(semi, amp)] - amp,
                               len(segment)).astype(np.int64)
    before = np.r_[0, np.cumsum(segment)[:-1]]  # characters before each tag
    doc_tags = np.searchsorted(lt, doc_first)  # each document's first tag
    tag_doc = np.repeat(np.arange(len(docs)), np.diff(np.r_[doc_tags, len(lt)]))
    before -= before[doc_tags][tag_doc]  # counted from the document's start

    # nesting: a tag's level is its element's depth; per level, in document order, the start and
    # end tags of non-empty elements alternate, which pairs each element with its end tag
    closing = buf[lt + 1] == _SLASH
    empty = buf[gt - 1] == _SLASH
    step = np.where(closing, -1, np.where(empty, 0, 1)).astype(np.int32)
    level = np.cumsum(step, dtype=np.int32) + (step != 1)
    paired = np.flatnonzero(~empty)
    paired = paired[np.argsort(_small(level[paired]), kind="stable")]
    opens, closes = paired[0::2], paired[1::2]
    if len(opens) != len(closes) or closing[opens].any() or not closing[closes].all():
        raise RuntimeError("serialised document is not nested")  # cannot happen: lxml parsed it
    end_tag = np.arange(len(lt))
    end_tag[opens] = closes
    el = np.flatnonzero(~closing)
    row = np.cumsum(~closing) - 1  # an element tag's row among the elements
    depth = level[el].astype(np.int64)
    # the parent: the last non-empty start tag one level up (opens is in (level, position) order)
    keyed = level[opens].astype(np.int64) * len(lt) + opens
    above = opens[np.maximum(np.searchsorted(keyed, (depth - 1) * len(lt) + el) - 1, 0)] if len(opens) else el
    parent_row = np.where(depth == 1, -1, row[above])
    doc = tag_doc[el]
    first_row = np.searchsorted(doc, np.arange(len(docs)))

    tag_code, names = _tag_names(buf, lt[el] + 1)
    xcode, xpaths = _xpaths(tag_code, names, depth, parent_row)
    start = before[el]
    return pa.table({
        "doc": _coded(doc, pa.array(docs, pa.string())), "xpath": _coded(xcode, xpaths), "tag": _coded(tag_code, names),
        "start": start,
        "end": np.where(empty[el], start, before[end_tag[el]]), "depth": depth,
        "parent": np.where(depth == 1, -1, parent_row - first_row[doc])})


def _coded(codes: np.ndarray, values: pa.Array) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), values)


def _small(a: np.ndarray) -> np.ndarray:
    """``a`` as int16 where it fits: numpy sorts int16 by radix, stably and in linear time."""
    return a.astype(np.int16) if len(a) and a.min() >= -32768 and a.max() < 32768 else a


def _tag_names(buf: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """(code of each tag's local name, the names): a tag name runs from ``first`` to the first
    white space, '/' or '>'. The :data:`_WINDOW` bytes from ``first`` are read as three 64-bit
    words, the name's end found by word operations and the bytes after it zeroed; the windows
    are hashed by Arrow and only the distinct names are decoded. ``buf`` ends in a window of
    zeros; a name as long as the window is read byte by byte (:func:`_long_names`)."""
    n = len(first)
    words = np.lib.stride_tricks.sliding_window_view(buf, _WINDOW)[first].view("<u8")
    length = np.full(n, -1, dtype=np.int64)
    pending = np.arange(n)
    for k in range(_WINDOW // 8):  # most names end in the first word
        w = words[pending, k]
        low = _below(w, 0x21) | _equal(w, _SLASH) | _equal(w, _GT)
        low &= ~low + np.uint64(1)  # the lowest flag: the first delimiter (flags above it may be false)
        hit = low != 0
        length[pending[hit]] = 8 * k + np.log2(low[hit].astype(np.float64)).astype(np.int64) // 8
        pending = pending[~hit]
    found = length >= 0
    length[~found] = 0
    words &= _KEEP[np.clip(length[:, None] - 8 * np.arange(_WINDOW // 8), 0, 8)]
    coded = pa.Array.from_buffers(pa.binary(_WINDOW), n, [None, pa.py_buffer(words)]).dictionary_encode()
    found_names = [v.rstrip(b"\0").decode("utf-8") for v in coded.dictionary.to_pylist()]
    code = coded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    long_rows = np.flatnonzero(~found)
    long_names = _long_names(buf, first[long_rows]) if len(long_rows) else []
    code[long_rows] = len(found_names) + np.arange(len(long_rows))
    qualified = found_names + long_names
    local = [q.rsplit(":", 1)[-1] for q in qualified]
    names = list(dict.fromkeys(local[c] for c in np.unique(code)))  # prefixes of one local name merge
    position = {name: i for i, name in enumerate(names)}
    remap = np.array([position.get(name, -1) for name in local], dtype=np.int64)
    return remap[code], pa.array(names, pa.string())


_ONES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_KEEP = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # the low k bytes of a word


def _below(words: np.ndarray, value: int) -> np.ndarray:
    """The high bit of each byte of ``words`` that is below ``value`` (at most 0x80); exact for
    the lowest such byte of each word (a borrow can flag bytes above it)."""
    return (words - _ONES * np.uint64(value)) & ~words & _HIGH


def _equal(words: np.ndarray, value: int) -> np.ndarray:
    """The high bit of each byte of ``words`` equal to ``value``; exact for the lowest one."""
    return _below(words ^ (_ONES * np.uint64(value)), 1)


def _long_names(buf: np.ndarray, first: np.ndarray) -> list[str]:
    """The names at ``first`` that fill a whole window, found by searching each one's bytes."""
    data = buf.tobytes()
    ends = [_NAME_END_RE.search(data, int(f)).start() for f in first]
    return [data[f:e].decode("utf-8") for f, e in zip(first.tolist(), ends)]


def _xpaths(tag_code: np.ndarray, names: pa.Array, depth: np.ndarray, parent_row: np.ndarray):
    """(code of each element's xpath, the distinct xpaths). Built one depth at a time: an
    element's step is ``/name[k]`` (k its rank among its parent's children of that name), its
    xpath its parent's then its step; each depth's distinct (parent xpath, step) pairs are found
    by hashing and only those strings are made."""
    xcode = np.zeros(len(depth), dtype=np.int64)
    strings: list[pa.Array] = []
    prev: pa.Array | None = None
    offset = 0
    n_names = max(len(names), 1)
    by_depth = np.argsort(_small(depth), kind="stable")  # each depth's elements in document order
    bounds = np.searchsorted(depth[by_depth], np.arange(1, int(depth.max()) + 2 if len(depth) else 1))
    tags, parents = tag_code[by_depth], parent_row[by_depth]
    for d in range(1, len(bounds)):
        lo, hi = bounds[d - 1], bounds[d]
        at = by_depth[lo:hi]  # parents in document order, each one's children together
        order = np.argsort(_small(tags[lo:hi]), kind="stable")
        t, p = tags[lo:hi][order], parents[lo:hi][order]
        new = np.r_[True, (t[1:] != t[:-1]) | (p[1:] != p[:-1])]
        starts = np.flatnonzero(new)
        rank = np.empty(len(at), dtype=np.int64)
        rank[order] = np.arange(len(at)) - np.repeat(starts, np.diff(np.r_[starts, len(at)]))
        if d == 1:
            rank[:] = 0  # each document's root
        above = xcode[parents[lo:hi]] - (offset - len(prev)) if prev is not None else np.zeros(len(at), np.int64)
        ranks = int(rank.max()) + 1
        key = (above * n_names + tags[lo:hi]) * ranks + rank
        coded = pa.array(key).dictionary_encode()
        uniq = coded.dictionary.to_numpy()
        u_rank, u_rest = uniq % ranks, uniq // ranks
        u_tag, u_above = u_rest % n_names, u_rest // n_names
        steps = pc.binary_join_element_wise("/", names.take(pa.array(u_tag)), "[",
                                            pa.array(u_rank + 1).cast(pa.string()), "]", "")
        level_strings = steps if prev is None else pc.binary_join_element_wise(prev.take(pa.array(u_above)), steps, "")
        xcode[at] = offset + coded.indices.to_numpy(zero_copy_only=False)
        strings.append(level_strings)
        prev = level_strings
        offset += len(level_strings)
    return xcode, (pa.concat_arrays(strings) if strings else pa.array([], pa.string()))


def index_files(files) -> pa.Table:
    """Index rows of the documents ``files`` ((doc, path) pairs), in that order: one
    :func:`_document_bytes` per document, then array operations over batches of them."""
    parts, docs, blobs, paths, size = [], [], [], [], 0
    for doc, path in files:
        blob = _document_bytes(path)
        docs.append(doc)
        blobs.append(blob)
        paths.append(path)
        size += len(blob)
        if size >= BATCH_BYTES:
            parts.append(_index_batch(docs, blobs, paths))
            docs, blobs, paths, size = [], [], [], 0
    if docs:
        parts.append(_index_batch(docs, blobs, paths))
    return pa.concat_tables(parts) if parts else INDEX_SCHEMA.empty_table()


def index_document(path, doc: str) -> list[tuple]:
    """Rows (doc, xpath, tag, start, end, depth, parent) for one document."""
    table = index_files([(doc, path)])
    return list(zip(*(table[c].to_pylist() for c in INDEX_COLUMNS)))


def index_table(collection, docs, missing: str = "error", log=None) -> pa.Table:
    """The index of the documents ``docs`` of ``collection`` as an Arrow table
    (:data:`INDEX_SCHEMA`).

    ``missing='error'`` makes a document absent from the collection an error naming it;
    ``'warn'`` logs it and leaves it out (its results then cannot be resolved).
    """
    collection = Path(collection)
    if not collection.is_dir():
        raise InputError(collection, None, "collection directory not found" if not collection.exists()
                         else "is not a directory", "the collection's directory of XML documents")
    docs = list(dict.fromkeys(docs))

    def files():
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
            yield doc, p
            if log and i % 1000 == 0:
                log.info("indexed %d/%d documents", i, len(docs))

    return index_files(files())


def index_collection(collection, docs, missing: str = "error", log=None) -> pd.DataFrame:
    """:func:`index_table` as a DataFrame (dtypes :data:`INDEX_COLUMNS`)."""
    return index_table(collection, docs, missing, log).to_pandas().astype(INDEX_COLUMNS)


def elements_covering(index: pd.DataFrame, doc: str, start: int, end: int) -> pd.DataFrame:
    """Elements of ``doc`` whose extent lies within [start, end) (character range -> xpaths)."""
    d = index[index["doc"] == doc]
    return d[(d["start"] >= start) & (d["end"] <= end) & (d["end"] > d["start"])]

