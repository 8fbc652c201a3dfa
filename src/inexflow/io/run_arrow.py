"""Text runs as Arrow columns: the fast read of a well-formed run (:mod:`inexflow.io.run_text`
describes the formats), without pandas.

:func:`read_plain_run` reads a run of 6 (TREC: ``topic Q0 doc rank rsv run-id``) or 8 (FOL:
``... offset length``) columns with pyarrow's CSV reader, strings as bytes and dictionary-encoded
after the parse (document ids that are all numbers can be read as numbers instead: encoding a
run's document ids costs about as much as parsing the whole file), and gives up (None) on
anything a careful reader must look at line by line: a missing or empty field, a value of the
wrong type, a score that is not a number or a negative or empty passage. The validating reader
(:func:`inexflow.io.run_text.read_text_run`) then reads the file again and names the line and
the problem. Irregular spacing (tabs, ``\\r\\n``, repeated blanks, blank
lines) is read too, blank lines with a warning, and comment lines (the first non-blank character
``#``) are skipped, as trec_eval 10.0 skips them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from inexflow.errors import counted, decode_text, warn_input
from inexflow.io.arrow_arrays import arrow_of, bools_of, cast, compute, numpy_of, take
from inexflow.io.compressed import open_bytes, read_bytes
from inexflow.io.detect import detect_run_format

_BLANKS = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"^ | $", re.M)
_COMMENT = re.compile(rb"^[ \t]*#", re.M)  # a comment line, as trec_eval 10.0 reads runs and qrels


def comment_lines(data: bytes) -> set[int]:
    """The numbers of the comment lines of ``data`` (the first non-blank character ``#``)."""
    if b"#" not in data or not _COMMENT.search(data):
        return set()
    return {i for i, line in enumerate(data.split(b"\n"), 1) if line.lstrip().startswith(b"#")}


@dataclass
class PlainRun:
    """The columns of a well-formed text run, in file order: ``topic``, ``doc`` and ``run_id``
    dictionary-encoded (no empty string; ``doc`` read with ``numbers``: the documents' numbers,
    :func:`canonical_numbers`, where every id is one), ``rank``, ``rsv``, ``offset`` and ``length`` (FOL
    runs only, else None) as numpy arrays, and each result's source ``line``."""

    topic: pa.DictionaryArray
    doc: pa.DictionaryArray | np.ndarray
    run_id: pa.DictionaryArray
    rank: np.ndarray
    rsv: np.ndarray
    offset: np.ndarray | None
    length: np.ndarray | None
    line: np.ndarray

    def __len__(self) -> int:
        return len(self.rank)


def first_columns(path) -> int:
    """The number of fields on the first line of the run at ``path`` that is neither blank nor a
    comment (0 if none)."""
    with open_bytes(path, "run file") as fh:
        for line in fh:
            if line.strip() and not line.lstrip().startswith(b"#"):
                return len(line.split())  # at ASCII white space (inexflow.io.fields)
    return 0


def read_plain_run(path, ncols: int, numbers: bool = False) -> PlainRun | None:
    """The run at ``path`` (``ncols`` 6 or 8 columns) read by pyarrow; None when anything is
    off (see the module docstring). ``numbers``: documents whose ids are all numbers
    (:func:`canonical_numbers`) are given as those numbers, not encoded."""
    data = read_bytes(path, "run file").removeprefix(b"\xef\xbb\xbf")
    if b"\x0b" in data or b"\x0c" in data:  # field separators pyarrow does not split at (inexflow.io.fields)
        return None
    if b"\x00" in data:
        decode_text(path, data, cr_ends_lines=ncols != 6)  # a NUL byte is an error naming its line, as the readers count lines
    comments = comment_lines(data)
    # a file of single spaces and newlines parses as it is: a blank line, a leading, trailing or
    # repeated space gives a line of another width, which pyarrow refuses; then it is normalised
    table = None if comments or b"\t" in data or b"\r" in data else _parse(data, ncols, strict=True)
    irregular = table is None
    if irregular:
        data = _EDGES.sub(b"", _BLANKS.sub(b" ", data.replace(b"\r\n", b"\n")))
        if comments:  # emptied: pyarrow skips them as it skips blank lines
            data = b"\n".join(b"" if i in comments else line for i, line in enumerate(data.split(b"\n"), 1))
        table = _parse(data, ncols, strict=False)
        if table is None:
            return None
    cols = {}
    for k in table.column_names:
        c = table.column(k)
        if c.null_count:
            return None
        if not pa.types.is_binary(c.type):
            cols[k] = numpy_of(c)
            continue
        c = c.combine_chunks()
        cols[k] = canonical_numbers(c) if numbers and k == "2" else None
        if cols[k] is None:
            cols[k] = _encoded(c, blocks=k != "2")
            if cols[k] is None:
                return None
    if np.isnan(cols["4"]).any():  # an infinite score is read: the run's checks name its line
        return None
    if ncols == 8 and ((cols["6"] < 0) | (cols["7"] <= 0)).any():
        return None
    line = _line_numbers(data, len(table)) if irregular else np.arange(1, len(table) + 1, dtype=np.int64)
    if irregular:
        lines = data.split(b"\n")
        warn_blank_lines(path, [i for i, text in enumerate(lines, 1)
                                if not text.strip() and i < len(lines) and i not in comments])
    return PlainRun(cols["0"], cols["2"], cols["5"], cols["3"], cols["4"], cols.get("6"), cols.get("7"), line)


def read_quiet_run(path, ncols: int) -> PlainRun | None:
    """The text run at ``path`` read by Arrow (:func:`read_plain_run`, document ids that are
    numbers as numbers) where it has ``ncols`` columns, results, one run id, no negative rank
    and only finite scores, as the validating reader reads a run without a word (its check of
    repeated results aside); else None."""
    if not Path(path).is_file() or detect_run_format(path) != "text" or first_columns(path) != ncols:
        return None
    run = read_plain_run(path, ncols, numbers=True)
    if (run is None or not len(run) or len(run.run_id.dictionary) != 1 or (run.rank < 0).any()
            or not np.isfinite(run.rsv).all()):
        return None
    return run


def _parse(data: bytes, ncols: int, strict: bool):
    """``data`` parsed by pyarrow's CSV reader in one block (one dictionary per column), or None
    where it refuses it; ``strict``: a blank line is refused too."""
    text = pa.binary()  # encoded after the parse (:func:`_encoded`)
    types = {"0": text, "2": text, "3": pa.int64(), "4": pa.float64(), "5": text}
    if ncols == 8:
        types.update({"6": pa.int64(), "7": pa.int64()})
    try:
        return pacsv.read_csv(pa.py_buffer(data),
                              read_options=pacsv.ReadOptions(column_names=[str(i) for i in range(ncols)],
                                                             block_size=len(data) + 1, use_threads=False),
                              parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False,
                                                               ignore_empty_lines=not strict),
                              convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                                   strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None


def _encoded(values: pa.Array, blocks: bool = False) -> pa.DictionaryArray | None:
    """Byte strings dictionary-encoded (codes in order of first appearance) with a UTF-8
    dictionary; None where one is empty or not UTF-8. ``blocks``: values that come in long
    runs of one value (a run's topics, its run ids), encoded by the first value of each run."""
    starts = None
    if blocks and len(values) > 1:
        starts = np.flatnonzero(bools_of(compute("not_equal", values[1:], values[:-1]))) + 1
    if starts is not None and 8 * len(starts) < len(values):
        starts = np.concatenate([np.zeros(1, np.int64), starts])
        first = compute("dictionary_encode", take(values, arrow_of(starts)))
        codes = np.repeat(numpy_of(first.indices), np.diff(np.append(starts, len(values))))
        enc = pa.DictionaryArray.from_arrays(arrow_of(codes), first.dictionary)
    else:
        enc = compute("dictionary_encode", values)
    try:
        words = cast(enc.dictionary, pa.string())
    except pa.ArrowInvalid:
        return None
    if len(words) and not compute("min", compute("binary_length", enc.dictionary)).as_py():
        return None  # an empty field
    return pa.DictionaryArray.from_arrays(enc.indices, words)


def canonical_numbers(ids: pa.Array) -> np.ndarray | None:
    """Document ids (a binary or string array without nulls) as int64 numbers when each is a
    number below 10^18 written as ``str`` writes it (decimal digits only, no leading zero), so
    that the number gives back the id (``str(n)``) and equal numbers are equal ids; else None."""
    large = pa.types.is_large_binary(ids.type) or pa.types.is_large_string(ids.type)
    kind = np.dtype(np.int64 if large else np.int32)
    offsets = np.frombuffer(ids.buffers()[1], dtype=kind, count=len(ids) + 1, offset=ids.offset * kind.itemsize)
    if not len(ids):
        return np.zeros(0, np.int64)
    data = np.frombuffer(ids.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    width = np.diff(offsets)
    if (width.min() < 1 or width.max() > 18 or data.min() < ord("0") or data.max() > ord("9")
            or ((data[offsets[:-1] - offsets[0]] == ord("0")) & (width > 1)).any()):
        return None
    return numpy_of(cast(ids, pa.int64()))


def _line_numbers(data: bytes, n: int) -> np.ndarray:
    """Source line of each of the n non-blank lines of ``data``."""
    nonblank = [i for i, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    return np.asarray(nonblank[:n], dtype=np.int64)


def warn_blank_lines(path, blank_lines):
    """Blank lines are skipped with a warning (the official tool stops at one: "fields missing")."""
    if len(blank_lines):
        warn_input(path, f"line {blank_lines[0]}", f"blank line skipped ({counted(len(blank_lines), 'blank line')} in the run; "
                   "the official inex_eval rejects a run with blank lines: 'fields missing')")
