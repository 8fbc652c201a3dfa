"""Significance tests between runs (Ogilvie & Lalmas, sections 3.2-3.4; docs/measures.md).

For every ordered pair of runs (A, B), one-sided tests of "A is better than B" on the
per-topic scores, vectorised over all pairs: paired t, Wilcoxon signed-rank, sign test
(ties dropped) and the paired bootstrap (resample topics with replacement B times, the
same resamples for every pair; p = fraction of resampled mean differences <= 0).
Benjamini-Yekutieli controls the false discovery rate over all ordered pairs of one test:
reject p_(k) <= k alpha / (m c(m)), c(m) = sum_{i<=m} 1/i. Agreement between the sets of
significant ordered pairs under two quantisations or measures: precision, recall and F1
(section 3.4). Test error rate, as section 3.3 defines it: over ``splits`` random
halvings of the topics, the ordered pairs (A, B) found significant ("A is better") on the
first half; the error rate is the percentage of them whose mean difference A - B on the
second half is not positive (see :func:`test_error_rates`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from inexflow.errors import UsageError

TESTS = ("t", "wilcoxon", "sign", "bootstrap")
B_BLOCK = 256  # bootstrap resamples averaged at once (memory: runs x B_BLOCK x topics)
W_BLOCK = 256  # run pairs whose 2^n Wilcoxon sign patterns are summed at once (memory: W_BLOCK x 2^13)


def _scipy_stats():
    """``scipy.stats``, imported when a significance test (t, sign, Wilcoxon) runs: 0.4 s to
    import, and nothing else in this module needs it."""
    from scipy import stats

    return stats


def benjamini_yekutieli(pvalues, alpha: float = 0.05) -> np.ndarray:
    p = np.asarray(pvalues, float)
    m = len(p)
    if m == 0:
        return np.zeros(0, bool)
    c = np.sum(1.0 / np.arange(1, m + 1))
    order = np.argsort(p, kind="stable")
    ok = p[order] <= np.arange(1, m + 1) * alpha / (m * c)
    reject = np.zeros(m, bool)
    if ok.any():
        reject[order[:int(np.flatnonzero(ok).max()) + 1]] = True
    return reject


def bootstrap_pvalue(a, b, n_boot: int = 10000, seed: int = 0) -> float:
    return float(pvalues_for_pairs(np.vstack([a, b]).astype(float), np.array([[0, 1]]), "bootstrap", n_boot, seed)[0])


def pvalues_for_pairs(x: np.ndarray, pairs: np.ndarray, test: str, n_boot: int = 10000, seed: int = 0) -> np.ndarray:
    """One-sided p-values of "run pairs[k,0] beats run pairs[k,1]" on the rows of ``x`` (runs x topics)."""
    d = x[pairs[:, 0]] - x[pairs[:, 1]]
    n = d.shape[1]
    if test == "t":
        if n < 2:  # no variance to test against: undefined, as scipy's ttest_rel gives it
            return np.full(len(d), np.nan)
        mean = d.mean(axis=1)
        sd = d.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = mean / (sd / np.sqrt(n))
        p = _scipy_stats().t.sf(t, n - 1)
        p = np.where(sd > 0, p, np.where(mean > 0, 0.0, 1.0))
        return p
    if test == "wilcoxon":
        p = np.ones(len(d))
        nz = np.any(d != 0, axis=1)
        if nz.any():
            p[nz] = wilcoxon_greater(d[nz])
        return p
    if test == "sign":
        pos = (d > 0).sum(axis=1)
        tot = pos + (d < 0).sum(axis=1)
        return np.where(tot > 0, _scipy_stats().binom.sf(pos - 1, np.maximum(tot, 1), 0.5), 1.0)
    if test == "bootstrap":
        means = bootstrap_means(x, n_boot, seed)
        diff = means[pairs[:, 0]] - means[pairs[:, 1]]
        return (diff <= 0).mean(axis=1)
    raise UsageError(f"unknown test {test!r}; choose one of {', '.join(TESTS)}")


def bootstrap_means(x: np.ndarray, n_boot: int = 10000, seed: int = 0) -> np.ndarray:
    """Runs x ``n_boot``: each run's mean over every bootstrap resample of the topics (the
    columns of ``x``), the resamples drawn with replacement from ``numpy.random.default_rng(seed)``,
    the same for every run (the paired bootstrap)."""
    n = x.shape[1]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    # runs x B: each resample's mean per run, B_BLOCK resamples at a time (the same sums,
    # along the same contiguous axis, as one resample at a time)
    return np.concatenate([x[:, idx[b:b + B_BLOCK]].mean(axis=2) for b in range(0, n_boot, B_BLOCK)], axis=1) \
        if n_boot else np.zeros((len(x), 0))


def two_sided_pvalues(x: np.ndarray, pairs: np.ndarray, test: str, n_boot: int = 10000, seed: int = 0) -> np.ndarray:
    """Two-sided p-values of "runs pairs[k,0] and pairs[k,1] differ": twice the smaller of the
    two one-sided p-values of :func:`pvalues_for_pairs` (both directions in one call, so the
    bootstrap uses the same resamples), at most 1. For the t-test and the Wilcoxon test these
    are ``scipy.stats.ttest_rel`` and ``scipy.stats.wilcoxon``'s two-sided p-values."""
    p = pvalues_for_pairs(x, np.vstack([pairs, pairs[:, ::-1]]), test, n_boot, seed)
    k = len(pairs)
    return np.minimum(1.0, 2 * np.minimum(p[:k], p[k:]))


