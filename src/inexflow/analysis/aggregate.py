"""Aggregation of per-run score tables into campaign tables.

- all scores: the tidy table (run, topic, task, quant, measure, value), every run;
- means: the rows with topic ``all``;
- one summary per task: one row per (run, quant) with the participant, the mean of
  every measure but the points of curves as columns, ranked by the task's main measure
  (rank 1 = best; equal scores share the smaller rank), and the warnings about each run.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.errors import UsageError
from inexflow.io.tables import CachedTableError, check_identity, read_parquet, read_parquet_metadata, read_parquet_tables
from inexflow.measures.catalogue import NO_QUANT, curve_point, is_count
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


def read_run_scores(paths, task_runs: dict[str, list[str]]) -> tuple[pd.DataFrame, dict[str, dict[str, list[str]]]]:
    """The scores of the runs of each evaluation task (``task_runs``: {task: its runs}) from the
    runs' own score tables ``paths`` (``scores/by_run/RUN.parquet``, each holding every task its
    run belongs to), as one table (:func:`combine_scores`), and the warnings about each run in
    each task ({task: {run: warnings}}, :func:`inexflow.model.run_checks.run_warnings`). Each
    table is read once and checked to be its run's and to hold the scores of each task it is
    read for: a table copied over another, or left from another campaign, is a
    :class:`~inexflow.io.tables.CachedTableError` naming it."""
    by_run = {Path(p).stem: str(p) for p in paths}
    tasks_of: dict[str, list[str]] = {}
    for task, runs in task_runs.items():
        for r in runs:
            tasks_of.setdefault(r, []).append(task)
    metas = {}
    for run, tasks in tasks_of.items():
        path = by_run[run]
        meta = metas[run] = read_parquet_metadata(path)
        check_identity(path, meta, run=run)
        for task in tasks:
            if task not in (meta.get("tasks") or []):
                raise CachedTableError(path, f"cached table holds no scores for task {task!r} (the file was replaced "
                                             "or is left from another campaign)")
    # each table's rows of the tasks it is read for (the tasks as the table's own string type)
    parts = [(by_run[run], lambda t, tasks=tasks: pc.is_in(t["task"], pa.array(tasks, t.schema.field("task").type)))
             for run, tasks in tasks_of.items()]
    warnings = {task: {r: w for r in runs if (w := (metas[r].get("warnings") or {}).get(task))}
                for task, runs in task_runs.items()}
    return combine_scores([read_parquet_tables(parts)] if parts else []), warnings


def task_summary(scores: pd.DataFrame, task: str, main_measure: str, participants: dict[str, str],
                 warnings: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """Runs of ``task`` ranked by ``main_measure`` (means over topics), one row per (run, quant),
    with the ``warnings`` about each run in a last column (``; `` between them). The points of
    curves (``ep[x]``, ``ircl_prn.x``, ``nxCG@[k]``...) are left to the score tables and plots."""
    m = scores[(scores["task"] == task) & (scores["topic"] == "all")]
    m = m[m["measure"].map(lambda n: curve_point(n) is None)]
    if m.empty:
        return pd.DataFrame(columns=["rank", "run", "participant", "quant", main_measure, "warnings"])
    wide = m.pivot_table(index=["run", "quant"], columns="measure", values="value", aggfunc="first", sort=True)
    wide = wide.reset_index()
    wide.columns.name = None
    wide = _spread_fixed_labels(wide)
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
    wide["warnings"] = wide["run"].map(lambda r: "; ".join((warnings or {}).get(r, [])))
    return wide.reset_index(drop=True)


def _spread_fixed_labels(wide: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, quantisation) when a task's scores carry both quantisations and fixed
    labels (``-``, ``chars``, ``bep``: the cutoff family's set overlap beside its precision per
    quantisation): the measures only the fixed-label rows hold are repeated on each of the run's
    quantised rows, and the fixed-label rows go."""
    fixed = wide["quant"].isin(NO_QUANT)
    if not fixed.any() or fixed.all():
        return wide
    quantised = wide[~fixed].copy()
    by_run = wide[fixed].drop(columns="quant").groupby("run", sort=False).first()
    for c in by_run.columns:
        if quantised[c].isna().all() and by_run[c].notna().any():
            quantised[c] = quantised["run"].map(by_run[c])
    return quantised.reset_index(drop=True)


def summary_counts(summary: pd.DataFrame) -> set[str]:
    """The columns of a summary that hold counts (written as integers)."""
    return {c for c in summary.columns if is_count(str(c))} | {"rank"}
