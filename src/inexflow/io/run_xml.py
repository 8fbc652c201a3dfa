"""INEX XML run submissions.

``<inex-submission participant-id=".." run-id=".." task=".." ...><topic topic-id="..">
<result><file>..</file><path>..</path> | <fol offset=".." length=".."/><rank>..</rank>
<rsv>..</rsv></result>...</topic></inex-submission>``. ``rank`` and ``rsv`` are optional;
without ranks the results are ordered by descending rsv, then file order.
"""

from __future__ import annotations

import functools
import math
import re
from xml.sax.saxutils import quoteattr

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from lxml import etree

from inexflow.errors import InputError, warn_input
from inexflow.io.atomic import write_text
from inexflow.io.canonical import RESULT_COLUMNS, RunTable, check_duplicates, check_scores_and_ranks, order_results
from inexflow.io.compressed import read_bytes
from inexflow.io.task_labels import normalise_task, unknown_task
from inexflow.io.xmlutil import attr, check_tag, local, parse_xml, safe_parser, where
from inexflow.io.xpath import canonical_xpath


def _num(path, el, text, what, conv):
    try:
        v = conv(text)
    except ValueError:
        raise InputError(path, where(el), f"{what} {text!r} is not a number") from None
    if isinstance(v, float) and math.isnan(v):
        raise InputError(path, where(el), f"{what} is NaN")
    return v


def _twice(path, ch):
    """A second <file>, location, <rank> or <rsv> in one result: taking either would be a guess."""
    raise InputError(path, where(ch), f"<{local(ch.tag)}> repeats a child already given in this <result>",
                     "one <file>, one <path> or <fol>, at most one <rank> and one <rsv> per <result>")


# The common shape of an element submission is read by a vectorised scan of its bytes
# (:func:`_scan`, several times faster than building the tree on a 160,000-result run). The scan
# takes only what it reads exactly as the tree reader does: UTF-8 with no DTD, comment, CDATA,
# processing instruction or reference after the header; after the header, every "<" opens one of
# <topic topic-id="..">, </topic>, <result>, <file>, <path>, <rank>, <rsv> or their end tags, in the
# order topic (result (file path [rank] [rsv]))* with rank and rsv given for every result or for
# none; ASCII values on one line each that the tree reader accepts without a warning. The header
# (the root start tag and what precedes the first topic) is parsed by the safe parser. Anything
# else (a <fol>, a namespace, an odd value) goes to the tree reader, which says what is wrong; a
# test checks that both readers give the same table on runs of varied shapes. Where each line of
# the body is one whole result, a topic tag or blank (as submissions are written), pyarrow's CSV
# reader splits the lines at "<" in C (:func:`_scan_lines`, about 3x the tag scan on a 160,000-result
# run), and every byte of the body is checked in the field it falls in (a tag, a value, the
# indentation), so the whole file is never searched byte by byte; any other layout is read from
# the tags' byte positions (:func:`_scan_tags`), after the whole file is checked. Both give the
# results' topics, documents and xpaths as integer codes too (:meth:`RunTable.attach_codes`), which
# the checks, the ordering and the element families use instead of the strings.
_FIRST_TOPIC = re.compile(rb"<topic[\s>/]")
_ROOT = re.compile(rb"\s*(?:<\?xml[^<>]*\?>)?\s*<([A-Za-z_][\w.-]*)[\s>]")
_ENCODING = re.compile(rb"\s*<\?xml[^<>]*?encoding\s*=\s*[\"']([^\"']*)[\"']")
_TAIL = re.compile(rb"[ \t\r\n]*</([A-Za-z_][\w.-]*)>[ \t\r\n]*")  # what follows the last </topic>
_TOPIC_TAG = re.compile(rb'<topic\s+topic-id="([^"<&\s]+)"\s*>')
_CONTROL = bytes(range(9)) + b"\x0b\x0c" + bytes(range(14, 32))  # not allowed in XML 1.0
_HIDDEN = r"[\x00-\x08\x0b\x0c\x0e-\x1f]|\]\]>"  # in a value: a character XML 1.0 refuses, or "]]>"
# one letter per tag, and the order they must come in (a lower-case letter ends its element)
_TAGS = {b"<result>": "R", b"</result>": "r", b"<file>": "F", b"</file>": "f", b"<path>": "P",
         b"</path>": "p", b"<rank>": "K", b"</rank>": "k", b"<rsv>": "V", b"</rsv>": "v", b"</topic>": "t"}