def by_adjusted(pvalues) -> np.ndarray:
    """Benjamini-Yekutieli adjusted p-values: ``by_adjusted(p) <= alpha`` are the hypotheses
    :func:`benjamini_yekutieli` rejects at ``alpha`` (p_(k) adjusted is min over j >= k of
    p_(j) m c(m) / j, at most 1)."""
    p = np.asarray(pvalues, float)
    m = len(p)
    if m == 0:
        return np.zeros(0)
    c = np.sum(1.0 / np.arange(1, m + 1))
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m * c / np.arange(1, m + 1)
    adj = np.empty(m)
    adj[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return adj


def wilcoxon_greater(d: np.ndarray) -> np.ndarray:
    """One-sided ("greater") Wilcoxon signed-rank p-values of the rows of ``d``, zeros
    dropped (Wilcoxon's method): exactly ``scipy.stats.wilcoxon(d, alternative="greater",
    zero_method="wilcox", axis=1).pvalue``. Where scipy runs a permutation test (at most 13
    columns, and a zero or tied non-zero magnitudes anywhere in ``d``) it evaluates its
    statistic once per sign pattern in Python (seconds for a few hundred rows); here the
    2^n sign patterns are enumerated at once: with r the average ranks of the non-zero |d|,
    the null distribution of T+ is {b . r : b in {0,1}^n}, and p = #{null >= T+} / 2^n,
    exact since every value is a multiple of 1/2 (scipy's tolerance changes nothing)."""
    d = np.asarray(d, float)
    n = d.shape[1]
    zero = d == 0
    magnitude = np.where(zero, np.nan, np.abs(d))     # a dropped zero: NaN, ranked last, alone
    if n > 13 or np.isnan(d).any() or not (zero.any() or _has_ties(magnitude)):
        return _scipy_per_pair(d, zero, magnitude)
    r = _average_ranks(magnitude)
    w = np.where(zero, 0.0, r)
    observed = np.sum(np.where(d > 0, r, 0.0), axis=1)
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1     # 2^n x n sign patterns
    count = np.zeros(len(d), np.int64)
    for start in range(0, len(d), W_BLOCK):                              # rows x 2^n at a time
        rows = slice(start, start + W_BLOCK)
        count[rows] = (w[rows] @ bits.T >= observed[rows, None]).sum(axis=1)
    return count / float(2 ** n)


def _scipy_per_pair(d: np.ndarray, zero: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """scipy's one-sided Wilcoxon p-values of the rows of ``d``, each as scipy gives it for that
    pair alone: its ``method="auto"`` chooses the exact distribution (at most 50 values, none zero,
    no tied magnitudes) or the normal approximation once per call, so the rows are called in two
    groups, those it would treat exactly and the others (one call for all would let a zero in one
    pair move every pair to the approximation)."""
    def call(rows):
        return _scipy_stats().wilcoxon(rows, alternative="greater", zero_method="wilcox", axis=1).pvalue

    if d.shape[1] > 50 or np.isnan(d).any() or not len(d):
        return call(d)
    rough = zero.any(axis=1) | ~_sorted_rows(magnitude)[1].all(axis=1)
    if rough.all() or not rough.any():
        return call(d)
    p = np.empty(len(d))
    p[rough], p[~rough] = call(d[rough]), call(d[~rough])
    return p


def _sorted_rows(a: np.ndarray):
    order = np.argsort(a, axis=1, kind="stable")      # NaN (a dropped zero) last, each its own group
    y = np.take_along_axis(a, order, axis=1)
    first = np.ones(a.shape, bool)
    first[:, 1:] = y[:, 1:] != y[:, :-1]
    return order, first


def _has_ties(a: np.ndarray) -> bool:
    return bool(a.shape[1] > 1 and not _sorted_rows(a)[1].all())


def _average_ranks(a: np.ndarray) -> np.ndarray:
    """Average ranks (1-based) along each row, ties sharing the mean of their positions."""
    if a.size == 0:
        return np.zeros(a.shape)
    order, first = _sorted_rows(a)
    flat_first = first.ravel()
    starts = np.flatnonzero(flat_first)
    counts = np.diff(np.r_[starts, a.size])
    pos = np.tile(np.arange(1, a.shape[1] + 1, dtype=float), a.shape[0])
    ranks_sorted = np.repeat(pos[starts] + (counts - 1) / 2, counts).reshape(a.shape)
    ranks = np.empty(a.shape)
    np.put_along_axis(ranks, order, ranks_sorted, axis=1)
    return ranks


def all_pairs(matrix: pd.DataFrame, tests=TESTS, n_boot: int = 10000, seed: int = 0,
              alpha: float = 0.05) -> pd.DataFrame:
    """One row per test and ordered pair (A, B): p-value and the BY decision over all pairs."""
    runs = list(matrix.index)
    pairs = np.array(list(itertools.permutations(range(len(runs)), 2)), dtype=np.int64).reshape(-1, 2)
    x = matrix.to_numpy(float)
    rows = []
    for test in tests:
        p = pvalues_for_pairs(x, pairs, test, n_boot, seed)
        rej = benjamini_yekutieli(p, alpha)
        rows.append(pd.DataFrame({"test": test, "run_a": [runs[i] for i in pairs[:, 0]],
                                  "run_b": [runs[j] for j in pairs[:, 1]], "p": p, "significant": rej}))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["test", "run_a", "run_b", "p", "significant"])


def pvalue_table(pairs: pd.DataFrame, means: dict, missing: dict | None = None) -> pd.DataFrame:
    """The p-values of every pair of runs in one readable row: for each (quant, measure) and
    pair the run with the higher mean first (``run_a``; on equal means the first by name),
    both means and their difference, and per test the one-sided p-value that ``run_a`` is
    better, that p-value adjusted by Benjamini-Yekutieli over all ordered pairs (``p_by_``:
    :func:`by_adjusted`) and whether it is significant (``all_pairs``'s decision: ``p_by`` at
    most alpha). ``means``: {(quant, measure): Series of each run's mean over the topics
    tested}; ``missing``: {(quant, measure): Series of the topics each run has no value for},
    which the means and the tests count 0 (``missing_a_scored_0``, ``missing_b_scored_0``;
    where they are not 0 the mean differs from the official one, which leaves them out)."""
    cols = ["quant", "measure", "run_a", "run_b", "mean_a", "mean_b", "difference"]
    if missing is not None:
        cols += ["missing_a_scored_0", "missing_b_scored_0"]
    if pairs.empty:
        return pd.DataFrame(columns=cols)
    pairs = pairs.assign(p_by=pairs.groupby(["quant", "measure", "test"], sort=False)["p"].transform(
        lambda p: by_adjusted(p.to_numpy())))
    wide = pairs.pivot_table(index=["quant", "measure", "run_a", "run_b"], columns="test",
                             values=["p", "p_by", "significant"], aggfunc="first", sort=False)
    tests = list(dict.fromkeys(pairs["test"]))
    wide.columns = [f"{v}_{t}" for v, t in wide.columns]
    wide = wide[[c for t in tests for c in (f"p_{t}", f"p_by_{t}", f"significant_{t}")]].reset_index()
    key = list(zip(wide["quant"], wide["measure"]))
    wide.insert(4, "mean_a", [means[k][r] for k, r in zip(key, wide["run_a"])])
    wide.insert(5, "mean_b", [means[k][r] for k, r in zip(key, wide["run_b"])])
    wide.insert(6, "difference", wide["mean_a"] - wide["mean_b"])
    if missing is not None:
        wide.insert(7, "missing_a_scored_0", [int(missing[k][r]) for k, r in zip(key, wide["run_a"])])
        wide.insert(8, "missing_b_scored_0", [int(missing[k][r]) for k, r in zip(key, wide["run_b"])])
    first = (wide["difference"] > 0) | ((wide["difference"] == 0) & (wide["run_a"] < wide["run_b"]))
    for c in wide.columns:
        if c.startswith("significant_"):
            wide[c] = wide[c].astype(bool)
    return wide[first].sort_values(["quant", "measure", "difference", "run_a", "run_b"],
                                   ascending=[True, True, False, True, True], kind="stable").reset_index(drop=True)


def agreement(sig_a: set, sig_b: set) -> tuple[float, float, float]:
    """Precision, recall, F1 of the significant ordered pairs ``sig_b`` against ``sig_a``
    (Ogilvie & Lalmas, section 3.4); an empty set to divide by gives 1 when both are empty
    (they agree), 0 when only that one is (docs/measures.md)."""
    inter = len(sig_a & sig_b)
    p = inter / len(sig_b) if sig_b else (1.0 if not sig_a else 0.0)
    r = inter / len(sig_a) if sig_a else (1.0 if not sig_b else 0.0)
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


def test_error_rates(matrix: pd.DataFrame, tests=TESTS, splits: int = 50, n_boot: int = 1000, seed: int = 0,
                     alpha: float = 0.05) -> pd.DataFrame:
    """Ogilvie & Lalmas, section 3.3: the error rate of each significance test.

    For each of ``splits`` random splits of the topics (``numpy.random.default_rng(seed)
    .permutation``; the first half holds floor(n/2) topics, the second the rest), every
    ordered pair of runs (A, B) is tested ("A is better than B") on the first half, with no
    correction and with Benjamini-Yekutieli over all ordered pairs of the test. The pairs
    found significant are set aside; an error is such a pair whose mean difference A - B on
    the second half is not positive. Per test and correction:

    - ``significant``: the pairs set aside, summed over the splits;
    - ``errors`` and ``error_rate``: the errors, and their percentage of ``significant``
      (NaN when no pair was ever significant);
    - ``both_halves``: the percentage of ``significant`` that the test also finds
      significant, in the same direction, on the second half (the paper's observation that
      the bootstrap "agrees with itself" more often).

    The bootstrap draws its resamples from ``seed + 2 * split`` (first half) and
    ``seed + 2 * split + 1`` (second half)."""
    rng = np.random.default_rng(seed)
    x = matrix.to_numpy(float)
    half = x.shape[1] // 2
    pairs = np.array(list(itertools.permutations(range(x.shape[0]), 2)), dtype=np.int64).reshape(-1, 2)
    counts = {(t, c): np.zeros(3, np.int64) for t in tests for c in ("none", "BY")}
    for s in range(splits):
        perm = rng.permutation(x.shape[1])
        h1, h2 = x[:, perm[:half]], x[:, perm[half:]]
        if not len(pairs) or half == 0:
            continue
        worse_on_h2 = (h2[pairs[:, 0]].mean(axis=1) - h2[pairs[:, 1]].mean(axis=1)) <= 0
        for test in tests:
            p1 = pvalues_for_pairs(h1, pairs, test, n_boot, seed + 2 * s)
            p2 = pvalues_for_pairs(h2, pairs, test, n_boot, seed + 2 * s + 1)
            for correction in ("none", "BY"):
                if correction == "none":
                    sig1, sig2 = p1 <= alpha, p2 <= alpha
                else:
                    sig1, sig2 = benjamini_yekutieli(p1, alpha), benjamini_yekutieli(p2, alpha)
                counts[(test, correction)] += [sig1.sum(), (sig1 & worse_on_h2).sum(), (sig1 & sig2).sum()]
    rows = []
    for (test, correction), (sig, err, both) in counts.items():
        rate = 100.0 * err / sig if sig else float("nan")
        rows.append((test, correction, splits, int(sig), int(err), rate, 100.0 * both / sig if sig else float("nan")))
    return pd.DataFrame(rows, columns=["test", "correction", "splits", "significant", "errors", "error_rate",
                                       "both_halves"])


def agreement_table(sig_sets: dict, comparisons, quants, measures, tests, n_runs: dict) -> pd.DataFrame:
    """Ogilvie & Lalmas, Tables 3-4 in their shape: per test, one row per comparison
    (predictor Q1, truth Q2) of ``comparisons``, with for each measure how well the decisions
    under Q1 predict those under Q2 (section 3.4): ``MEASURE recall`` |rej(Q1) & rej(Q2)| /
    |rej(Q2)|, ``MEASURE precision`` |rej(Q1) & rej(Q2)| / |rej(Q1)| and ``MEASURE F1``; then
    one row per quantisation of ``quants`` (predictor empty) whose ``MEASURE % significant`` is
    the percentage of all system pairs found significant under it (their "identified 15% of all
    possible system differences"). ``sig_sets[(quant, measure, test)]`` holds the ordered pairs
    found significant; ``n_runs[(quant, measure)]`` the runs compared."""
    stats = ("recall", "precision", "F1", "% significant")
    columns = ["test", "truth", "predictor", *(f"{m} {st}" for m in measures for st in stats)]
    rows = []
    for test in tests:
        for q1, q2 in comparisons:
            row = {"test": test, "truth": q2, "predictor": q1}
            for m in measures:
                p, r, f = agreement(sig_sets[(q2, m, test)], sig_sets[(q1, m, test)])
                row |= {f"{m} recall": r, f"{m} precision": p, f"{m} F1": f}
            rows.append(row)
        for q in quants:
            row = {"test": test, "truth": q, "predictor": ""}
            for m in measures:
                n = n_runs[(q, m)]
                row[f"{m} % significant"] = (100.0 * len(sig_sets[(q, m, test)]) / (n * (n - 1) / 2) if n > 1
                                             else float("nan"))
            rows.append(row)
    return pd.DataFrame(rows, columns=columns)


AGREEMENT = ("both", "reference only", "other only")


def quant_differences(ref: pd.DataFrame, other: pd.DataFrame, sig_ref: set, sig_other: set) -> pd.DataFrame:
    """Ogilvie & Lalmas, Figure 1: where two quantisations disagree. ``ref`` and ``other``
    are the run x topic score matrices of one measure under the reference quantisation, whose
    differences are the x axis (Gen 5 in their Figures 1a-b, Fully Spec in 1c-d: "the
    prediction of the Gen Lifted quantisation could be improved with a simple threshold
    applied to the differences in scores"), and the other, the one it predicts (Gen Lifted,
    Strict 5);
    ``sig_ref``/``sig_other`` the ordered pairs (A, B) found significant ("A is better")
    under each. One row per ordered pair significant under either: the mean score
    differences A - B under both and which quantisations found it (:data:`AGREEMENT`)."""
    runs = [r for r in ref.index if r in other.index]
    mean_ref, mean_other = ref.loc[runs].mean(axis=1), other.loc[runs].mean(axis=1)
    rows = []
    for a, b in sorted((sig_ref | sig_other) & set(itertools.permutations(runs, 2))):
        in_ref, in_other = (a, b) in sig_ref, (a, b) in sig_other
        rows.append((a, b, float(mean_ref[a] - mean_ref[b]), float(mean_other[a] - mean_other[b]), in_ref, in_other,
                     AGREEMENT[0] if in_ref and in_other else AGREEMENT[1] if in_ref else AGREEMENT[2]))
    return pd.DataFrame(rows, columns=["run_a", "run_b", "diff_ref", "diff_other", "significant_ref",
                                       "significant_other", "agreement"])
