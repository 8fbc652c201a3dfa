"""Text runs: ``topic Q0 doc rank rsv run-id offset length`` (FOL passages, 8 columns),
``topic Q0 doc rank rsv run-id xpath`` (elements, 7 columns) and the TREC document run
``topic Q0 doc rank rsv run-id`` (6 columns: the whole document, stored as offset 0 and
length -1 until the collection gives the document's length). The format names no
participant or task: the campaign config (or the CLI) supplies them.

Parsing is vectorised with pandas; every malformed value is still reported with its
line number.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pyarrow as pa

from inexflow.errors import InputError, decode_text, open_input, read_bytes, warn_input
from inexflow.io.canonical import RESULT_COLUMNS, RunTable, check_duplicates, check_scores_and_ranks, order_results
from inexflow.io.qrels_fol import INT_MAX  # the official tool reads every number as a Java int
from inexflow.io.xpath import canonical_xpath

EXPECTED = ("8 (topic Q0 doc rank rsv run-id offset length), 7 (... run-id xpath) "
            "or 6 (... run-id)")


def _first_bad(path, lines, mask, message):
    i = int(np.flatnonzero(mask)[0])
    raise InputError(path, f"line {lines[i]}", message(i))



def _numbers(path, lines, col: pd.Series, what: str, integer: bool) -> np.ndarray:
    v = pd.to_numeric(col, errors="coerce").to_numpy(np.float64)
    bad = np.isnan(v)
    if integer:
        bad |= ~np.isnan(v) & (v != np.floor(v))
    else:
        bad |= np.isinf(v)
    if bad.any():
        _first_bad(path, lines, bad, lambda i: f"{what} {col.iloc[i]!r} is not {'an integer' if integer else 'a number'}")
    if integer and (np.abs(v) > INT_MAX).any():
        _first_bad(path, lines, np.abs(v) > INT_MAX, lambda i: f"{what} {col.iloc[i]} is too large "
                   f"(expected at most {INT_MAX}, the official tool's limit)")
    return v.astype(np.int64) if integer else v


_BLANKS = re.compile(rb"[ \t]+")
_EDGES = re.compile(rb"^ | $", re.M)


def _fast_read(path, ncols: int) -> dict | None:
    """Typed, multi-threaded read with pyarrow of a well-formed run: {column number: array},
    strings as object arrays. None when anything is off (the validating reader then says what)."""
    import pyarrow.csv as pacsv

    data = read_bytes(path, "run file").removeprefix(b"\xef\xbb\xbf")
    irregular = _irregular_spacing(data)
    if irregular:
        data = _EDGES.sub(b"", _BLANKS.sub(b" ", data.replace(b"\r\n", b"\n")))
    types = {"0": pa.string(), "2": pa.string(), "3": pa.int64(), "4": pa.float64(), "5": pa.string()}
    if ncols == 8:
        types.update({"6": pa.int64(), "7": pa.int64()})
    elif ncols == 7:
        types["6"] = pa.string()
    try:
        table = pacsv.read_csv(pa.py_buffer(data),
                               read_options=pacsv.ReadOptions(column_names=[str(i) for i in range(ncols)]),
                               parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False),
                               convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                                    strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError):
        return None
    cols = {}
    for k in types:
        c = table.column(k)
        if c.null_count:
            return None
        if types[k] == pa.string():
            enc = c.dictionary_encode().combine_chunks()
            uniq = np.asarray(enc.dictionary.to_pylist(), dtype=object)
            if (uniq == "").any():
                return None
            codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
            cols[int(k)] = uniq[codes]
            cols[(int(k), "unique")] = uniq
            cols[(int(k), "codes")] = codes
        else:
            cols[int(k)] = c.to_numpy()
    cols["line"] = _line_numbers(data, len(table)) if irregular else np.arange(1, len(table) + 1, dtype=np.int64)
    if irregular:
        lines = data.split(b"\n")
        warn_blank_lines(path, [i for i, line in enumerate(lines, 1) if not line.strip() and i < len(lines)])
    if np.isnan(cols[4]).any() or (ncols == 8 and ((cols[6] < 0) | (cols[7] < 0) | (cols[7] == 0)).any()):
        return None
    return cols


def _first_columns(path) -> int:
    with open_input(path, "run file") as fh:
        for line in fh:
            if line.strip():
                return len(line.decode("utf-8", "replace").split())
    return 0


def read_text_run(path) -> RunTable:
    ncols = _first_columns(path)
    fast = _fast_read(path, ncols) if ncols in (6, 8) else None
    if fast is not None and len(fast[0]):
        n = len(fast[0])
        text = {k: pd.Series(v, dtype=object, copy=False) for k, v in (("topic", fast[0]), ("doc", fast[2]))}
        df = pd.DataFrame({**text, "xpath": pd.Series(np.full(n, "", dtype=object), dtype=object, copy=False),
                           "offset": fast[6] if ncols == 8 else np.zeros(n, np.int64),
                           "length": fast[7] if ncols == 8 else np.full(n, -1, np.int64),
                           "rank": fast[3], "rsv": fast[4], "line": fast["line"]}, copy=False)
        # the dictionary codes of the reader, so that the checks and the ordering do not factorise
        # the strings again (no xpath in these formats: one code)
        codes = {"topic": (fast[(0, "codes")], fast[(0, "unique")]), "doc": (fast[(2, "codes")], fast[(2, "unique")]),
                 "xpath": (np.zeros(n, dtype=np.int64), [""])}
        run = _finish(path, df, sorted(fast[(5, "unique")]), ncols, codes)
        if run.results["line"].is_monotonic_increasing:  # the usual case: the file is in evaluation order
            run.attach_codes({k: codes[k] for k in ("topic", "doc")})  # every line kept, none moved
        return run
    return _read_validating(path)


def _irregular_spacing(data: bytes) -> bool:
    """Anything but single spaces between fields and one newline after each line: tabs,
    carriage returns, leading or repeated blanks, blank lines."""
    if b"\t" in data or b"\r" in data or data[:1] in (b" ", b"\n"):
        return True
    a = np.frombuffer(data, dtype=np.uint8)
    blank = (a == 32) | (a == 10)
    return bool((blank[1:] & blank[:-1]).any())


def _line_numbers(data: bytes, n: int) -> np.ndarray:
    """Source line of each of the n non-blank lines of ``data``."""
    nonblank = [i for i, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    return np.asarray(nonblank[:n], dtype=np.int64)


def warn_blank_lines(path, blank_lines):
    """Blank lines are skipped with a warning (the official tool stops at one: "fields missing")."""
    if len(blank_lines):
        warn_input(path, f"line {blank_lines[0]}", f"blank line skipped ({len(blank_lines)} blank lines in the run; "
                   "the official inex_eval rejects a run with blank lines: 'fields missing')")


def _finish(path, df: pd.DataFrame, run_ids: list[str], ncols: int, codes: dict | None = None) -> RunTable:
    if len(run_ids) > 1:
        warn_input(path, None, f"several run ids {run_ids[:5]}; using {run_ids[0]!r}")
    check_scores_and_ranks(df, path)
    check_duplicates(df, path, codes)
    df = order_results(df, has_rank=True, codes=codes)
    fmt = {8: "fol-text", 7: "xpath-text", 6: "trec-text"}[ncols]
    return RunTable(run_ids[0], "", "", fmt, str(path), df[list(RESULT_COLUMNS)])


def _read_validating(path) -> RunTable:
    text = decode_text(path, read_bytes(path, "run file"))
    try:
        raw = pd.read_csv(io.StringIO(text), sep=r"\s+", header=None, dtype=str, skip_blank_lines=False,
                          keep_default_na=False, na_values=[], engine="c")
    except pd.errors.EmptyDataError:
        raise InputError(path, None, "run has no results") from None
    except pd.errors.ParserError as e:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(e))
        if m:
            raise InputError(path, f"line {m.group(2)}", f"{m.group(3)} columns",
                             f"{m.group(1)} as on the first line") from None
        raise InputError(path, None, f"cannot parse run: {e}") from None
    except UnicodeDecodeError as e:
        raise InputError(path, None, f"not UTF-8 text: {e}") from None
    lines = np.arange(1, len(raw) + 1)
    blank = (raw.iloc[:, 0] == "").to_numpy() if len(raw) else np.zeros(0, bool)
    warn_blank_lines(path, lines[blank])
    raw, lines = raw[~blank].reset_index(drop=True), lines[~blank]
    if raw.empty:
        raise InputError(path, None, "run has no results")
    ncols = raw.shape[1]
    filled = (raw != "").sum(axis=1).to_numpy()
    if filled[0] not in (6, 7, 8):
        raise InputError(path, f"line {lines[0]}", f"{filled[0]} columns", EXPECTED)
    ncols = int(filled[0])
    short = filled != ncols
    if short.any():
        _first_bad(path, lines, short, lambda i: f"{filled[i]} columns (expected {ncols} as on the first line)")
    raw = raw.iloc[:, :ncols]
    rank = _numbers(path, lines, raw[3], "rank", True)
    rsv = _numbers(path, lines, raw[4], "rsv", False)
    n = len(raw)
    xpath = np.full(n, "", dtype=object)
    off = np.zeros(n, dtype=np.int64)
    ln = np.full(n, -1, dtype=np.int64)
    if ncols == 8:
        off = _numbers(path, lines, raw[6], "offset", True)
        ln = _numbers(path, lines, raw[7], "length", True)
        neg = (off < 0) | (ln < 0)
        if neg.any():
            _first_bad(path, lines, neg, lambda i: f"negative offset or length ({off[i]}, {ln[i]}) "
                       "(expected non-negative integers)")
    elif ncols == 7:
        canon = {}
        for i, x in enumerate(raw[6]):
            if x not in canon:
                try:
                    canon[x] = canonical_xpath(x)
                except ValueError as e:
                    raise InputError(path, f"line {lines[i]}", str(e)) from None
        xpath = raw[6].map(canon).to_numpy(dtype=object)
        off = np.full(n, -1, dtype=np.int64)
    df = pd.DataFrame({"topic": raw[0].to_numpy(dtype=object), "doc": raw[2].to_numpy(dtype=object),
                       "xpath": xpath, "offset": off, "length": ln, "rank": rank, "rsv": rsv,
                       "line": lines.astype(np.int64)})
    return _finish(path, df, sorted(set(raw[5])), ncols)


def fol_run_text(run) -> str:
    """``run`` as an 8-column FOL run (``topic Q0 doc rank rsv run-id offset length``), results
    in their order; every result needs its character range (see ``convert_to_fol``)."""
    res = run.results
    bad = (res["offset"] < 0) | (res["length"] < 0)
    if bad.any():
        r = res[bad].iloc[0]
        raise InputError(run.source, f"line {r.line}", f"result {r.doc}{r.xpath} has no character range "
                         f"({int(bad.sum())} such results)", "a collection or FOL qrels giving document lengths")
    return "".join(f"{t} Q0 {d} {k} {s!r} {run.run_id} {o} {n}\n" for t, d, k, s, o, n in zip(
        res["topic"], res["doc"], res["rank"], res["rsv"], res["offset"], res["length"]))