_INT = "-?[0-9]{1,18}"
_RSV = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


def _clean(data: bytes) -> bool:
    """No DTD, comment, CDATA or character XML 1.0 refuses in ``data``."""
    return b"<!" not in data and b"]]>" not in data and len(data.translate(None, _CONTROL)) == len(data)


def _scan(data: bytes):
    """(root, results in file order, all ranked, codes) of a submission in the common shape
    (comment above), or None: read line by line where every result is one line
    (:func:`_scan_lines`), else by the tags' byte positions (:func:`_scan_tags`). ``codes``: as
    :func:`_table` gives them."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    head, first, enc = _ROOT.match(data), _FIRST_TOPIC.search(data), _ENCODING.match(data)
    if head is None or first is None or (enc and enc.group(1).lower() not in (b"utf-8", b"utf8", b"us-ascii")):
        return None
    body, end = first.start(), data.rfind(b"</topic>") + len(b"</topic>")
    tail = _TAIL.fullmatch(data, end) if end > body else None
    # the header and the tail are checked here (single-byte searches and short slices), the body
    # in its fields (_scan_lines) or as a whole (before _scan_tags)
    if tail is None or tail.group(1) != head.group(1) or not _clean(data[:body]) or data.find(b"&", body) >= 0:
        return None
    try:
        root = etree.fromstring(data[:body] + b"</" + head.group(1) + b">", safe_parser())
    except etree.XMLSyntaxError:
        return None
    scanned = _scan_lines(data, body, end)
    if scanned is None and data.find(b"<?", body) < 0 and _clean(data) and data[body:end].isascii():
        scanned = _scan_tags(data, body, end)
    return None if scanned is None else (root, *scanned)


def _scan_tags(data: bytes, body: int, end: int):
    """(results, all ranked, codes) of the body ``data[body:end]`` read from the byte positions
    of its tags, whatever its layout; None where it is not in the common shape."""
    codes = np.frombuffer(data + bytes(16), dtype=np.uint8)
    lt = np.flatnonzero(codes[body:end] == 60) + body  # every "<" of the body
    nxt = np.r_[lt[1:], end]  # where the text after each tag ends
    # the 8 bytes from each "<" as one little-endian integer (an unaligned view, one byte apart)
    head8 = np.ndarray((len(codes) - 7,), dtype="<u8", buffer=codes, strides=(1,))[lt]
    letter = np.full(len(lt), ord("?"), dtype=np.uint8)
    for tag, ch in _TAGS.items():
        hit = (head8 & np.uint64(2 ** (8 * min(len(tag), 8)) - 1)) == _u8(tag[:8])
        if len(tag) > 8:
            hit &= codes[lt + 8] == tag[8]
        letter[hit] = ord(ch)
    is_topic = ((head8 & np.uint64(2 ** 48 - 1)) == _u8(b"<topic")) & np.isin(codes[lt + 6], list(b" \t\n\r"))
    letter[is_topic] = ord("T")
    at = {ch: np.flatnonzero(letter == ord(ch)) for ch in "TtRFPKV"}
    n = len(at["R"])
    if len(at["K"]) not in (0, n) or len(at["V"]) not in (0, n) or not _in_order(letter, at, n):
        return None
    topics = []
    for i in at["T"].tolist():
        m = _TOPIC_TAG.match(data, int(lt[i]), int(nxt[i]))
        if m is None:
            return None
        topics.append(m.group(1).decode())
    try:
        docs = _field(codes, lt, nxt, at["F"], len(b"<file>"))
        xpaths = _field(codes, lt, nxt, at["P"], len(b"<path>"))
        ranks = _field(codes, lt, nxt, at["K"], len(b"<rank>"), _INT, "int64") if len(at["K"]) else None
        rsvs = _field(codes, lt, nxt, at["V"], len(b"<rsv>"), _RSV, "float64") if len(at["V"]) else None
    except _Unusual:
        return None
    line = np.searchsorted(np.flatnonzero(codes[:len(data)] == 10), lt[at["R"]]) + 1
    return _table(topics, np.searchsorted(at["T"], at["R"]) - 1, docs, xpaths, ranks, rsvs, line)


_canonical_xpath = functools.lru_cache(maxsize=1 << 16)(canonical_xpath)  # a call's runs share their xpaths


def _recoded(values: list, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values, codes) of the rows ``values[codes]`` (``values`` may repeat one),
    numbered in order of first appearance where ``values`` are."""
    code_of, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=False)
    return uniques.astype(object, copy=False), code_of.astype(np.int64, copy=False)[codes]


