"""The Python API for notebooks: score a run against assessments in one call, as
``ir_measures.calc_aggregate`` or ``ranx.evaluate`` do.

>>> import pandas as pd, inexflow
>>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["A", "B"], "offset": [0, 10], "length": [100, 50],
...                       "doc_length": [500, 300]})
>>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["A", "C"], "score": [2.0, 1.0],
...                     "offset": [0, 0], "length": [100, 40]})
>>> inexflow.evaluate(qrels, run, ["MAiP", "iP[0.01]"], task="focused")
    measure     value
0      MAiP  0.663366
1  iP[0.01]  1.000000

(A's 100 relevant characters at rank 1 give precision 1 up to recall 100/150: 67 of the 101
recall levels, so MAiP = 67/101, which is what inex_eval v3.1 prints for these qrels and run.)

The same session as ``inexflow score`` and the workflow's ``score`` stage
(:class:`inexflow.measures.session.Session`), so the numbers are the official tool's.

DataFrames use TREC-style column names:

- assessments (FOL qrels, one row per highlighted passage): ``query_id``, ``doc_id``,
  ``offset``, ``length``; optional ``doc_length`` (the document's characters) and ``bep``
  (best entry point offset). A row with ``length`` 0 or a missing ``offset`` is a judged
  non-relevant document.
- runs: ``query_id``, ``doc_id``, then ``offset`` and ``length`` (passages) or ``xpath``
  (elements, resolved through ``collection``); ``rank`` and/or ``score``: without ``rank``
  results are ranked by descending score, then by row order.

Errors in a DataFrame name the row (its position, from 0) or the (query, document).
"""

from __future__ import annotations

import os
import tempfile

import pandas as pd

from inexflow.errors import InputError, UsageError
from inexflow.measures.output import select_scores
from inexflow.measures.registry import select_measures
from inexflow.measures.session import Session
from inexflow.model.assessments import Assessments, read_assessments
from inexflow.model.options import Options
from inexflow.model.runs import Run, read_run

RUN_NAME = "run"


def _require(df: pd.DataFrame, what: str, columns) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise UsageError(f"{what} DataFrame has no column {', '.join(missing)} (has {', '.join(map(str, df.columns))};"
                         f" see inexflow.front.api for the column names)")


