"""Significance tests between runs (Ogilvie & Lalmas, sections 3.2-3.4; spec note).

For every ordered pair of runs (A, B), one-sided tests of "A is better than B" on the
per-topic scores: paired t, Wilcoxon signed-rank, sign test (ties dropped) and the paired
bootstrap (resample topics with replacement B times; p = fraction of resampled mean
differences <= 0). Benjamini-Yekutieli controls the false discovery rate over all pairs:
reject p_(k) <= k alpha / (m c(m)), c(m) = sum_{i<=m} 1/i. The agreement between the sets
of significant ordered pairs found under two quantisations (or measures) is precision,
recall and F1 of one set against the other (section 3.4). The test error rate over
``splits`` random halvings of the topics: the fraction of pairs found significant in one
direction on one half and significant in the other direction on the other half.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy import stats


def benjamini_yekutieli(pvalues, alpha: float = 0.05) -> np.ndarray:
    p = np.asarray(pvalues, float)
    m = len(p)
    if m == 0:
        return np.zeros(0, bool)
    c = np.sum(1.0 / np.arange(1, m + 1))
    order = np.argsort(p, kind="stable")
    thresh = np.arange(1, m + 1) * alpha / (m * c)
    ok = p[order] <= thresh
    reject = np.zeros(m, bool)
    if ok.any():
        k = int(np.flatnonzero(ok).max())
        reject[order[:k + 1]] = True
    return reject


def bootstrap_pvalue(a, b, n_boot: int = 10000, seed: int = 0) -> float:
    d = np.asarray(a, float) - np.asarray(b, float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(d), size=(n_boot, len(d)))
    means = d[idx].mean(axis=1)
    return float(np.mean(means <= 0))


def sign_test_pvalue(a, b) -> float:
    d = np.asarray(a, float) - np.asarray(b, float)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return 1.0
    return float(stats.binomtest(pos, pos + neg, 0.5, alternative="greater").pvalue)


def pair_pvalues(a, b, test: str, n_boot: int, seed: int) -> float:
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    if test == "t":
        if np.allclose(d, d[0]):
            return 0.0 if d[0] > 0 else 1.0
        return float(stats.ttest_rel(a, b, alternative="greater").pvalue)
    if test == "wilcoxon":
        if np.all(d == 0):
            return 1.0
        return float(stats.wilcoxon(a, b, alternative="greater", zero_method="wilcox").pvalue)
    if test == "sign":
        return sign_test_pvalue(a, b)
    if test == "bootstrap":
        return bootstrap_pvalue(a, b, n_boot, seed)
    raise ValueError(f"unknown test {test!r}")


def all_pairs(matrix: pd.DataFrame, tests=("t", "wilcoxon", "sign", "bootstrap"), n_boot: int = 10000,
              seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """One row per ordered pair (A, B) and test: p-value and the BY decision over all pairs."""
    runs = list(matrix.index)
    rows = []
    for test in tests:
        ps = []
        pairs = list(itertools.permutations(range(len(runs)), 2))
        for k, (i, j) in enumerate(pairs):
            ps.append(pair_pvalues(matrix.iloc[i].to_numpy(), matrix.iloc[j].to_numpy(), test, n_boot, seed + k))
        rej = benjamini_yekutieli(ps, alpha)
        rows.extend((test, runs[i], runs[j], p, bool(r)) for (i, j), p, r in zip(pairs, ps, rej))
    return pd.DataFrame(rows, columns=["test", "run_a", "run_b", "p", "significant"])


def agreement(sig_a: set, sig_b: set) -> tuple[float, float, float]:
    """Precision, recall, F1 of the significant ordered pairs ``sig_b`` against ``sig_a``."""
    inter = len(sig_a & sig_b)
    p = inter / len(sig_b) if sig_b else (1.0 if not sig_a else 0.0)
    r = inter / len(sig_a) if sig_a else (1.0 if not sig_b else 0.0)
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def test_error_rates(matrix: pd.DataFrame, tests=("t", "wilcoxon", "sign", "bootstrap"), splits: int = 50,
                     n_boot: int = 1000, seed: int = 0, alpha: float = 0.05) -> pd.DataFrame:
    """Per test: the fraction of run pairs significant in opposite directions on two random
    disjoint halves of the topics, averaged over ``splits`` halvings (Ogilvie & Lalmas 3.3)."""
    rng = np.random.default_rng(seed)
    topics = np.array(matrix.columns)
    n = len(topics) // 2
    runs = list(matrix.index)
    pairs = list(itertools.combinations(range(len(runs)), 2))
    rows = []
    counts = {t: [] for t in tests}
    for s in range(splits):
        perm = rng.permutation(len(topics))
        h1, h2 = perm[:n], perm[n:2 * n]
        for test in tests:
            errors = 0
            for (i, j) in pairs:
                a, b = matrix.iloc[i].to_numpy(), matrix.iloc[j].to_numpy()
                p1 = pair_pvalues(a[h1], b[h1], test, n_boot, seed + s)
                p2 = pair_pvalues(b[h2], a[h2], test, n_boot, seed + s)
                q1 = pair_pvalues(b[h1], a[h1], test, n_boot, seed + s)
                q2 = pair_pvalues(a[h2], b[h2], test, n_boot, seed + s)
                if (p1 <= alpha and p2 <= alpha) or (q1 <= alpha and q2 <= alpha):
                    errors += 1
            counts[test].append(errors / len(pairs) if pairs else 0.0)
    for test in tests:
        v = np.array(counts[test])
        rows.append((test, float(v.mean()), float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else 0.0))
    return pd.DataFrame(rows, columns=["test", "error_rate", "stderr"])