def _table(topics: list, block: np.ndarray, docs, xpaths, ranks, rsvs, line):
    """The scanned results as the canonical table (object strings, as the tree reader gives
    them), whether all are ranked, and the codes of its topics, documents and xpaths
    (``{"topic": (codes, distinct values)}``, numbered in order of first appearance, for
    :meth:`RunTable.attach_codes`); None where a value is one the scans leave to the tree
    reader. ``topics``: the id of each <topic>, ``block``: each result's topic in it; ``docs``,
    ``xpaths``: (values, codes) of their stripped texts; ``ranks``, ``rsvs``: arrays or None."""
    (doc_u, doc_i), (xp_u, xp_i) = docs, xpaths
    try:
        xp_u = [_canonical_xpath(x) for x in xp_u.tolist()]
    except ValueError:
        return None
    if (doc_u == "").any():
        return None
    codes = {"doc": _recoded([d[:-4] if d.endswith(".xml") else d for d in doc_u.tolist()], doc_i),
             "xpath": _recoded(xp_u, xp_i)}
    if np.bincount(block, minlength=len(topics)).all():  # every topic holds a result: first seen in order
        codes["topic"] = _recoded(topics, block)
    else:
        seen, at = pd.factorize(np.asarray(topics, dtype=object)[block])
        codes["topic"] = (at.astype(object, copy=False), seen.astype(np.int64, copy=False))
    n = len(line)
    obj = lambda a: pd.Series(a, dtype=object, copy=False)  # noqa: E731  (as the canonical table holds them)
    # the columns as they are (arrays made here, the numbers copied out of Arrow's read-only buffers)
    df = pd.DataFrame({
        **{k: obj(codes[k][0][codes[k][1]]) for k in ("topic", "doc", "xpath")},
        "offset": np.full(n, -1, dtype=np.int64), "length": np.full(n, -1, dtype=np.int64),
        "rank": np.array(ranks, dtype=np.int64) if ranks is not None else np.zeros(n, dtype=np.int64),
        "rsv": np.array(rsvs, dtype=np.float64) if rsvs is not None else np.full(n, np.nan),
        "line": np.array(line, dtype=np.int64)}, copy=False)
    return df, ranks is not None, {k: (c, u) for k, (u, c) in codes.items()}


# a line of the body that is not a result, in the layout :func:`_scan_lines` reads (XML's white
# space only: a control character anywhere leaves the run to the tree reader)
_LINE_TOPIC = re.compile(r'[ \t]*<topic[ \t]+topic-id="([^"<&\x00-\x20]+)"[ \t]*>[ \t]*')
_LINE_END_TOPIC = re.compile(r"[ \t]*</topic>[ \t]*")
_LINE_BLANK = re.compile(r"[ \t]*")
# the fields of a result line split at "<": indentation, then each tag with the text after it
_RESULT_FIELDS = {7: ("result>", "file>", "/file>", "path>", "/path>", "/result>")}
_RESULT_FIELDS[9] = (*_RESULT_FIELDS[7][:5], "rank>", "/rank>", "/result>")
_RESULT_FIELDS[11] = (*_RESULT_FIELDS[9][:7], "rsv>", "/rsv>", "/result>")


