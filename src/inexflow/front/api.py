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

TREC-shaped frames are scored as trec_eval scores them (the ``trec`` family), with no task:

>>> qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["A", "B", "A"], "relevance": [2, 0, 1]})
>>> run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["B", "A", "A"], "score": [2.0, 1.0, 1.0]})
>>> inexflow.evaluate(qrels, run, ["map", "P_5"])
  measure  value
0     map   0.75
1     P_5   0.20

(topic 1 finds its one relevant document at rank 2, AP 1/2; topic 2 at rank 1, AP 1; P_5 = 1/5 each.)

DataFrames use TREC-style column names (:mod:`inexflow.front.frames`):

- assessments: TREC qrels ``query_id``, ``doc_id``, ``relevance`` (graded integers, > 0
  relevant); or FOL qrels, one row per highlighted passage: ``query_id``, ``doc_id``,
  ``offset``, ``length``; optional ``doc_length`` (the document's characters) and ``bep``
  (best entry point offset). A row with ``length`` 0 or a missing ``offset`` is a judged
  non-relevant document.
- runs: ``query_id``, ``doc_id``, ``rank`` and/or ``score`` (without ``rank`` results are
  ranked by descending score, then by row order), then ``offset`` and ``length`` (passages),
  ``xpath`` (elements, resolved through ``collection``) or neither (documents).
- ir_measures' qrels and runs (iterables of ``Qrel``/``ScoredDoc``, dict-of-dicts) are read as
  these frames.

Errors in a DataFrame are one :class:`~inexflow.front.frames.FrameError` (a ``UsageError``)
naming the row (its position, from 0), the (query, document) or the column.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from inexflow.errors import UsageError
from inexflow.front.frames import FrameError, assessments_from_frame, frame_of, is_records, run_from_frame
from inexflow.measures.output import select_scores
from inexflow.measures.registry import scoring_task, select_measures, trec_parameters
from inexflow.measures.session import Session
from inexflow.model.assessments import Assessments, read_assessments
from inexflow.model.options import Options
from inexflow.model.runs import Run, read_run


def _assessments(a, fmt="auto") -> Assessments:
    if isinstance(a, Assessments):
        return a
    if isinstance(a, pd.DataFrame):
        return assessments_from_frame(a)
    if is_records(a):
        return assessments_from_frame(frame_of(a, "qrels"))
    return read_assessments(list(a) if isinstance(a, (list, tuple)) else a, fmt)


def _run(r, task) -> Run:
    if isinstance(r, Run):
        return r
    if isinstance(r, pd.DataFrame):
        return run_from_frame(r, task=task)
    if is_records(r):
        return run_from_frame(frame_of(r, "run"), task=task)
    return read_run(r, task=task)


def evaluate(assessments, run, measures=None, *, task: str | None = None, families=None, collection=None,
             per_topic=False, assessments_format="auto", **options) -> pd.DataFrame:
    """Score ``run`` against ``assessments`` and return a tidy DataFrame.

    ``assessments``: a path (file or directory), a list of paths, an
    :class:`~inexflow.model.assessments.Assessments`, a DataFrame or ir_measures' qrels; ``run``: a
    path, a :class:`~inexflow.model.runs.Run`, a DataFrame or ir_measures' run. ``measures``: a name or a list of names
    such as ``"MAiP"``, ``"iP[0.01]"``, ``"nxCG[10]"``, ``"MAgP"``, or as trec_eval's ``-m``
    takes them (``"iP.0.01,0.05"``, ``"P.5,10"``, ``"official"``;
    :func:`inexflow.measures.registry.select_measures`; default: every measure of the
    families), in the order given; with ``per_topic=True`` a mean's name gives its per-topic
    measure (``MAiP``: ``AiP`` per topic and ``MAiP`` over ``all``), as ir_measures does;
    ``task``: a scoring type or a submission label (may be left out for document scoring: TREC
    qrels, or ``families=["trec"]``); ``families``: instead of the task's
    default; ``options``: any :class:`~inexflow.model.options.Options` field (``cutoffs``,
    ``quantisations``, ``beta``, ``overlap``, ...). Returns the means (columns ``measure``,
    ``value``, plus ``quant`` where several quantisations are scored), or with
    ``per_topic=True`` the rows ``topic, quant, measure, value`` of every topic and ``all``.
    """
    if measures is not None and not (isinstance(measures, str)
                                     or (isinstance(measures, (list, tuple)) and all(isinstance(m, str) for m in measures))):
        raise UsageError(f"inexflow.evaluate measures: {measures!r:.60} is not a name or a list of names "
                         "(expected e.g. 'MAiP' or ['map', 'P.5,10'])")
    if task is not None and not isinstance(task, str):
        raise UsageError(f"inexflow.evaluate task: {task!r} is not a name (expected e.g. 'focused')")
    if isinstance(families, str):  # one family, as measures takes one name
        families = [families]
    if families is not None and not (isinstance(families, (list, tuple)) and all(isinstance(f, str) for f in families)):
        raise UsageError(f"inexflow.evaluate families: {families!r:.60} is not a name or a list of names "
                         "(expected e.g. 'passage' or ['passage', 'trec'])")
    if not isinstance(per_topic, bool):
        raise UsageError(f"inexflow.evaluate per_topic: {per_topic!r:.60} is not True or False")
    opts = Options.from_dict(options)
    if measures is not None:  # trec measures at parameters beyond trec_eval's defaults (P.7), as -m takes them
        extra = trec_parameters(measures)
        opts = replace(opts, trec_measures=tuple(dict.fromkeys([*opts.trec_measures, *extra])))
    a = _assessments(assessments, assessments_format)
    task = scoring_task(a.scale, a.source, task, families, "task")
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


__all__ = ["evaluate", "read_assessments", "read_run", "assessments_from_frame", "run_from_frame", "FrameError", "Options"]
