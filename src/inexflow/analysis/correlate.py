"""Rank correlation between the system rankings of measures and quantisations (INEX 2005
paper, section 7, Tables 1 and 2).

For each task, every pair of (quantisation, measure) rankings of the task's runs is
compared with Kendall tau-b and tau_AP (:mod:`inexflow.analysis.rankcorr`; tau_AP is not
symmetric: the first ranking is taken as the truth). Two summary tables follow the paper:
measure-by-measure correlations averaged over tasks and quantisations (pairs of rankings
under the same quantisation), and quantisation-by-quantisation correlations averaged over
tasks and measures (pairs of rankings of the same measure).
"""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd

from inexflow.analysis.rankcorr import tau_ap, tau_b
from inexflow.errors import counted


def measure_correlations(scores: pd.DataFrame, measures: dict[str, list[str]]) -> pd.DataFrame:
    """tau-b and tau_AP between every pair of (quant, measure) rankings of the runs of each task."""
    rows = []
    means = scores[scores["topic"] == "all"]
    for task in sorted(set(means["task"])):
        wanted = measures.get(task)
        if not wanted:
            continue
        t = means[(means["task"] == task) & means["measure"].isin(wanted)]
        wide = t.pivot_table(index="run", columns=["quant", "measure"], values="value", aggfunc="first")
        if len(wide) < 2:  # legal (a task of one run), but every correlation of the task is NaN
            logging.getLogger("inexflow").warning(
                "correlations of task %s: the task has %s, and a rank correlation needs at least 2 runs: its tau_b "
                "and tau_ap are NaN", task, counted(len(wide), "run"))
        cols = sorted(wide.columns)
        for a, b in itertools.combinations(cols, 2):
            x, y = wide[a].to_numpy(), wide[b].to_numpy()
            ok = ~(np.isnan(x) | np.isnan(y))
            rows.append((task, a[0], a[1], b[0], b[1], int(ok.sum()), tau_b(x[ok], y[ok]),
                         tau_ap(x[ok], y[ok])))
    return pd.DataFrame.from_records(rows, columns=["task", "quant_a", "measure_a", "quant_b", "measure_b",
                                                    "runs", "tau_b", "tau_ap"])


def averaged_table(corr: pd.DataFrame, by: str) -> pd.DataFrame:
    """``by='measure'``: mean over tasks and quantisations of the pairs within one quantisation
    (Table 1); ``by='quant'``: mean over tasks and measures of the pairs of one measure (Table 2)."""
    other = "quant" if by == "measure" else "measure"
    same = corr[corr[f"{other}_a"] == corr[f"{other}_b"]]
    if same.empty:
        return pd.DataFrame(columns=[f"{by}_a", f"{by}_b", "tau_b", "tau_ap", "pairs"])
    out = same.groupby([f"{by}_a", f"{by}_b"], sort=True).agg(tau_b=("tau_b", "mean"), tau_ap=("tau_ap", "mean"),
                                                              pairs=("tau_b", "size")).reset_index()
    return out


def paper_matrix(averaged: pd.DataFrame, by: str, order) -> pd.DataFrame:
    """An :func:`averaged_table` in the shape of Tables 1 and 2 of the INEX 2005 measures
    paper: the lower triangle, rows ``order[1:]``, columns ``order[:-1]`` (``order``: the
    configured measures or quantisations, those without a value left out); a cell is the
    averaged tau-b to two decimals, as printed there, and in brackets the number of scores
    averaged (24 and 80 in the paper: 8 tasks x 3 quantisations, 8 tasks x 10 measures)."""
    cell = {}
    for a, b, tau, n in zip(averaged[f"{by}_a"], averaged[f"{by}_b"], averaged["tau_b"], averaged["pairs"]):
        cell[(a, b)] = cell[(b, a)] = f"{tau:.2f} ({int(n)})"
    items = [x for x in dict.fromkeys(order) if any(x in k for k in cell)]
    rows = [[row] + [cell.get((row, col), "") if j < i else "" for j, col in enumerate(items[:-1])]
            for i, row in enumerate(items) if i > 0]
    return pd.DataFrame(rows, columns=[by, *items[:-1]])