def _scan_lines(data: bytes, body: int, end: int):
    """(results, all ranked, codes) of the body ``data[body:end]`` when each of its lines is one
    whole result (``<result><file>..</file><path>..</path>[<rank>..</rank>][<rsv>..</rsv>]
    </result>``, indented), a topic's start or end tag, or blank, as submissions are usually
    written: pyarrow's CSV reader splits the lines at "<" (a callback sees the few that are not
    results) and dictionary-encodes the fields that hold a start tag and its element's text as
    it reads them. Every byte of the body is checked in its field: the tags exactly, the indentation
    as spaces and tabs, the values' distinct texts for what XML refuses. None for any other
    layout (:func:`_scan_tags` reads it)."""
    start = data.rfind(b"\n", 0, body) + 1
    if data[start:body].strip() or data.find(b"\r", start, end) >= 0:
        return None
    first = data.find(b"<result>", start, end)
    ncols = data.count(b"<", first, data.find(b"\n", first, end)) + 1 if first >= 0 else 0
    if ncols not in (7, 9, 11):
        return None
    names = [str(i) for i in range(ncols)]
    texts = names[2:-1:2]  # the fields of a start tag and the element's text: dictionary-encoded as they are read
    types = {k: pa.dictionary(pa.int32(), pa.binary()) if k in texts else pa.binary() for k in names}
    other: list[tuple[int, str]] = []
    try:
        table = pacsv.read_csv(
            pa.py_buffer(memoryview(data)[start:end]),
            read_options=pacsv.ReadOptions(column_names=names, block_size=end - start + 1, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter="<", quote_char=False, ignore_empty_lines=False,
                                             invalid_row_handler=lambda row: other.append((row.number, row.text))
                                             or "skip"),
            convert_options=pacsv.ConvertOptions(column_types=types,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None
    # the other lines: topics' start and end tags, in turn, and blank lines
    topic_at, topics, kinds = [], [], []
    for number, text in other:
        m = _LINE_TOPIC.fullmatch(text)
        if m is not None and not m.group(1).isascii():
            return None
        if m is not None or _LINE_END_TOPIC.fullmatch(text):
            topic_at.append(number)
            kinds.append(m is not None)
            topics.append(m.group(1) if m else "")
        elif not _LINE_BLANK.fullmatch(text):
            return None
    lines = len(table) + len(other)  # every line is a row: none is skipped; the last is "</topic>"
    if not kinds or kinds != [True, False] * (len(kinds) // 2) or len(kinds) % 2 or other[-1][0] != lines:
        return None
    row_at = np.ones(lines + 1, dtype=bool)  # the line of each row of the table
    row_at[[0, *(number for number, _ in other)]] = False
    row_at = np.flatnonzero(row_at)
    empty = np.diff(_bytes_of(_one_chunk(table.column(1)))[0]) == 0  # an empty line is a row of empty fields
    keep = pa.array(~empty) if empty.any() else None
    row_at = row_at if keep is None else row_at[~empty]
    cols = [_one_chunk(table.column(k), keep) for k in names]
    if not len(row_at):
        return None
    _, indentation = _bytes_of(cols[0])
    if not ((indentation == 32) | (indentation == 9)).all():
        return None  # text before a result on its line
    # the value fields (a start tag and the text after it), each distinct text checked and converted once
    values = {k: cols[k] for k in range(2, ncols - 1, 2)}
    tags = _RESULT_FIELDS[ncols] if ncols != 9 or _all_start(values[6], "rank>") \
        else (*_RESULT_FIELDS[7][:5], "rsv>", "/rsv>", "/result>")
    for k, (col, tag) in enumerate(zip(cols[1:], tags), 1):
        if not (_all_start(values[k], tag) if k in values else _all_equal(col, tag)):
            return None
    opened = np.searchsorted(np.asarray(topic_at), row_at) - 1  # the topic tag before each result
    if (opened < 0).any() or not np.asarray(kinds)[opened].all():
        return None  # a result outside a topic
    values = {tags[k - 1]: v for k, v in values.items()}
    try:
        docs, xpaths = (_line_field(values[tag], tag) for tag in ("file>", "path>"))
        ranks = _line_field(values["rank>"], "rank>", _INT, "int64") if "rank>" in values else None
        rsvs = _line_field(values["rsv>"], "rsv>", _RSV, "float64") if "rsv>" in values else None
    except _Unusual:
        return None
    first_line = data.count(b"\n", 0, start)
    # topics[k // 2]: the k-th topic tag, start and end tags in turn
    return _table(topics[0::2], opened // 2, docs, xpaths, ranks, rsvs, row_at + first_line)


def _one_chunk(column: pa.ChunkedArray, keep: pa.Array | None = None) -> pa.Array:
    """The rows ``keep`` (a mask; all if None) of a column of :func:`_scan_lines`' table as one
    array; a dictionary-encoded one numbered in order of first appearance among those rows
    (the CSV reader's dictionary is, over one chunk and every row)."""
    if column.num_chunks == 1 and keep is None:
        return column.chunk(0)
    encoded = pa.types.is_dictionary(column.type)
    col = (column.cast(column.type.value_type) if encoded else column).combine_chunks()
    col = col if keep is None else col.filter(keep)
    return pc.dictionary_encode(col) if encoded else col


def _bytes_of(col: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, bytes) of the binary array ``col`` (no nulls): value i is ``bytes[offsets[i] -
    offsets[0]:offsets[i + 1] - offsets[0]]``; views of its buffers."""
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32, count=len(col) + 1, offset=4 * col.offset)
    data = col.buffers()[2]
    return offsets, np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]] if data is not None \
        else np.zeros(0, np.uint8)


def _all_equal(col: pa.Array, tag: str) -> bool:
    """Every value of the binary array ``col`` (no nulls) is ``tag``: its offsets step by the
    tag's length and its bytes are the tag repeated (one comparison of the buffer)."""
    n, b = len(col), tag.encode()
    offsets = _bytes_of(col)[0]
    return bool((np.diff(offsets) == len(b)).all()) and (
        not n or col.buffers()[2].slice(int(offsets[0]), n * len(b)).equals(pa.py_buffer(b * n)))


def _all_start(encoded: pa.DictionaryArray, tag: str) -> bool:
    """Every value of the dictionary-encoded binary array ``encoded`` starts with ``tag``
    (checked on its distinct values)."""
    return bool(pc.all(pc.starts_with(encoded.dictionary, tag)).as_py())


def _line_field(encoded: pa.DictionaryArray, tag: str, pattern: str | None = None, dtype: str | None = None):
    """The values of a field of :func:`_scan_lines` (``tag`` and the text after it, dictionary-
    encoded bytes), each distinct text stripped of spaces and tabs: (distinct values, codes) for
    text, or the converted array for ``dtype`` (every value must match ``pattern``); UTF-8 text
    only (else :class:`_Unusual`)."""
    try:
        raw = encoded.dictionary.cast(pa.string())
    except pa.ArrowInvalid:
        raise _Unusual from None
    text = pc.utf8_trim(pc.utf8_slice_codeunits(raw, len(tag)), " \t")
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    if dtype is not None:
        return _converted(text, pattern, dtype)[codes]
    if pc.any(pc.match_substring_regex(raw, _HIDDEN)).as_py() or not pc.all(pc.string_is_ascii(raw)).as_py():
        raise _Unusual
    return np.asarray(text.to_pylist(), dtype=object), codes


def _in_order(letter: np.ndarray, at: dict, n: int) -> bool:
    """The tags come as topic (result (file path [rank] [rsv]))*, rank and rsv in every result
    or in none (letters: :data:`_TAGS`)."""
    block = np.frombuffer(("RFfPp" + "Kk" * bool(len(at["K"])) + "Vv" * bool(len(at["V"])) + "r").encode(),
                          dtype=np.uint8)
    tt = np.sort(np.r_[at["T"], at["t"]])
    if n == 0 or len(at["T"]) != len(at["t"]) or len(tt) + n * len(block) != len(letter):
        return False
    if not (letter[tt[0::2]] == ord("T")).all() or not (letter[tt[1::2]] == ord("t")).all():
        return False
    inner = np.ones(len(letter), dtype=bool)
    inner[tt] = False
    # the results' tags in the blocks' order, and every topic tag between two blocks
    return bool(np.array_equal(letter[inner], np.tile(block, n))
                and not ((tt - np.arange(len(tt))) % len(block)).any())


def _u8(b: bytes):
    return np.frombuffer(b.ljust(8, b"\0"), dtype="<u8")[0]


class _Unusual(Exception):
    """A value the scan leaves to the tree reader."""


def _field(codes, lt, nxt, which, tag_len: int, pattern: str | None = None, dtype: str | None = None):
    """The stripped text of the elements whose start tags are ``lt[which]``: (distinct values,
    codes) for text, or the converted array for ``dtype`` (every value must match ``pattern``)."""
    s, e = lt[which] + tag_len, nxt[which]
    ln = e - s
    offsets = np.r_[0, np.cumsum(ln)].astype(np.int64)
    gather = np.repeat(s - offsets[:-1], ln) + np.arange(offsets[-1])
    raw = codes[gather]
    arr = pc.ascii_trim_whitespace(pa.LargeStringArray.from_buffers(len(s), pa.py_buffer(offsets), pa.py_buffer(raw)))
    if ((raw == 10) | (raw == 13)).any() and pc.any(pc.match_substring_regex(arr, "[\r\n]")).as_py():
        raise _Unusual  # a value over several lines (lxml reads CR LF as LF): the tree reader's
    return _distinct(arr) if dtype is None else _converted(arr, pattern, dtype)


def _distinct(arr) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values, codes) of an Arrow string array."""
    enc = arr.dictionary_encode()
    return np.asarray(enc.dictionary.to_pylist(), dtype=object), enc.indices.to_numpy()


def _converted(arr, pattern: str, dtype: str) -> np.ndarray:
    """An Arrow string array as numbers of ``dtype``; every value must match ``pattern``."""
    if not pc.all(pc.match_substring_regex(arr, f"^{pattern}$")).as_py():
        raise _Unusual
    out = pc.cast(arr, getattr(pa, dtype)()).to_numpy()
    if dtype == "float64" and np.isinf(out).any():
        raise _Unusual
    return out


def read_xml_run(path) -> RunTable:
    data = read_bytes(path, "run file")
    scanned = _scan(data)
    root = parse_xml(path, "run file", data) if scanned is None else scanned[0]
    if local(root.tag) != "inex-submission":
        raise InputError(path, where(root), f"root element <{local(root.tag)}>", "<inex-submission>")
    run_id = attr(path, root, "run-id", "run_id", "runid")
    participant = attr(path, root, "participant-id", "participant_id", required=False, default="")
    task_attr = attr(path, root, "task", required=False, default="")
    task = normalise_task(task_attr) if task_attr else ""
    if task is None:
        raise InputError(path, where(root), unknown_task(task_attr))
    if scanned is not None:
        df, all_ranked, codes = scanned[1:]
        for el in root:  # the header the scan parsed: what precedes the first topic
            check_header(path, el)
    else:
        (df, all_ranked), codes = _tree_rows(path, root), None
    check_scores_and_ranks(df, path, scores_optional=True)
    check_duplicates(df, path, codes)
    lines = df["line"].to_numpy()
    df = order_results(df, has_rank=all_ranked, codes=codes)
    run = RunTable(run_id, participant, task, "inex-xml", str(path), df, task_attr)
    if codes is not None and (np.diff(lines) > 0).all() and (np.diff(df["line"].to_numpy()) > 0).all():
        run.attach_codes(codes)  # one result a line, none moved: the codes are the table's rows'
    return run


# what a submission's root holds: the run's description, then its topics (INEX 2005-2008
# submission DTDs), and what a <result> holds
HEADER = ("topic-fields", "description", "collections")
RESULT_CHILDREN = ("file", "path", "fol", "rank", "rsv")


def check_header(path, el) -> str:
    """The name of a child of <inex-submission>; one that is neither a topic nor part of the
    description is not read, with a warning (a misspelt <topic> would drop its results)."""
    name = local(el.tag)
    if name and name != "topic" and name not in HEADER:
        warn_input(path, where(el), f"element <{name}> inside <inex-submission> is not read (expected <topic> "
                   f"or {', '.join(f'<{h}>' for h in HEADER)})")
    return name


def _tree_rows(path, root) -> tuple[pd.DataFrame, bool]:
    """The results of a parsed submission in file order, and whether all are ranked."""
    rows = []
    all_ranked = True
    canon: dict[str, str] = {}
    for t in root:
        if check_header(path, t) != "topic":
            continue
        topic = attr(path, t, "topic-id", "topic_id", "id")
        for r in t:
            if check_tag(path, r, ("result",), "topic") != "result":
                continue
            doc = p = rank_t = rsv_t = None
            fol = None
            for ch in r:  # one pass over the result's children
                name = check_tag(path, ch, RESULT_CHILDREN, "result")
                if name == "file":
                    if doc is not None:
                        _twice(path, ch)
                    doc = (ch.text or "").strip()
                elif name == "path":
                    if p is not None or fol is not None:
                        _twice(path, ch)
                    p = (ch.text or "").strip()
                elif name == "fol":
                    if p is not None or fol is not None:
                        _twice(path, ch)
                    fol = ch
                elif name == "rank":
                    if rank_t is not None:
                        _twice(path, ch)
                    rank_t = (ch.text or "").strip()
                elif name == "rsv":
                    if rsv_t is not None:
                        _twice(path, ch)
                    rsv_t = (ch.text or "").strip()
            if doc is None:
                raise InputError(path, where(r), "missing child element <file>")
            if not doc:
                raise InputError(path, where(r), "empty <file>")
            doc = doc[:-4] if doc.endswith(".xml") else doc
            xpath, off, ln = "", -1, -1
            if fol is not None:
                off = _num(path, fol, attr(path, fol, "offset", "file-offset"), "offset", int)
                ln = _num(path, fol, attr(path, fol, "length", "file-length"), "length", int)
                if off < 0 or ln < 0:
                    raise InputError(path, where(fol), f"negative offset or length ({off}, {ln})",
                                     "non-negative integers")
            elif p is not None:
                xpath = canon.get(p)
                if xpath is None:
                    try:
                        xpath = canon[p] = canonical_xpath(p)
                    except ValueError as e:
                        raise InputError(path, where(r), str(e)) from None
            else:
                raise InputError(path, where(r), "result has neither <path> nor <fol>")
            rank = _num(path, r, rank_t, "rank", int) if rank_t else 0
            all_ranked &= bool(rank_t)
            rsv = _num(path, r, rsv_t, "rsv", float) if rsv_t else float("nan")
            rows.append((topic, doc, xpath, off, ln, rank, rsv, r.sourceline))
    if not rows:
        raise InputError(path, where(root), "run has no results")
    return pd.DataFrame.from_records(rows, columns=list(RESULT_COLUMNS)), all_ranked


def _format_distinct(df: pd.DataFrame, columns, fmt) -> np.ndarray:
    """``fmt(*row)`` for every row of ``df[columns]`` (an object array), each distinct row formatted once."""
    key = np.zeros(len(df), dtype=np.int64)
    for c in columns:
        code, uniq = pd.factorize(df[c], use_na_sentinel=False)
        key, _ = pd.factorize(key * len(uniq) + code)
    _, first = np.unique(key, return_index=True)  # the first row of each key, keys in order 0, 1, ...
    values = [df[c].iloc[first].tolist() for c in columns]
    return np.array([fmt(*row) for row in zip(*values)] or [""], dtype=object)[key]


def write_xml_run(run: RunTable, path, task_label: str):
    """Write ``run`` as an INEX XML submission (used by the simulator)."""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<inex-submission participant-id={quoteattr(run.participant)} '
           f'run-id={quoteattr(run.run_id)} task={quoteattr(task_label)} query="automatic">\n']
    res = run.results
    topics = res["topic"].tolist()
    # a run repeats its locations (across topics) and its (rank, rsv) pairs: each distinct one
    # is formatted once, and the lines are joined from them in numpy
    heads = _format_distinct(res, ("doc", "xpath", "offset", "length"), lambda d, x, o, n: (
        f"    <result><file>{d}</file>" + (f"<path>{x}</path>" if x else f'<fol offset="{o}" length="{n}"/>')))
    tails = _format_distinct(res, ("rank", "rsv"), lambda k, v: f"<rank>{k}</rank><rsv>{v!r}</rsv></result>\n")
    lines = (heads + tails).tolist()
    starts = [i for i in range(len(topics)) if i == 0 or topics[i] != topics[i - 1]]
    for a, b in zip(starts, starts[1:] + [len(topics)]):
        out.append(f'  <topic topic-id="{topics[a]}">\n')
        out.append("".join(lines[a:b]))
        out.append("  </topic>\n")
    out.append("</inex-submission>\n")
    write_text("".join(out), path)
