"""DataFrames (and ir_measures' qrels and run objects) as :class:`~inexflow.model.assessments.Assessments`
and :class:`~inexflow.model.runs.Run`, built from the columns at pandas speed and checked as the
file readers check the same data written as files.

Assessments, by their columns:

- TREC document qrels: ``query_id``, ``doc_id``, ``relevance`` (graded integers; > 0 is relevant;
  ``iteration`` ignored): the ``trec`` family's assessments, as :mod:`inexflow.io.qrels_trec`
  reads them.
- FOL passage qrels (one row per highlighted passage): ``query_id``, ``doc_id``, ``offset``,
  ``length``; optional ``doc_length`` and ``bep``. A row with ``length`` 0 or a missing
  ``offset`` is a judged non-relevant document; ``relevance``, if there too, is ignored.

Runs: ``query_id``, ``doc_id``, ``rank`` and/or ``score``, then ``offset`` and ``length``
(passages), ``xpath`` (elements) or neither (whole documents, as a TREC run); ``iteration``,
``Q0``, ``run_id`` and other columns are ignored. Without ``rank`` results are ranked by
descending score, then by row order.

ir_measures' objects: an iterable of ``ir_measures.Qrel`` / ``ScoredDoc`` namedtuples (what
``ir_measures.read_trec_qrels`` / ``read_trec_run`` return) and the dict-of-dicts of
pytrec_eval (``{query: {doc: relevance or score}}``) are read as the DataFrames above.

Every problem is one :class:`FrameError` (a :class:`~inexflow.errors.UsageError` and an
:class:`~inexflow.errors.InputError`) naming the column and the row (its position, from 0) or
the (query, document), and what was expected.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import FRAME_SOURCE, InputError, UsageError, counted, warn_input
from inexflow.io.canonical import DOCUMENT_COLUMNS, PASSAGE_COLUMNS, RESULT_COLUMNS, duplicate_mask, order_results
from inexflow.io.qrels_fol import INT_MAX
from inexflow.io.task_labels import normalise_task, unknown_task
from inexflow.io.xpath import canonical_xpath
from inexflow.model.assessments import TREC_DOCUMENT_COLUMNS, Assessments
from inexflow.model.runs import Run

QRELS = f"<assessments {FRAME_SOURCE}"
RUN = f"<run {FRAME_SOURCE}"


class FrameError(InputError, UsageError):
    """A problem with a DataFrame given as assessments or run: where (row or query and document)
    and what was expected."""

    def __reduce__(self):
        return (FrameError, (self.path, self.where, self.problem, self.expected))

    def __str__(self):
        if self.where in (None, ""):  # the whole frame: "run DataFrame has no column doc_id (...)"
            return f"{self.path.strip('<>')} {self.problem}" + (f" (expected {self.expected})" if self.expected else "")
        return super().__str__()


def _require(df: pd.DataFrame, what: str, columns) -> None:
    """The columns ``columns`` must be there, each once."""
    twice = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
    if twice:
        raise FrameError(what, None, f"has column {', '.join(twice)} more than once", "each column once")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise FrameError(what, None, f"has no column {', '.join(missing)} (has {', '.join(map(str, df.columns))})",
                         "the columns of inexflow.front.frames")


def _first(what, mask, problem, expected=None):
    """Raise the error of the first row where ``mask`` holds (``problem(i)`` says what is wrong)."""
    i = int(np.flatnonzero(mask)[0])
    raise FrameError(what, f"row {i}", problem(i), expected)


def ids(df: pd.DataFrame, col: str, what: str) -> np.ndarray:
    """Column ``col`` as an object array of strings; a missing value, a float or a string that is
    empty or holds whitespace (no qrels or run file could hold it) is an error naming the row."""
    s = df[col]
    if pd.api.types.is_float_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        raise FrameError(what, None, f"has {s.dtype} values in column {col}",
                         "strings or integers (ids, as in qrels and run files)")
    if pd.api.types.is_integer_dtype(s.dtype):
        return s.astype(str).to_numpy(dtype=object)
    v = s.to_numpy(dtype=object)
    if s.isna().any():
        _first(what, s.isna().to_numpy(), lambda i: f"{col} is missing", "an id")
    odd = np.fromiter((not isinstance(x, (str, int, np.integer)) or isinstance(x, bool) for x in v), bool, len(v))
    if odd.any():
        _first(what, odd, lambda i: f"{col} holds {type(v[i]).__name__} {v[i]!r:.40}", "strings or integers (ids)")
    if not all(isinstance(x, str) for x in pd.unique(v)):  # ints mixed in: as their text
        v = s.astype(str).to_numpy(dtype=object)
    uniq = pd.unique(v)
    bad = pd.Series(uniq, dtype=object).str.contains(r"\s|^$|\x00", regex=True).to_numpy()
    if bad.any():
        wrong = set(uniq[bad])
        _first(what, np.fromiter((x in wrong for x in v), bool, len(v)),
               lambda i: f"{col} {v[i]!r} is empty or holds whitespace or a NUL byte", "ids without spaces, "
               "newlines or NUL bytes, as qrels and run files hold them")
    return v


def numbers(df: pd.DataFrame, col: str, what: str, *, integer: bool, missing_ok: bool = False,
            negative_ok: bool = True, finite: bool = True) -> np.ndarray:
    """Column ``col`` as float64 (NaN where ``missing_ok`` allows it); text that is not a number,
    a fraction where an integer is expected, a missing, infinite or negative value are errors
    naming the row."""
    s = df[col]
    if pd.api.types.is_bool_dtype(s.dtype) or not (pd.api.types.is_numeric_dtype(s.dtype)):
        num = pd.to_numeric(s, errors="coerce")
        notnum = (num.isna() & s.notna()).to_numpy()
        if notnum.any():
            _first(what, notnum, lambda i: f"{col} {s.iloc[i]!r} is not a number",
                   "an integer" if integer else "a number")
        s = num
    v = s.to_numpy(dtype=np.float64, na_value=np.nan)
    nan = np.isnan(v)
    if nan.any() and not missing_ok:
        _first(what, nan, lambda i: f"{col} is missing (NaN)", "an integer" if integer else "a finite number")
    if finite and np.isinf(v).any():
        _first(what, np.isinf(v), lambda i: f"{col} {float(v[i])!r} is not a finite number", "a finite number")
    if integer:
        frac = ~nan & (v != np.floor(v))
        if frac.any():
            _first(what, frac, lambda i: f"{col} {float(v[i])!r} is not an integer")
        big = np.abs(np.nan_to_num(v)) > INT_MAX
        if big.any():
            _first(what, big, lambda i: f"{col} {v[i]:.0f} is too large", f"at most {INT_MAX}, the official tool's limit")
    if not negative_ok and (v < 0).any():
        _first(what, v < 0, lambda i: f"negative {col} {v[i]:g}", "a non-negative number")
    return v


def _pair_codes(q: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Codes of the (query, doc) pairs, numbered in order of first appearance."""
    qc, _ = pd.factorize(q)
    dc, du = pd.factorize(d)
    return pd.factorize(qc.astype(np.int64) * max(len(du), 1) + dc)[0]


