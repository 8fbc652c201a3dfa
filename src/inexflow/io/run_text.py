"""Text runs: ``topic Q0 doc rank rsv run-id offset length`` (FOL passages, 8 columns),
``topic Q0 doc rank rsv run-id xpath`` (elements, 7 columns) and the TREC document run
``topic Q0 doc rank rsv run-id`` (6 columns: the whole document, stored as offset 0 and
length -1 until the collection gives the document's length). The format names no
participant or task: the campaign config (or the CLI) supplies them.

Parsing is vectorised with pandas; every malformed value is still reported with its
line number. Comment lines (the first non-blank character ``#``) are skipped, as trec_eval
10.0 skips them. trec_eval never reads the rank column: a TREC run whose ranks are not all
integers is read with a warning, ordered by descending score, and keeps the problem in
``rank_error``, so that only the ``trec`` family (which orders as trec_eval) scores it and the
families that order by rank refuse it with that error.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

from inexflow.errors import InputError, decode_text, warn_input
from inexflow.io.canonical import RESULT_COLUMNS, RunTable, check_duplicates, check_scores_and_ranks, order_results, unresolved
from inexflow.io.compressed import read_bytes
from inexflow.io.fields import TO_SPACE
from inexflow.io.qrels_fol import INT_MAX  # the official tool reads every number as a Java int
from inexflow.io.run_arrow import comment_lines, first_columns, read_plain_run, warn_blank_lines
from inexflow.io.xpath import canonical_xpath

_LONE_CR = re.compile(r"\r(?!\n)")
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


def _fast_read(path, ncols: int) -> dict | None:
    """The Arrow read of a well-formed run (:func:`inexflow.io.run_arrow.read_plain_run`) as
    {column number: array}, strings as object arrays with their codes and distinct values;
    None when anything is off (the validating reader then says what)."""
    plain = read_plain_run(path, ncols)
    if plain is None:
        return None
    cols = {"line": plain.line, 3: plain.rank, 4: plain.rsv}
    cols[(5, "unique")] = plain.run_id.dictionary.to_pylist()  # the run ids: only their distinct values are read
    cols[(5, "last")] = plain.run_id.indices[-1].as_py() if len(plain.run_id) else 0  # and the last line's
    for k, c in ((0, plain.topic), (2, plain.doc)):
        uniq = np.asarray(c.dictionary.to_pylist(), dtype=object)
        codes = c.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        cols[k], cols[(k, "unique")], cols[(k, "codes")] = uniq[codes], uniq, codes
    if ncols == 8:
        cols[6], cols[7] = plain.offset, plain.length
    return cols


def read_text_run(path) -> RunTable:
    ncols = first_columns(path)
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
        ids = fast[(5, "unique")]
        run = _finish(path, df, sorted(ids), ids[fast[(5, "last")]], ncols, codes)
        if run.results["line"].is_monotonic_increasing:  # the usual case: the file is in evaluation order
            run.attach_codes({k: codes[k] for k in ("topic", "doc")})  # every line kept, none moved
        return run
    return _read_validating(path, ncols)


def _finish(path, df: pd.DataFrame, run_ids: list[str], last: str, ncols: int, codes: dict | None = None,
            rank_error: str = "") -> RunTable:
    """The run table of ``df``; ``run_ids``: its distinct run ids, ``last``: the last line's,
    the run's id, as trec_eval keeps it ("only from the last content line of the file")."""
    if len(run_ids) > 1:
        warn_input(path, None, f"several run ids {run_ids[:5]}; using the last line's, {last!r} (as trec_eval)")
    check_scores_and_ranks(df, path)
    check_duplicates(df, path, codes)
    df = order_results(df, has_rank=not rank_error, codes=codes)
    fmt = {8: "fol-text", 7: "xpath-text", 6: "trec-text"}[ncols]
    return RunTable(last, "", "", fmt, str(path), df[list(RESULT_COLUMNS)], rank_error=rank_error)


def _trec_ranks(path, lines, col: pd.Series) -> tuple[np.ndarray, str]:
    """The ranks of a TREC run and "" if they are integers; else placeholder ranks and the
    problem (``line N: rank '1.5' is not an integer``), with a warning: trec_eval never reads
    the rank column."""
    try:
        return _numbers(path, lines, col, "rank", True), ""
    except InputError as e:
        error = e
    warn_input(path, error.where, f"{error.problem}: the rank column is ignored and results are ordered by "
               "descending score, as trec_eval reads a run; only the trec family can score this run")
    return np.zeros(len(col), dtype=np.int64), f"{error.where}: {error.problem}"


def _read_validating(path, ncols: int) -> RunTable:
    data = read_bytes(path, "run file")
    comments = comment_lines(data.removeprefix(b"\xef\xbb\xbf"))
    text = decode_text(path, data, cr_ends_lines=ncols != 6)  # a FOL run's lines end as the jar reads them
    if ncols == 6:  # a TREC run: a carriage return is white space, as trec_eval reads it (not a line end)
        text = _LONE_CR.sub(" ", text)
    rows = text.split("\n")
    skip = 0  # leading blank and comment lines (pandas finds no columns after an empty first line)
    while skip < len(rows) - 1 and (skip + 1 in comments or not rows[skip].strip()):
        skip += 1
    leading_blanks = [i for i in range(1, skip + 1) if i not in comments]
    if comments or skip:  # comments emptied, so that the rows keep their line numbers
        text = "\n".join("" if i in comments else line for i, line in enumerate(rows[skip:], skip + 1))
    text = text.translate(TO_SPACE)  # fields split at ASCII white space (inexflow.io.fields)
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
    lines = np.arange(skip + 1, skip + len(raw) + 1)
    blank = (raw.iloc[:, 0] == "").to_numpy() if len(raw) else np.zeros(0, bool)
    warn_blank_lines(path, [*leading_blanks, *lines[blank & ~np.isin(lines, list(comments))]])
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
    rank, rank_error = _trec_ranks(path, lines, raw[3]) if ncols == 6 else (
        _numbers(path, lines, raw[3], "rank", True), "")
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
    return _finish(path, df, sorted(set(raw[5])), raw[5].iloc[-1], ncols, rank_error=rank_error)


def fol_run_text(run, qrels: bool = False) -> str:
    """``run`` as an 8-column FOL run (``topic Q0 doc rank rsv run-id offset length``), results
    in their order; every result needs its character range (see ``convert_to_fol``; ``qrels``:
    document lengths were sought in FOL qrels, which the error for a missing one says)."""
    res = run.results
    bad = (res["offset"] < 0) | (res["length"] < 0)
    if bad.any():
        raise unresolved(run, bad, qrels)
    return "".join(f"{t} Q0 {d} {k} {s!r} {run.run_id} {o} {n}\n" for t, d, k, s, o, n in zip(
        res["topic"], res["doc"], res["rank"], res["rsv"], res["offset"], res["length"]))
