"""Rank correlation between system rankings (docs/measures.md, Statistics).

- Kendall tau-b (ties allowed): (concordant - discordant) / sqrt(n0 - n1) / sqrt(n0 - n2), n0
  the pairs and n1, n2 those tied in either ranking, counted exactly over all pairs and divided
  in the order scipy's ``kendalltau`` divides (so the same float); identical weak orders give
  exactly 1, ties included; NaN where a ranking is all tied or a score is NaN. numpy only:
  importing ``scipy.stats`` costs a stage 0.6 s.
- tau_AP (Yilmaz, Aslam & Robertson, SIGIR 2008): with the runs ordered by the estimated
  scores, tau_AP = 2/(N-1) sum_{i=2..N} C(i)/(i-1) - 1, C(i) the number of runs above
  position i that the true ranking also puts above the run at i. It is defined without ties;
  the tie-aware versions of Urbano & Marrero (The Treatment of Ties in AP Correlation, ICTIR
  2017) are used instead:

  - :func:`tau_ap_a` ("accuracy"): the true ranking has no ties, the estimated one may; the
    expected tau_AP over all orders of the estimated ties, in closed form (their eq. for
    tau_AP,a). Without ties it is Yilmaz et al.'s tau_AP.
  - :func:`tau_ap_b` ("agreement"): ties in both; the mean of the two asymmetric
    coefficients, each counting the runs strictly above a run's tie group that the other
    ranking also puts strictly above it, over the size of that group's prefix. Identical
    rankings give 1, ties included.

  :func:`tau_ap`, the ``tau_ap`` column of every analysis, is tau_AP,a when the true scores
  have no ties (so it is Yilmaz et al.'s tau_AP wherever that is defined) and tau_AP,b when
  they do. Both equal 1 where tau-b is 1 (identical weak orders); an all-tied ranking has no
  AP correlation (NaN) unless both are all-tied (1).
- Spearman's rho (:func:`spearman_rho`): the Pearson correlation of the average ranks, as
  ``scipy.stats.spearmanr``. No analysis reports it: Ogilvie & Lalmas (section 3.4) avoid rank
  correlations "as they can be mis-leading", with two groups of 10 systems ordered alike
  between the groups and in reverse within them: rho 0.504 ("Spearman's rho is 0.5") and
  tau-b 10/190 = 0.0526 (the paper prints 0.026, 10/380: the pairs counted twice).
"""

from __future__ import annotations

import numpy as np

_BLOCK = 1024  # rows of the pair matrices built at a time (memory: _BLOCK x n)


def _pair_signs(v: np.ndarray, rows: slice) -> np.ndarray:
    """sign(v[j] - v[i]) for i in ``rows`` and every j, as int8 (no subtraction: infinities
    compare as they should)."""
    a = v[rows, None]
    return (v[None, :] > a).astype(np.int8) - (v[None, :] < a).astype(np.int8)


def tau_b(x, y) -> float:
    """Kendall's tau-b of two score vectors (module docstring)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = len(x)
    if n < 2 or np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    s = xtie2 = ytie2 = 0       # over ordered pairs (i, j), i != j: twice the pair counts
    same = True
    for start in range(0, n, _BLOCK):
        rows = slice(start, min(n, start + _BLOCK))
        sx, sy = _pair_signs(x, rows), _pair_signs(y, rows)
        same = same and bool(np.array_equal(sx, sy))
        s += int(np.sum(sx.astype(np.int64) * sy))
        xtie2 += int(np.count_nonzero(sx == 0)) - (rows.stop - rows.start)  # minus the diagonal
        ytie2 += int(np.count_nonzero(sy == 0)) - (rows.stop - rows.start)
    tot = n * (n - 1) // 2
    xtie, ytie = xtie2 // 2, ytie2 // 2
    if xtie == tot or ytie == tot:
        return 1.0 if same else float("nan")  # all tied: tau-b undefined unless both are (identical)
    if same:
        return 1.0  # the same weak order: exactly 1 (the division below can give 0.9999999999999998)
    tau = (s // 2) / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(min(1.0, max(-1.0, tau)))


def _average_ranks(v: np.ndarray) -> np.ndarray:
    """The rank of each value, 1 for the smallest; tied values share their ranks' mean."""
    order = np.argsort(v, kind="stable")
    ordered = v[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]]  # the start of each tie group
    start = np.flatnonzero(first)
    size = np.diff(np.r_[start, len(v)])
    ranks = np.empty(len(v))
    ranks[order] = np.repeat(start + (size + 1) / 2, size)
    return ranks