def assessments_from_frame(df: pd.DataFrame) -> Assessments:
    """TREC document qrels or FOL passage qrels from a DataFrame (module docstring)."""
    if not isinstance(df, pd.DataFrame):
        df = frame_of(df, "qrels")
    if not len(df):
        raise FrameError(QRELS, None, "has no rows", "one row per judgement")
    if "offset" in df.columns or "length" in df.columns:
        return _fol_assessments(df)
    if "relevance" in df.columns:
        return _trec_assessments(df)
    raise FrameError(QRELS, None, f"has neither relevance nor offset and length (has {', '.join(map(str, df.columns))})",
                     "query_id, doc_id, relevance (TREC document qrels) or query_id, doc_id, offset, length "
                     "(FOL passages)")


def _trec_assessments(df: pd.DataFrame) -> Assessments:
    _require(df, QRELS, ["query_id", "doc_id", "relevance"])
    q, d = ids(df, "query_id", QRELS), ids(df, "doc_id", QRELS)
    grade = numbers(df, "relevance", QRELS, integer=True)
    key = _pair_codes(q, d)
    dup = pd.Series(key).duplicated().to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero(key == key[i])[0])
        raise FrameError(QRELS, f"row {i}", f"query {q[i]} doc {d[i]} is judged twice (first on row {first})",
                         "one row per (query_id, doc_id)")
    n = len(df)
    docs = pd.DataFrame({"topic": q, "doc": d, "rel_chars": np.zeros(n, np.int64), "doc_chars": np.full(n, -1),
                         "bep_offset": np.full(n, -1), "bep_xpath": np.full(n, "", dtype=object), "grade": grade})
    return Assessments("trec", QRELS, documents=docs.astype(TREC_DOCUMENT_COLUMNS))


