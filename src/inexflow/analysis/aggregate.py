"""Aggregation of per-run score tables into campaign tables.

- all scores: the tidy table (run, topic, task, quant, measure, value), every run;
- means: the rows with topic ``all``;
- one summary per task: one row per (run, quant) with the participant, the mean of
  every measure as columns, ranked by the task's main measure (rank 1 = best; equal
  scores share the smaller rank).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from inexflow.errors import UsageError
from inexflow.io.tables import check_identity, read_parquet, read_parquet_metadata
from inexflow.measures.catalogue import is_count
from inexflow.measures.context import SCORE_COLUMNS


def read_task_scores(path) -> pd.DataFrame:
    """One evaluation task's score table (``scores/by_task/TASK.parquet``, written by the
    ``aggregate_task`` stage), checked to be that task's: a table copied over another task's
    is a :class:`~inexflow.io.tables.CachedTableError` naming the file."""
    check_identity(path, read_parquet_metadata(path), task=Path(path).stem)
    return read_parquet(path)


def combine_scores(tables: list[pd.DataFrame]) -> pd.DataFrame:
    if not tables:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    df = pd.concat(tables, ignore_index=True)
    return df.sort_values(["task", "run", "quant"], kind="stable").reset_index(drop=True)


def task_summary(scores: pd.DataFrame, task: str, main_measure: str, participants: dict[str, str]) -> pd.DataFrame:
    """Runs of ``task`` ranked by ``main_measure`` (means over topics), one row per (run, quant)."""
    m = scores[(scores["task"] == task) & (scores["topic"] == "all")]
    if m.empty:
        return pd.DataFrame(columns=["rank", "run", "participant", "quant", main_measure])
    wide = m.pivot_table(index=["run", "quant"], columns="measure", values="value", aggfunc="first", sort=True)
    wide = wide.reset_index()
    wide.columns.name = None
    if main_measure not in wide.columns:
        raise UsageError(f"main measure {main_measure!r} of task {task!r} is not among the computed measures "
                         f"({', '.join(sorted(set(m['measure'])))})")
    wide.insert(1, "participant", wide["run"].map(participants).fillna(""))
    order = list(dict.fromkeys(m["measure"]))  # the order the family computes them in
    counts = [c for c in order if is_count(c)]
    first = [main_measure] + [c for c in order if c != main_measure and c not in counts] + counts
    wide = wide[["run", "participant", "quant"] + first]
    wide = wide.sort_values(["quant", main_measure, "run"], ascending=[True, False, True], kind="stable")
    # rows of families without the main measure (NaN) stay unranked (rank 0)
    rank = wide.groupby("quant")[main_measure].rank(method="min", ascending=False)
    wide.insert(0, "rank", rank.fillna(0).astype(int))
    return wide.reset_index(drop=True)