def spearman_rho(x, y) -> float:
    """Spearman's rho of two score vectors: the Pearson correlation of their average ranks
    (module docstring); NaN where a vector is all tied or holds NaN."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = np.sqrt(np.dot(rx, rx) * np.dot(ry, ry))
    return float(np.dot(rx, ry) / den) if den > 0 else float("nan")


def _above(v: np.ndarray) -> np.ndarray:
    """above[i, j]: run j scores strictly higher than run i."""
    return v[None, :] > v[:, None]


def tau_ap_a(truth, estimate) -> float:
    """Urbano & Marrero's tau_AP,a: ``truth`` without ties, ``estimate`` with or without."""
    x, y = np.asarray(truth, float), np.asarray(estimate, float)
    n = len(x)
    if n < 2:
        return float("nan")
    if len(np.unique(x)) < n:
        raise ValueError("tau_AP,a needs a true ranking without ties (use tau_ap_b)")
    above_y = _above(y)
    p = above_y.sum(axis=1) + 1                       # 1-based first position of i's tie group
    t = (y[None, :] == y[:, None]).sum(axis=1)        # size of i's tie group
    c_above = (above_y & _above(x)).sum(axis=1)       # concordant runs above the group
    total = 0.0
    for i in range(n):
        pos = p[i] + np.arange(t[i])                  # the positions i may take in its group
        if p[i] > 1:                                  # term I: runs above the group
            total += c_above[i] * np.mean(1.0 / (pos - 1))
        k = np.arange(1, t[i])                        # term II: concordant within the group
        total += np.sum(k / (p[i] + k - 1)) / (2 * t[i])
    return float(2.0 * total / (n - 1) - 1.0)


def _tau_ap_b_one_way(x: np.ndarray, y: np.ndarray) -> float:
    above_y = _above(y)
    p = above_y.sum(axis=1) + 1
    not_top = p > 1
    if not not_top.any():
        return float("nan")                           # y is all tied: no run is below another
    c_above = (above_y & _above(x)).sum(axis=1)
    return float(2.0 * np.sum(c_above[not_top] / (p[not_top] - 1)) / not_top.sum() - 1.0)


def tau_ap_b(x, y) -> float:
    """Urbano & Marrero's tau_AP,b: symmetric, ties in both rankings."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2:
        return float("nan")
    if np.array_equal(x, y):
        return 1.0  # identical rankings, all-tied ones included
    return (_tau_ap_b_one_way(x, y) + _tau_ap_b_one_way(y, x)) / 2


def tau_ap(truth, estimate) -> float:
    """The ``tau_ap`` of the analyses: tau_AP,a when ``truth`` has no ties, else tau_AP,b
    (module docstring); 1 for the same weak order (where tau-b is 1), NaN where one ranking is
    all tied and the other not, or a score is NaN."""
    truth, estimate = np.asarray(truth, float), np.asarray(estimate, float)
    if len(truth) < 2 or np.isnan(truth).any() or np.isnan(estimate).any():
        return float("nan")
    tied_truth, tied_estimate = truth.min() == truth.max(), estimate.min() == estimate.max()
    if tied_truth or tied_estimate:
        return 1.0 if tied_truth and tied_estimate else float("nan")
    if np.array_equal(_pair_signs(truth, slice(None)), _pair_signs(estimate, slice(None))):
        return 1.0  # the same weak order
    if len(np.unique(truth)) == len(truth):
        return tau_ap_a(truth, estimate)
    return tau_ap_b(truth, estimate)