def _fol_assessments(df: pd.DataFrame) -> Assessments:
    _require(df, QRELS, ["query_id", "doc_id", "offset", "length"])
    q, d = ids(df, "query_id", QRELS), ids(df, "doc_id", QRELS)
    off = numbers(df, "offset", QRELS, integer=True, missing_ok=True, negative_ok=False)
    ln = numbers(df, "length", QRELS, integer=True, missing_ok=True, negative_ok=False)
    nolen = ~np.isnan(off) & np.isnan(ln)
    if nolen.any():
        _first(QRELS, nolen, lambda i: f"length is missing where offset {off[i]:.0f} is given",
               "the passage's length, or 0 (or no offset) for a judged non-relevant document")
    n = len(df)
    dl = (numbers(df, "doc_length", QRELS, integer=True, missing_ok=True, negative_ok=False)
          if "doc_length" in df.columns else np.full(n, np.nan))
    bep = (numbers(df, "bep", QRELS, integer=True, missing_ok=True) if "bep" in df.columns else np.full(n, np.nan))
    passage = ~np.isnan(off) & (np.nan_to_num(ln) != 0)
    pi = np.flatnonzero(passage)
    o, n_ = off[pi].astype(np.int64), ln[pi].astype(np.int64)
    past = o + n_ > INT_MAX
    if past.any():
        i = int(pi[np.flatnonzero(past)[0]])
        raise FrameError(QRELS, f"row {i}", f"passage {off[i]:.0f}:{ln[i]:.0f} ends past {INT_MAX}",
                         "passages inside the document")
    key = _pair_codes(q, d)
    keys, first = np.unique(key, return_index=True)
    # passages of each (query, doc) in offset order: overlapping ones are an error
    order = np.lexsort((o, key[pi]))
    pi, o, n_, pk = pi[order], o[order], n_[order], key[pi][order]
    over = (pk[1:] == pk[:-1]) & (o[1:] < o[:-1] + n_[:-1])
    if over.any():
        j = int(np.flatnonzero(over)[0])
        raise FrameError(QRELS, f"query {q[pi[j]]} doc {d[pi[j]]}", f"passages {o[j]}:{n_[j]} and {o[j + 1]}:{n_[j + 1]} "
                         f"overlap (rows {pi[j]} and {pi[j + 1]})", "disjoint highlighted passages (the official "
                         "tool would count the common characters twice)")
    rel = np.bincount(pk, weights=n_, minlength=len(keys)).astype(np.int64)
    has = np.bincount(pk, minlength=len(keys)) > 0
    dlen = np.nan_to_num(dl[first], nan=0).astype(np.int64)
    given = bep[first]
    neg = has & (given < 0)
    if neg.any():
        i = int(first[np.flatnonzero(neg)[0]])
        warn_input(QRELS, f"row {i}", f"best entry point {bep[i]:.0f} of document {d[i]} is negative: the document "
                   "has none (Best in Context scores it 0)")
    beps = np.where(has & ~np.isnan(given), np.maximum(np.nan_to_num(given, nan=-1), -1), -1).astype(np.int64)
    docs = pd.DataFrame({"topic": q[first], "doc": d[first], "rel_chars": rel, "doc_chars": dlen, "bep_offset": beps,
                         "bep_xpath": np.full(len(keys), "", dtype=object)}).astype(DOCUMENT_COLUMNS)
    ends = (dlen[pk] > 0) & (o + n_ > dlen[pk])
    if ends.any():
        j = int(np.flatnonzero(ends)[0])
        warn_input(QRELS, f"row {pi[j]}", f"passage {o[j]}:{n_[j]} ends after the document's {dlen[pk[j]]} characters")
    if len(docs) and docs.groupby("doc", sort=False)["doc_chars"].nunique().max() > 1:
        doc = docs.groupby("doc", sort=False)["doc_chars"].nunique().idxmax()
        lens = docs.loc[docs["doc"] == doc, "doc_chars"].unique()
        warn_input(QRELS, f"doc {doc}", f"document {doc} has {lens[1]} characters and {lens[0]} in another query: "
                   "the rows of one document should agree on its length")
    passages = pd.DataFrame({"topic": q[pi], "doc": d[pi], "start": o, "length": n_,
                             "start_point": np.full(len(pi), "", dtype=object),
                             "end_point": np.full(len(pi), "", dtype=object)}).astype(PASSAGE_COLUMNS)
    return Assessments("fol", QRELS, passages=passages, documents=docs)


