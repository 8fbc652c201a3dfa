"""Two or more runs compared topic by topic (``inexflow compare``), with the functions of the
workflow's significance stage (:mod:`inexflow.analysis.significance`).

For each compared pair (A, B) on the runs x topics matrix of one measure
(:func:`inexflow.analysis.matrix.score_matrix`, the workflow's), with d the per-topic
differences A - B over the n topics:

- ``diff``: the mean of d (the mean of A less the mean of B);
- ``ci_low``, ``ci_high``: the paired bootstrap percentile interval of the mean difference
  (topics resampled with replacement ``n_boot`` times, :func:`~inexflow.analysis.significance.bootstrap_means`,
  the same resamples for every run);
- ``d_z``: Cohen's d_z, mean(d) / sd(d) (sd with n - 1; NaN when every difference is equal);
- ``wins``, ``ties``, ``losses``: the topics where A scores higher than, the same as and lower than B;
- ``p_TEST``: the two-sided p-value of each test (:func:`~inexflow.analysis.significance.two_sided_pvalues`:
  the paired t-test and the Wilcoxon signed-rank test are scipy's ``ttest_rel`` and ``wilcoxon``;
  the bootstrap's is twice the smaller fraction of resampled differences on either side of 0);
- ``p_TEST_by``: those p-values adjusted by Benjamini-Yekutieli over the pairs compared
  (:func:`~inexflow.analysis.significance.by_adjusted`; the correction the workflow's
  significance stage applies), to be compared with the significance level.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from inexflow.analysis.significance import bootstrap_means, by_adjusted, two_sided_pvalues

COMPARE_TESTS = ("t", "wilcoxon", "bootstrap")


def compared_pairs(runs: list[str], all_pairs: bool = False) -> list[tuple[str, str]]:
    """The pairs (A, B) compared: every other run against the first (the baseline), or with
    ``all_pairs`` every pair of runs, each once, in the order given."""
    if all_pairs:
        return [(b, a) for a, b in itertools.combinations(runs, 2)]
    return [(r, runs[0]) for r in runs[1:]]


def compare_runs(matrix: pd.DataFrame, pairs, tests=COMPARE_TESTS, n_boot: int = 10000, seed: int = 0,
                 confidence: float = 0.95) -> pd.DataFrame:
    """One row per pair (A, B) of ``pairs`` (run names of ``matrix``'s rows): the columns of the
    module docstring, with ``topics``, ``mean_a`` and ``mean_b``."""
    runs = list(matrix.index)
    idx = np.array([[runs.index(a), runs.index(b)] for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    x = matrix.to_numpy(float)
    d = x[idx[:, 0]] - x[idx[:, 1]]
    n = x.shape[1]
    out = pd.DataFrame({"run_a": [runs[i] for i in idx[:, 0]], "run_b": [runs[j] for j in idx[:, 1]], "topics": n,
                        "mean_a": x[idx[:, 0]].mean(axis=1), "mean_b": x[idx[:, 1]].mean(axis=1)})
    out["diff"] = d.mean(axis=1)
    if n_boot:
        boot = bootstrap_means(x, n_boot, seed)
        tail = (1 - confidence) / 2
        out["ci_low"], out["ci_high"] = np.quantile(boot[idx[:, 0]] - boot[idx[:, 1]], [tail, 1 - tail], axis=1)
    else:
        out["ci_low"] = out["ci_high"] = np.nan
    sd = d.std(axis=1, ddof=1) if n > 1 else np.zeros(len(d))
    with np.errstate(divide="ignore", invalid="ignore"):
        out["d_z"] = np.where(sd > 0, out["diff"] / np.where(sd > 0, sd, 1), np.nan)
    out["wins"], out["ties"], out["losses"] = (d > 0).sum(axis=1), (d == 0).sum(axis=1), (d < 0).sum(axis=1)
    for test in tests:
        p = two_sided_pvalues(x, idx, test, n_boot, seed)
        out[f"p_{test}"] = p
        out[f"p_{test}_by"] = by_adjusted(p)
    return out


def topic_differences(matrix: pd.DataFrame, pairs) -> pd.DataFrame:
    """The per-topic differences A - B of every pair: ``run_a, run_b, topic, difference``."""
    rows = [pd.DataFrame({"run_a": a, "run_b": b, "topic": matrix.columns, "difference":
                          matrix.loc[a].to_numpy(float) - matrix.loc[b].to_numpy(float)}) for a, b in pairs]
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(
        columns=["run_a", "run_b", "topic", "difference"])
