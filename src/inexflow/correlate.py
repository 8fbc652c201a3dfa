"""Rank correlation between the system rankings different measures and quantisations give.

Kendall's tau-b (ties allowed) between the run scores of every pair of
(quantisation, measure) within a task, as in the INEX 2005 paper (section 7, Tables 1-2).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import kendalltau


def measure_correlations(scores: pd.DataFrame, measures: dict[str, list[str]]) -> pd.DataFrame:
    """tau-b between every pair of (quant, measure) rankings of the runs of each task.

    ``measures`` maps task -> the measures to compare (the others are left out).
    """
    rows = []
    means = scores[scores["topic"] == "all"]
    for task in sorted(set(means["task"])):
        wanted = measures.get(task)
        if not wanted:
            continue
        t = means[(means["task"] == task) & means["measure"].isin(wanted)]
        wide = t.pivot_table(index="run", columns=["quant", "measure"], values="value", aggfunc="first")
        cols = sorted(wide.columns)
        for a, b in itertools.combinations(cols, 2):
            x, y = wide[a].to_numpy(), wide[b].to_numpy()
            ok = ~(np.isnan(x) | np.isnan(y))
            n = int(ok.sum())
            tau = float(kendalltau(x[ok], y[ok]).statistic) if n >= 2 else float("nan")
            rows.append((task, a[0], a[1], b[0], b[1], n, tau))
    return pd.DataFrame.from_records(rows, columns=["task", "quant_a", "measure_a", "quant_b", "measure_b",
                                                    "runs", "tau_b"])
