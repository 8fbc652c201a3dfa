"""Per-topic score matrices (runs x topics) from the tidy score table."""

from __future__ import annotations

import pandas as pd

from inexflow.errors import UsageError
from inexflow.io.topic_order import topic_sort_key
from inexflow.measures.catalogue import per_topic_name


def score_matrix(scores: pd.DataFrame, task: str, measure: str, quant: str | None = None) -> pd.DataFrame:
    """Runs x topics of ``measure`` (a mean name like MAiP is read per topic as AiP), over
    every topic some run has a value for; a run's missing topics count 0 (a paired test
    needs every run on every topic; the official means leave them out unless
    ``empty_topics_zero``: :func:`answered_matrix` says which)."""
    return answered_matrix(scores, task, measure, quant).fillna(0.0)


def answered_matrix(scores: pd.DataFrame, task: str, measure: str, quant: str | None = None) -> pd.DataFrame:
    """:func:`score_matrix` before the missing topics count 0: NaN where a run has no value
    for a topic (a value that is NaN itself counts 0)."""
    m = per_topic_name(measure)
    s = scores[(scores["task"] == task) & (scores["measure"] == m) & (scores["topic"] != "all")]
    if quant is not None:
        s = s[s["quant"] == quant]
    if s.empty:
        raise UsageError(f"no per-topic values of {m!r} for task {task!r}"
                         + (f" under {quant!r}" if quant else "") + " in the scores")
    quants = list(dict.fromkeys(s["quant"]))
    if len(quants) > 1:  # one value per run and topic, never the first of several
        raise UsageError(f"{m!r} of task {task!r} has values under several quantisations ({', '.join(quants)}): "
                         "name one (config analysis.quant)")
    # a value that is itself NaN (0/0) counts 0, so NaN in the matrix means "no value"
    mat = s.assign(value=s["value"].fillna(0.0)).pivot_table(index="run", columns="topic", values="value",
                                                            aggfunc="first")
    cols = sorted(mat.columns, key=topic_sort_key)
    return mat[cols].sort_index()
