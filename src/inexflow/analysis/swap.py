"""Swap error rates (Voorhees & Buckley 2002, as used by Pal, Mitra & Kamps; docs/measures.md).

For a topic-set size z, draw two disjoint random topic sets of size z (``iterations``
times); a pair of runs (A, B) swaps when A beats B by at least the relative margin p
(MA - MB > 0 and |MA - MB| >= p max(MA, MB)) on one set and B beats A by at least the
margin on the other. The error rate at (z, p) is swaps / iterations averaged over all
pairs. ln Y = ln A1 - A2 z (Pal et al., Eq. 3-4) is fitted by least squares over the sizes
with Y > 0 and extrapolated to the smallest z with an error below ``target`` (5%): their
Table 7 (:func:`table7`) and the dashed part of Figure 5. The fit is checked as the paper
checks it (:func:`goodness_of_fit`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SWAP_BLOCK = 2_000_000  # (iteration, run pair) cells compared at once
# the smallest topic-set size of Pal et al.'s Figure 5 and Table 7
PAPER_MIN_SIZE = 5
# the sizes a fit of Eq. 3 needs at the least when the campaign has few topics
MIN_FIT_SIZES = 3


def topic_set_sizes(n_topics: int, min_size: int | None = None) -> list[int]:
    """The topic-set sizes swap rates are measured at: ``min_size`` up to half the topics (two
    disjoint sets). Without ``min_size``, the paper's 5, or a smaller start so that there are
    :data:`MIN_FIT_SIZES` sizes to fit when the campaign has fewer than 16 topics."""
    top = n_topics // 2
    if min_size is None:
        min_size = max(1, min(PAPER_MIN_SIZE, top - MIN_FIT_SIZES + 1))
    return list(range(min_size, top + 1))


def _wins(ma: np.ndarray, mb: np.ndarray, p: float) -> np.ndarray:
    d = ma - mb
    return (d > 0) & (np.abs(d) >= p * np.maximum(ma, mb))


def swap_rates(matrix: np.ndarray, sizes, tolerances=(0.0, 0.05, 0.1, 0.2, 0.3), iterations: int = 50,
               seed: int = 0) -> pd.DataFrame:
    """matrix: runs x topics per-topic scores. Returns size, tolerance, error_rate."""
    rng = np.random.default_rng(seed)
    n_runs, n_topics = matrix.shape
    iu = np.triu_indices(n_runs, 1)
    rows = []
    for z in sizes:
        if 2 * z > n_topics:
            continue
        # the iterations in blocks (the same permutations, drawn in turn): block x runs means of
        # each topic set, each a mean along the same contiguous axis as one iteration's
        perms = np.array([rng.permutation(n_topics) for _ in range(iterations)]).reshape(iterations, n_topics)
        swaps = {p: np.zeros(len(iu[0]), np.int64) for p in tolerances}  # per pair: iterations that swap
        step = max(1, SWAP_BLOCK // max(len(iu[0]), 1))
        for b in range(0, iterations, step):
            m1 = matrix[:, perms[b:b + step, :z]].mean(axis=2).T
            m2 = matrix[:, perms[b:b + step, z:2 * z]].mean(axis=2).T
            a1, b1 = m1[:, iu[0]], m1[:, iu[1]]
            a2, b2 = m2[:, iu[0]], m2[:, iu[1]]
            for p in tolerances:
                s = (_wins(a1, b1, p) & _wins(b2, a2, p)) | (_wins(b1, a1, p) & _wins(a2, b2, p))
                swaps[p] += s.sum(axis=0)
        for p in tolerances:
            rows.append((int(z), float(p), float(np.mean(swaps[p] / iterations)) if len(iu[0]) else 0.0))
    return pd.DataFrame(rows, columns=["size", "tolerance", "error_rate"])


def fit_exponential(sizes, rates, target: float = 0.05) -> tuple[float, float, float]:
    """(A1, A2, smallest z with fitted error < target) for ln Y = ln A1 - A2 z; NaN if not fittable."""
    z = np.asarray(sizes, float)
    y = np.asarray(rates, float)
    ok = y > 0
    if ok.sum() < 2:
        return float("nan"), float("nan"), float("nan")
    slope, intercept = np.polyfit(z[ok], np.log(y[ok]), 1)
    a1, a2 = float(np.exp(intercept)), float(-slope)
    if a2 <= 0:
        return a1, a2, float("nan")
    zmin = np.log(a1 / target) / a2  # the fit equals the target here; the answer is the next size above
    return a1, a2, float(max(np.floor(zmin + 1e-9) + 1, 1.0))


def goodness_of_fit(sizes, rates, a1: float, a2: float, iterations: int) -> tuple[float, int, float]:
    """Pal et al.'s goodness-of-fit check of Eq. 3 ("Extrapolating to Larger Topic-Set Sizes"):
    (chi2, degrees of freedom, the critical value it must not exceed).

    chi2 is Pearson's sum over the observed sizes of (O - E)^2 / E, with O the observed and E the
    fitted error rate, both in percent (the paper's chi2 values, 0 to 9.13, are on that scale).
    The degrees of freedom are the number of iterations, and the critical value is the
    0.005 quantile of chi2 with those degrees of freedom, as the paper states them
    (chi2_{0.995,50} = 27.991 for 50 iterations); docs/measures.md records this reading. NaN
    when the fit has no parameters."""
    from scipy.special import gammaincinv

    # the 0.005 quantile of chi2 with ``iterations`` degrees of freedom, as scipy.stats.chi2.ppf
    # computes it (without importing scipy.stats: 0.6 s)
    critical = float(2 * gammaincinv(iterations / 2, 0.005))
    z, y = np.asarray(sizes, float), np.asarray(rates, float)
    if not (np.isfinite(a1) and np.isfinite(a2)) or len(z) == 0:
        return float("nan"), int(iterations), critical
    expected = 100.0 * a1 * np.exp(-a2 * z)
    stat = float(np.sum((100.0 * y - expected) ** 2 / expected))
    return stat, int(iterations), critical


def table7(fits: pd.DataFrame, measures, n_topics: int) -> pd.DataFrame:
    """Pal et al.'s Table 7 from the fits (columns measure, tolerance, smallest_size_error_lt_5pct):
    one row per tolerance in percent, one column per measure, each cell the minimum number of
    topics for an error rate under 5 % by the fitted curve, ``>N`` beyond the N topics of the
    campaign (the paper's ``>100``), empty where no curve could be fitted."""
    rows = []
    for p, g in fits.groupby("tolerance", sort=True):
        cells = dict(zip(g["measure"], g["smallest_size_error_lt_5pct"]))
        row = {"% tolerance": f"{100 * p:g}"}
        for m in measures:
            z = cells.get(m, float("nan"))
            row[m] = "" if not np.isfinite(z) else (f">{n_topics}" if z > n_topics else str(int(z)))
        rows.append(row)
    return pd.DataFrame(rows, columns=["% tolerance", *measures])