def run_from_frame(df: pd.DataFrame, name: str = "run", task: str = "") -> Run:
    """A run from a DataFrame (module docstring): passages, elements or whole documents."""
    if not isinstance(df, pd.DataFrame):
        df = frame_of(df, "run")
    _require(df, RUN, ["query_id", "doc_id"])
    if "rank" not in df.columns and "score" not in df.columns:
        raise FrameError(RUN, None, "has neither rank nor score", "a rank and/or a score column")
    passage = "offset" in df.columns or "length" in df.columns
    if passage:
        _require(df, RUN, ["offset", "length"])
    element = not passage and "xpath" in df.columns
    n = len(df)
    if not n:
        raise FrameError(RUN, None, "has no rows", "one row per result")
    q, d = ids(df, "query_id", RUN), ids(df, "doc_id", RUN)
    rank = numbers(df, "rank", RUN, integer=True) if "rank" in df.columns else None
    score = numbers(df, "score", RUN, integer=False) if "score" in df.columns else -rank
    xpath = np.full(n, "", dtype=object)
    if passage:
        off = numbers(df, "offset", RUN, integer=True).astype(np.int64)
        ln = numbers(df, "length", RUN, integer=True).astype(np.int64)
        neg = (off < 0) | (ln < 0)
        if neg.any():
            _first(RUN, neg, lambda i: f"negative offset or length ({off[i]}, {ln[i]})", "non-negative integers")
        fmt = "fol-text"
    elif element:
        canon = {}
        for i, x in enumerate(df["xpath"].to_numpy(dtype=object)):
            if x not in canon:
                try:
                    canon[x] = canonical_xpath(x) if isinstance(x, str) else None
                except ValueError as e:
                    raise FrameError(RUN, f"row {i}", f"xpath: {e}") from None
                if canon[x] is None:
                    raise FrameError(RUN, f"row {i}", f"xpath {x!r} is not a string", "an element's xpath")
        xpath = df["xpath"].map(canon).to_numpy(dtype=object)
        off, ln, fmt = np.full(n, -1, np.int64), np.full(n, -1, np.int64), "xpath-text"
    else:  # whole documents, as a 6-column TREC run
        off, ln, fmt = np.zeros(n, np.int64), np.full(n, -1, np.int64), "trec-text"
    res = pd.DataFrame({"topic": q, "doc": d, "xpath": xpath, "offset": off, "length": ln,
                        "rank": (rank if rank is not None else np.zeros(n)).astype(np.int64), "rsv": score,
                        "line": np.arange(n, dtype=np.int64)})
    _warn_odd(res)
    res = order_results(res, has_rank=rank is not None)
    if rank is None:  # no ranks: the frame is read in score order by every family, the file-order ones too
        res["line"] = np.arange(n, dtype=np.int64)
    t = ""
    if task:
        t = normalise_task(task)
        if t is None:
            raise UsageError(unknown_task(task))
    return Run(name, name, t, fmt, RUN, res[list(RESULT_COLUMNS)], task_label=str(task or ""), name=name)


def _warn_odd(res: pd.DataFrame) -> None:
    """What the text readers warn about, naming rows: negative ranks, empty passages, repeats."""
    neg = np.flatnonzero(res["rank"].to_numpy() < 0)
    if len(neg):
        warn_input(RUN, f"row {neg[0]}", f"negative rank {res['rank'].iloc[neg[0]]} ({len(neg)} in the run; ranks "
                   "count from 1)")
    empty = np.flatnonzero((res["offset"].to_numpy() >= 0) & (res["length"].to_numpy() == 0))
    if len(empty):
        warn_input(RUN, f"row {empty[0]}", f"passage of length 0 ({len(empty)} in the run): it retrieves nothing")
    dup = duplicate_mask(res)
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        warn_input(RUN, f"row {i}", f"duplicate result: query {res['topic'].iloc[i]} doc {res['doc'].iloc[i]} "
                   f"repeated ({counted(int(dup.sum()), 'repeated result')} in the run)")


def is_records(x) -> bool:
    """Whether ``x`` is what ir_measures takes as qrels or a run besides a DataFrame: a dict of
    dicts, or an iterable (list, generator) of namedtuples -- not a path or a list of paths."""
    if isinstance(x, dict):
        return True
    if isinstance(x, (str, bytes, pd.DataFrame)) or hasattr(x, "__fspath__") or not hasattr(x, "__iter__"):
        return False
    if isinstance(x, (list, tuple)):
        return bool(x) and isinstance(x[0], tuple) and hasattr(x[0], "_fields")
    return True  # a generator or iterator: read as namedtuples


