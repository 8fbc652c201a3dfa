"""Rank correlation between system rankings (docs/measures.md, Statistics).

- Kendall tau-b (ties allowed), via scipy.
- tau_AP (Yilmaz, Aslam & Robertson 2008): with the runs ordered by the estimated scores,
  tau_AP = 2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1, C(i) the number of runs above position i
  in the estimated ranking that the true ranking also puts above the run at i. Ties in the
  estimated scores are averaged over ``n_perm`` random tie-breakings from a seeded
  generator (exact when there are no ties); ties in the true scores count as "not above".
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau


def tau_b(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2:
        return float("nan")
    if np.array_equal(x, y):
        return 1.0  # the same scores give the same ranking, ties included
    v = kendalltau(x, y).statistic
    return float(v) if not np.isnan(v) else float("nan")


def _tau_ap_order(truth: np.ndarray, order: np.ndarray) -> float:
    n = len(order)
    t = truth[order]
    total = 0.0
    for i in range(1, n):
        total += np.count_nonzero(t[:i] > t[i]) / i
    return 2.0 * total / (n - 1) - 1.0


def tau_ap(truth, estimate, seed: int = 0, n_perm: int = 100) -> float:
    """tau_AP of the ranking by ``estimate`` against the ranking by ``truth`` (higher = better)."""
    truth = np.asarray(truth, float)
    est = np.asarray(estimate, float)
    n = len(est)
    if n < 2:
        return float("nan")
    if len(np.unique(est)) == n:
        return _tau_ap_order(truth, np.argsort(-est, kind="stable"))
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(n_perm):
        tiebreak = rng.random(n)
        order = np.lexsort((tiebreak, -est))
        vals.append(_tau_ap_order(truth, order))
    return float(np.mean(vals))