def _via_text(write_lines, read, what: str, where_of):
    """Write a DataFrame as the text format, read it with the format's own reader (every check
    applies), and name DataFrame rows instead of the temporary file's lines in errors."""
    fd, tmp = tempfile.mkstemp(suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(write_lines())
        try:
            return read(tmp)
        except InputError as e:
            where = e.where
            if isinstance(where, str) and where.startswith("line "):
                where = where_of(int(where.split()[1]))
            raise InputError(f"<{what} DataFrame>", where, e.problem.replace(tmp, what), e.expected) from None
    finally:
        os.unlink(tmp)


def assessments_from_frame(df: pd.DataFrame) -> Assessments:
    """FOL assessments from a DataFrame (module docstring for the columns)."""
    _require(df, "assessments", ["query_id", "doc_id", "offset", "length"])
    n = len(df)
    cols = {c: (df[c].tolist() if c in df.columns else [None] * n) for c in ("offset", "length", "doc_length", "bep")}
    groups: dict[tuple[str, str], list] = {}  # (query, doc) -> [passages, doc_length, bep], in row order
    for q, doc, o, ln, dl, bep in zip(df["query_id"].astype(str), df["doc_id"].astype(str), cols["offset"],
                                      cols["length"], cols["doc_length"], cols["bep"]):
        g = groups.get((q, doc))
        if g is None:
            g = groups[(q, doc)] = [[], dl, bep]
        if pd.notna(o) and ln:
            g[0].append((int(o), int(ln)))
    keys = list(groups)

    def lines():
        for (q, doc), (parts, dl, bep) in groups.items():
            dlen = int(dl) if dl is not None and pd.notna(dl) else 0
            b = int(bep) if bep is not None and pd.notna(bep) else -1
            tail = "".join(f" {o}:{n}" for o, n in parts)
            yield f"{q} Q0 {doc} {sum(n for _, n in parts)} {dlen} {b}{tail}\n"

    def where_of(line):
        q, doc = keys[line - 1]
        return f"query {q} doc {doc}"

    a = _via_text(lines, lambda p: read_assessments(p, "fol"), "assessments", where_of)
    a.source = "<assessments DataFrame>"
    return a


def run_from_frame(df: pd.DataFrame, name: str = RUN_NAME, task: str = "") -> Run:
    """A run from a DataFrame (module docstring for the columns)."""
    _require(df, "run", ["query_id", "doc_id"])
    passage = "offset" in df.columns and "length" in df.columns
    if not passage and "xpath" not in df.columns:
        raise UsageError("run DataFrame has neither offset and length (passages) nor xpath (elements)")
    if "rank" not in df.columns and "score" not in df.columns:
        raise UsageError("run DataFrame has neither rank nor score")
    d = df.reset_index(drop=True)
    if "rank" in d.columns:
        rank = d["rank"]
    else:  # descending score, then row order, per query
        order = d.assign(_row=range(len(d))).sort_values(["query_id", "score", "_row"], ascending=[True, False, True],
                                                         kind="stable")
        rank = order.groupby("query_id", sort=False).cumcount().add(1).reindex(d.index)
    score = d["score"] if "score" in d.columns else -rank.astype(float)

    def lines():
        loc = (zip(d["offset"], d["length"]) if passage else ((x, None) for x in d["xpath"]))
        for q, doc, r, s, (a, b) in zip(d["query_id"], d["doc_id"], rank, score, loc):
            tail = f"{a} {b}" if passage else f"{a}"
            yield f"{q} Q0 {doc} {r} {s!r} {name} {tail}\n"

    run = _via_text(lines, lambda p: read_run(p, task=task or None), "run", lambda line: f"row {line - 1}")
    run.source, run.name = "<run DataFrame>", name
    return run


def _assessments(a, fmt="auto") -> Assessments:
    if isinstance(a, Assessments):
        return a
    if isinstance(a, pd.DataFrame):
        return assessments_from_frame(a)
    return read_assessments([str(p) for p in a] if isinstance(a, (list, tuple)) else str(a), fmt)


def _run(r, task) -> Run:
    if isinstance(r, Run):
        return r
    if isinstance(r, pd.DataFrame):
        return run_from_frame(r, task=task)
    return read_run(str(r), task=task)


def evaluate(assessments, run, measures=None, *, task: str, families=None, collection=None, per_topic=False,
             assessments_format="auto", **options) -> pd.DataFrame:
    """Score ``run`` against ``assessments`` and return a tidy DataFrame.

    ``assessments``: a path (file or directory), a list of paths, an
    :class:`~inexflow.model.assessments.Assessments` or a DataFrame; ``run``: a path, a
    :class:`~inexflow.model.runs.Run` or a DataFrame. ``measures``: a name or a list of names
    such as ``"MAiP"``, ``"iP[0.01]"``, ``"nxCG[10]"``, ``"MAgP"``, or as trec_eval's ``-m``
    takes them (``"iP.0.01,0.05"``, ``"P.5,10"``, ``"official"``;
    :func:`inexflow.measures.registry.select_measures`; default: every measure of the
    families), in the order given; with ``per_topic=True`` a mean's name gives its per-topic
    measure (``MAiP``: ``AiP`` per topic and ``MAiP`` over ``all``), as ir_measures does;
    ``task``: a scoring type or a submission label; ``families``: instead of the task's
    default; ``options``: any :class:`~inexflow.model.options.Options` field (``cutoffs``,
    ``quantisations``, ``beta``, ``overlap``, ...). Returns the means (columns ``measure``,
    ``value``, plus ``quant`` where several quantisations are scored), or with
    ``per_topic=True`` the rows ``topic, quant, measure, value`` of every topic and ``all``.
    """
    opts = Options.from_dict(options)
    a = _assessments(assessments, assessments_format)
    session = Session.build(a, task, families, opts, collection)
    if measures is not None:
        measures = select_measures(measures, session.families, opts, "inexflow.evaluate measures")
    scores = session.score(_run(run, task))
    if measures is not None:
        scores = select_scores(scores, measures)
    if per_topic:
        return scores[["topic", "quant", "measure", "value"]].reset_index(drop=True)
    means = scores[scores["topic"] == "all"]
    cols = ["quant", "measure", "value"] if means["quant"].nunique() > 1 else ["measure", "value"]
    return means[cols].reset_index(drop=True)


__all__ = ["evaluate", "read_assessments", "read_run", "assessments_from_frame", "run_from_frame", "Options"]