def frame_of(x, kind: str) -> pd.DataFrame:
    """The DataFrame of ir_measures' qrels or run (``kind``): a dict of dicts
    (``{query: {doc: value}}``) or an iterable of namedtuples (``Qrel``, ``ScoredDoc``, or any
    with the DataFrames' field names)."""
    value = "relevance" if kind == "qrels" else "score"
    what = QRELS if kind == "qrels" else RUN
    if isinstance(x, dict):
        bad = next((q for q, docs in x.items() if not isinstance(docs, dict)), None)
        if bad is not None:
            raise FrameError(what, f"query {bad!r}", f"maps to {type(x[bad]).__name__} {x[bad]!r:.40}",
                             "a dict of dicts, {query: {doc: value}}")
        rows = [(q, d, v) for q, docs in x.items() for d, v in docs.items()]
        return pd.DataFrame(rows, columns=["query_id", "doc_id", value])
    it = iter(x)
    first = next(it, None)
    if first is None:
        return pd.DataFrame({c: [] for c in ("query_id", "doc_id", value)})
    fields = getattr(first, "_fields", None)
    if not (isinstance(first, tuple) and fields):
        raise FrameError(what, "item 0", f"{type(first).__name__} {first!r:.60} is not a namedtuple",
                         f"ir_measures.{'Qrel' if kind == 'qrels' else 'ScoredDoc'} tuples, a dict of dicts or a "
                         "DataFrame")
    rows = [first, *it]
    return pd.DataFrame.from_records(rows, columns=list(fields))


def frame_of_assessments(a: Assessments) -> pd.DataFrame:
    """``a`` as the DataFrame :func:`assessments_from_frame` reads back: TREC qrels as
    ``query_id, doc_id, relevance, iteration``; FOL qrels as one row per passage (``query_id,
    doc_id, offset, length, doc_length, bep, relevance``; a judged document without passages as
    offset NaN, length 0). Element assessments (INEX 2002-2006) have no DataFrame form."""
    d = a.documents
    if a.scale == "trec":
        return pd.DataFrame({"query_id": d["topic"].to_numpy(object), "doc_id": d["doc"].to_numpy(object),
                             "relevance": d["grade"].to_numpy().astype(np.int64), "iteration": "0"})
    if a.scale != "fol":
        raise UsageError(f"{a.source}: {a.scale} element assessments have no DataFrame form; give the path to "
                         "inexflow.evaluate instead")
    p = a.passages
    docs = d.assign(_doc=np.arange(len(d)))
    rows = docs.merge(p[["topic", "doc", "start", "length"]], on=["topic", "doc"], how="left", sort=False)
    rows = rows.sort_values(["_doc", "start"], kind="stable")
    return pd.DataFrame({"query_id": rows["topic"].to_numpy(object), "doc_id": rows["doc"].to_numpy(object),
                         "offset": rows["start"].to_numpy(np.float64),
                         "length": rows["length"].fillna(0).to_numpy().astype(np.int64),
                         "doc_length": rows["doc_chars"].to_numpy(np.int64),
                         "bep": rows["bep_offset"].to_numpy(np.int64),
                         "relevance": (rows["rel_chars"].to_numpy() > 0).astype(np.int64)})


def frame_of_run(run: Run) -> pd.DataFrame:
    """``run`` as the DataFrame :func:`run_from_frame` reads back (``rank``, and ``score`` where
    the run has scores; ``offset, length`` for passages, ``xpath`` for elements), rows in the
    file's order, which the families that read runs as the official tool reads them follow
    (a topic listed in two blocks stays two blocks)."""
    r = run.results.sort_values("line", kind="stable") if "line" in run.results.columns else run.results
    out = {"query_id": r["topic"].to_numpy(object), "doc_id": r["doc"].to_numpy(object),
           "rank": r["rank"].to_numpy(np.int64)}
    if r["rsv"].notna().all():
        out["score"] = r["rsv"].to_numpy(np.float64)
    if run.format != "trec-text":
        if (r["xpath"] != "").any():
            out["xpath"] = r["xpath"].to_numpy(object)
        else:
            out["offset"], out["length"] = r["offset"].to_numpy(np.int64), r["length"].to_numpy(np.int64)
    return pd.DataFrame(out)


__all__ = ["FrameError", "assessments_from_frame", "run_from_frame", "frame_of", "frame_of_assessments", "frame_of_run",
           "is_records"]
