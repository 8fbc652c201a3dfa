"""Meta-evaluation analyses on small cases with hand-checked values."""
import numpy as np
import pandas as pd
import pytest

from conftest import write
from inexflow.analysis.logo import change_bin, leave_one_group_out
from inexflow.analysis.rankcorr import tau_ap, tau_b
from inexflow.analysis.rejudge import JudgedRuns, judged_columns
from inexflow.analysis.significance import agreement, all_pairs, benjamini_yekutieli, bootstrap_pvalue
from inexflow.analysis.stability import topic_sampling
from inexflow.analysis.swap import fit_exponential, swap_rates
from inexflow.io.tables import checksum, write_parquet
from inexflow.model.assessments import read_assessments
from inexflow.model.pool import leave_group_out_entries
from inexflow.model.runs import read_run


def test_tau_and_tau_ap_by_hand():
    truth = [4, 3, 2, 1]                      # A B C D
    acbd = [4, 2, 3, 1]                       # A C B D
    bacd = [3, 4, 2, 1]                       # B A C D
    # ACBD: C(2)=1/1 (A above C), C(3)=1/2 (A yes, C no above B), C(4)=3/3 -> 2/3 * 2.5 - 1
    assert tau_ap(truth, acbd) == pytest.approx(2 / 3)
    assert tau_ap(truth, bacd) == pytest.approx(1 / 3)  # 2/3 * (0 + 1 + 1) - 1
    assert tau_b(truth, acbd) == pytest.approx(2 / 3) and tau_b(truth, bacd) == pytest.approx(2 / 3)
    # a tie in the estimate: tau_AP,a is the mean over its two orders (ABCD: 1, ACBD: 2/3), exactly
    assert tau_ap(truth, [4, 2, 2, 1]) == pytest.approx((1 + 2 / 3) / 2, abs=1e-12)


# Urbano & Marrero's reference cases: the data and values of the tests of their R package ircor
# (github.com/julian-urbano/ircor, tests/testthat), to the 4 decimals given there
IRCOR = [
    ([0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
     [0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
     [0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1], [0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
     (.8519, .7454, .8333, .7321)),
    ([0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
     [0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
     [0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4], [0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
     (.2504, .2692, .2880, .2970)),
    ([0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
     [0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
     [0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4], [0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
     (-.6971, -.5558, -.6680, -.7047)),
]


@pytest.mark.parametrize("x,y,x_ties,y_ties,want", IRCOR)
def test_tie_aware_tau_ap_equals_urbano_marrero(x, y, x_ties, y_ties, want):
    from inexflow.analysis.rankcorr import tau_ap_a, tau_ap_b

    ap, ap_a, ap_b, ap_b_ties = want
    assert tau_ap(x, y) == pytest.approx(ap, abs=5e-5)                 # no ties: Yilmaz et al.
    assert tau_ap_a(x, y) == pytest.approx(ap, abs=5e-5)
    assert tau_ap_a(x, y_ties) == pytest.approx(ap_a, abs=5e-5)
    assert tau_ap(x, y_ties) == tau_ap_a(x, y_ties)                     # truth without ties: a
    assert tau_ap_b(x, y) == pytest.approx(ap_b, abs=5e-5)
    assert tau_ap_b(x_ties, y_ties) == pytest.approx(ap_b_ties, abs=5e-5)
    assert tau_ap_b(y_ties, x_ties) == tau_ap_b(x_ties, y_ties)         # symmetric
    assert tau_ap(x_ties, y_ties) == tau_ap_b(x_ties, y_ties)           # truth with ties: b


def test_tau_ap_a_is_the_mean_over_every_order_of_the_ties():
    """tau_AP,a against brute force: Yilmaz et al.'s tau_AP averaged over all 5040 orders."""
    import itertools

    from inexflow.analysis.rankcorr import tau_ap_a

    def yilmaz(truth, order):
        t = np.asarray(truth)[order]
        return 2 * sum(np.count_nonzero(t[:i] > t[i]) / i for i in range(1, len(t))) / (len(t) - 1) - 1

    rng = np.random.default_rng(5)
    for _ in range(3):
        x, y = rng.permutation(7).astype(float), rng.integers(0, 3, 7).astype(float)
        orders = [sorted(range(7), key=lambda i, p=p: (-y[i], p[i])) for p in itertools.permutations(range(7))]
        assert tau_ap_a(x, y) == pytest.approx(np.mean([yilmaz(x, o) for o in orders]), abs=1e-12)


def test_tau_ap_with_ties_by_hand():
    from scipy.stats import kendalltau

    from inexflow.analysis.rankcorr import tau_ap_a, tau_ap_b

    assert tau_ap([1, 1, 1], [1, 1, 1]) == 1.0 and tau_b([1, 1, 1], [1, 1, 1]) == 1.0  # all-equal, identical
    # the same weak order from other scores: exactly 1 (scipy alone gives 0.9999999999999998 here)
    x = [0.0, 3.0, 2.0, 3.0, 2.0, 2.0, 3.0, 2.0]
    assert kendalltau(x, [2 * v + 1 for v in x]).statistic < 1.0 and tau_b(x, [2 * v + 1 for v in x]) == 1.0
    assert tau_ap([3, 1, 1, 0], [3, 1, 1, 0]) == 1.0                                  # identical, with a tie
    # tau_AP,b, tied rankings that agree: every run strictly above agrees -> 1 both ways
    assert tau_ap_b([3, 2, 2, 1], [5, 4, 4, 0]) == 1.0
    # one way: A>B=C>D vs A=B>C>D. x=[3,2,2,1], y=[2,2,1,0]: in y, C has A,B above (x: A yes, B tied no)
    # -> 1/2; D has 3 above, all above in x -> 1; 2/2 * 1.5 - 1 = 0.5. Other way, in x: B and C have A
    # above (y: A ties B -> B 0, C 1); D 3 above (y: A, B, C all above D) -> 2/3 * (0 + 1 + 1) - 1 = 1/3
    assert tau_ap_b([3, 2, 2, 1], [2, 2, 1, 0]) == pytest.approx((0.5 + 1 / 3) / 2)
    # tau_AP,a, truth A>B>C, estimate all tied: a random order's expectation, 0
    assert tau_ap_a([3, 2, 1], [1, 1, 1]) == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(tau_ap([1, 1, 1], [3, 2, 1]))  # an all-tied truth orders nothing


def test_benjamini_yekutieli_by_hand():
    p = [0.04, 0.001, 0.2, 0.01, 0.02]
    c = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    # thresholds k * .05 / (5 c): .00438, .00876, .01314, .01752, .0219: only .001 passes
    assert list(benjamini_yekutieli(p, 0.05)) == [False, True, False, False, False]
    # with alpha .25: thresholds k * .021898 -> .0219 (.001, .01 ok), .0438 (.02 ok), .0657 (.04 ok)
    assert list(benjamini_yekutieli(p, 0.25)) == [True, True, False, True, True]
    assert 0.04 <= 4 * 0.25 / (5 * c)


def test_bootstrap_known_answers():
    assert bootstrap_pvalue([1, 2, 3], [0, 0, 0], 2000, 1) == 0.0
    assert bootstrap_pvalue([0, 0, 0], [1, 2, 3], 2000, 1) == 1.0
    # differences +1, -1: the resampled mean is <= 0 unless both draws are +1: p = 3/4
    assert bootstrap_pvalue([1, 0], [0, 1], 20000, 2) == pytest.approx(0.75, abs=0.015)


def test_all_pairs_and_agreement():
    m = pd.DataFrame([[0.9] * 8, [0.5, 0.6, 0.4, 0.5, 0.6, 0.4, 0.5, 0.5], [0.1] * 8], index=["a", "b", "c"])
    res = all_pairs(m, tests=("t", "sign"), n_boot=200)
    sig = set(zip(res[(res.test == "t") & res.significant].run_a, res[(res.test == "t") & res.significant].run_b))
    assert sig == {("a", "b"), ("a", "c"), ("b", "c")}
    assert agreement({("a", "b"), ("a", "c")}, {("a", "b")}) == pytest.approx((1.0, 0.5, 2 / 3))


def test_swap_rates_on_a_tiny_matrix():
    never = swap_rates(np.array([[1.0] * 4, [0.0] * 4]), [2], iterations=100, seed=0)
    assert (never["error_rate"] == 0).all()
    # A wins topics 0,1 and B topics 2,3: a swap needs the sets {0,1} | {2,3} (2 of 6 first sets)
    r = swap_rates(np.array([[1, 1, 0, 0], [0, 0, 1, 1.0]]), [2], tolerances=(0.0,), iterations=6000, seed=3)
    assert r["error_rate"].iloc[0] == pytest.approx(1 / 3, abs=0.02)
    a1, a2, z = fit_exponential([5, 10, 15], [0.2, 0.1, 0.05])
    assert a2 == pytest.approx(np.log(2) / 5) and a1 == pytest.approx(0.4) and z == 16  # 0.4 e^{-a2 z} < .05


def test_topic_sampling_is_exact_at_full_set_and_seeded():
    rng = np.random.default_rng(0)
    m = pd.DataFrame(rng.random((6, 20)), index=list("abcdef"))
    m.loc["f"] = m.loc["e"].to_numpy()[::-1]  # e and f tie on the full mean; any subset order could split them
    out = topic_sampling({"AiP": m}, [0.4, 1.0], samples=5, seed=7)
    full = out[out.fraction == 1.0].iloc[0]
    assert (full["tau"], full["tau_ap"], full["tau_se"], full["tau_ap_se"]) == (1.0, 1.0, 0.0, 0.0)  # exactly
    assert out.equals(topic_sampling({"AiP": m}, [0.4, 1.0], samples=5, seed=7))


def test_leave_one_group_out_against_the_100_percent_pool_by_hand(tmp_path):
    """Pal et al., "Leave-One-Out": the baseline is "the 100% pool reconstructed from the INEX
    focused submissions", not the full qrels; each group's runs are scored on the pool
    recreated without them, cut at the same original pool size."""
    from inexflow.analysis.stability import original_pools

    # X and Y relevant, N judged non-relevant: the original pool holds 3 documents
    q = write(tmp_path / "q.fol", "1 Q0 X 100 100 0 0:100\n1 Q0 Y 100 100 0 0:100\n1 Q0 N 0 100 0\n")
    r1 = read_run(write(tmp_path / "g1.run", "1 Q0 X 1 2 g1 0 100\n1 Q0 Z 2 1 g1 0 100\n"), task="focused")
    r2 = read_run(write(tmp_path / "g2.run", "1 Q0 W 1 3 g2 0 100\n1 Q0 X 2 2 g2 0 100\n1 Q0 Y 3 1 g2 0 100\n"),
                  task="focused")
    judged = JudgedRuns(read_assessments(q), {"g1": r1, "g2": r2})
    original, source = original_pools(judged, pd.DataFrame({"topic": ["1"], "doc": ["X"]}))
    assert (sorted(original["1"]), source) == (["N", "X", "Y"], "qrels")  # the qrels record the pool
    groups = {"g1": "G1", "g2": "G2"}
    entries = leave_group_out_entries({"g1": r1.results, "g2": r2.results}, groups, articles=True)
    runs, bins = leave_one_group_out(judged, entries, groups, ["AiP"], {"1": 3})
    by = runs.set_index("run")
    # 100% pool: X, W at depth 1, Z at 2 -> 3 documents at depth 2, without Y: baseline qrels {X}
    # g1: X first, Trel 100: iP 1 everywhere -> AiP 1 (the full qrels would give 51/101)
    # g2: W, X: P .5 at R 1 -> AiP .5 (the full qrels would give 2/3)
    assert by.loc["g1", "baseline"] == pytest.approx(1.0) and by.loc["g2", "baseline"] == pytest.approx(0.5)
    # without G1: g2's W, X, Y enter at 1, 2, 3: the pool of 3 holds Y, relevant again; g1's
    # X then reaches R .5 only: iP 1 at the 51 levels 0 .. .50, 0 above -> 51/101, change 49.5%
    assert by.loc["g1", "new"] == pytest.approx(51 / 101) and by.loc["g1", "change_bin"] == "(20,50]"
    # without G2: g1's X, Z, fewer than 3, all pooled; Y stays out: nothing changes for g2
    assert by.loc["g2", "new"] == pytest.approx(0.5) and by.loc["g2", "change_bin"] == "0"
    assert change_bin(0.0, 0.2) == "(-inf,-50]" and change_bin(1.0, 0.95) == "(0,10]"


def test_sample_size_is_pal_et_al_footnote_4():
    """floor(f x n), at least one: "For a few topics there were less than five relevant
    documents. For such topics, one relevant document was included in the reduced qrels at
    20% sampling level" (floor(0.2 n) is 0 exactly for n < 5); the config's decimal, not its
    binary float (0.29 x 100 = 28.999999999999996)."""
    from inexflow.analysis.stability import sample_size

    assert [sample_size(0.2, n) for n in range(1, 12)] == [1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2]
    assert [sample_size(0.6, n) for n in (1, 2, 4, 5, 9)] == [1, 1, 2, 3, 5]
    assert (sample_size(0.29, 100), sample_size(0.7, 10), sample_size(1.0, 7)) == (29, 7, 7)


def test_table_3_from_the_papers_own_tables_1_and_2():
    """Pal et al.'s Table 3 recomputed from the tau values and #reldocs of their Tables 1 (INEX
    2007, 6,460 relevant documents) and 2 (INEX 2008, 4,887): the paper's cells, but for MAiP,
    which the paper prints as an upper bound alone ("<2,589 (<40%)", "<2,918 (<60%)") where the
    crossing is estimated here as for the other measures (docs/measures.md)."""
    import pandas as pd

    from inexflow.analysis.stability import smallest_stable

    tables = {  # tau at 20, 40, 60, 80% (then 100%: tau 1)
        2007: ([1298, 2589, 3871, 5164, 6460], {"iP[0.00]": [0.65810, 0.74463, 0.82469, 0.88633],
                                                "iP[0.01]": [0.62234, 0.72792, 0.80086, 0.87556],
                                                "iP[0.05]": [0.67128, 0.80305, 0.84878, 0.90913],
                                                "iP[0.10]": [0.72921, 0.84945, 0.88492, 0.93584],
                                                "MAiP": [0.82164, 0.90080, 0.93062, 0.96450]}),
        2008: ([971, 1942, 2918, 3889, 4887], {"iP[0.00]": [0.53104, 0.62918, 0.71716, 0.82273],
                                               "iP[0.01]": [0.55126, 0.66383, 0.74754, 0.84885],
                                               "iP[0.05]": [0.69268, 0.71934, 0.82448, 0.87574],
                                               "iP[0.10]": [0.72940, 0.76536, 0.83628, 0.88601],
                                               "MAiP": [0.82131, 0.86557, 0.91268, 0.94404]})}
    paper = {2007: [">5,164 (>80%)", ">5,164 (>80%)", ">3,871, <5,164 (~75%)", ">3,871, <5,164 (~65%)"],
             2008: [">3,889 (>80%)"] * 4}
    for year, (counts, taus) in tables.items():
        rows = [(m, f, t, c) for m, ts in taus.items()
                for f, t, c in zip([0.2, 0.4, 0.6, 0.8, 1.0], [*ts, 1.0], counts)]
        out = smallest_stable(pd.DataFrame(rows, columns=["measure", "fraction", "tau", "reldocs"]), "fraction",
                              count="reldocs").set_index("measure")
        assert out.loc[list(taus)[:4], "paper"].tolist() == paper[year]
    # MAiP: 2007 crosses 0.9 at 39.8% (the paper: "<40%"), 2008 at 54.6% (the paper: "<60%")
    assert out.loc["MAiP", "paper"] == ">1,942, <2,918 (~55%)"


def test_rank_correlations_of_ogilvie_lalmas_example():
    """Section 3.4: two groups of 10 systems, the first above the second under both measures,
    each group's order reversed: "Spearman's rho is 0.5 and Kendall's tau is 0.026" (tau-b is
    (100 - 90) / 190 = 0.0526; the paper's 0.026 divides by 380). rho by hand: sum d^2 = 2 x 2 x
    (81 + 49 + 25 + 9 + 1) = 660, 1 - 6 x 660 / (20 x 399) = 0.50376; with ties, as scipy's."""
    from inexflow.analysis.rankcorr import spearman_rho, tau_b

    x = np.arange(20.0)
    y = np.r_[np.arange(9, -1, -1), np.arange(19, 9, -1)].astype(float)
    assert spearman_rho(x, y) == pytest.approx(1 - 6 * 660 / (20 * 399), abs=1e-15)
    assert round(spearman_rho(x, y), 1) == 0.5 and tau_b(x, y) == pytest.approx(10 / 190, abs=1e-15)
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(4)
    for _ in range(20):  # ties in both
        a, b = rng.integers(0, 5, 12).astype(float), rng.integers(0, 5, 12).astype(float)
        assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)
    assert np.isnan(spearman_rho(np.ones(5), x[:5]))


def test_change_bins_of_arrays_are_change_bin_of_each_pair():
    """The per-query bins of leave-one-group-out, element-wise, are change_bin's: at every bin
    edge, at 0, equal values, NaN and infinities, and on random scores."""
    from inexflow.analysis.logo import change_bins

    edges = [0.0, 1.0, 1.5, 1.1, 1.0000001, 0.9, 0.8, 0.5, 0.49, 0.0, np.nan, np.inf, -0.2, 2.0, 1e-300]
    b = np.array([1.0] * len(edges) + [0.0, 0.0, 0.5, np.nan, np.inf] + list(np.random.default_rng(0).random(500)))
    n = np.array(edges + [0.0, 0.3, 0.5, 0.2, 1.0] + list(np.random.default_rng(1).random(500)))
    got = change_bins(b, n)
    with np.errstate(invalid="ignore"):  # inf - inf, as the scores never are
        want = [change_bin(x, y) for x, y in zip(b, n)]
    assert got.dtype == object and list(got) == want


def test_correlation_tables_average_as_the_paper():
    from inexflow.analysis.correlate import averaged_table, measure_correlations

    rows = []
    vals = {("gen", "MAep"): [3, 2, 1], ("gen", "Q"): [1, 2, 3], ("strict", "MAep"): [3, 1, 2],
            ("strict", "Q"): [3, 2, 1]}
    for task in ("thorough", "focused"):
        for (q, m), v in vals.items():
            rows += [(r, "all", task, q, m, float(x)) for r, x in zip("abc", v)]
    scores = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    corr = measure_correlations(scores, {"thorough": ["MAep", "Q"], "focused": ["MAep", "Q"]})
    assert len(corr) == 2 * 6
    by_m = averaged_table(corr, "measure").set_index(["measure_a", "measure_b"])
    # MAep vs Q: gen -1 (reversed), strict: 321 vs 312 -> tau 1/3; mean over 2 tasks x 2 quants
    assert by_m.loc[("MAep", "Q"), "tau_b"] == pytest.approx((-1 + 1 / 3) / 2)
    by_q = averaged_table(corr, "quant").set_index(["quant_a", "quant_b"])
    # gen vs strict: MAep 321 vs 312 (1/3), Q 123 vs 321 (-1)
    assert by_q.loc[("gen", "strict"), "tau_b"] == pytest.approx((1 / 3 - 1) / 2)
    # the paper's shape: lower triangle in the configured order, the number of scores averaged in brackets
    from inexflow.analysis.correlate import paper_matrix

    t1 = paper_matrix(averaged_table(corr, "measure"), "measure", ["Q", "MAep"])
    assert t1.columns.tolist() == ["measure", "Q"] and t1.values.tolist() == [["MAep", "-0.33 (4)"]]
    t2 = paper_matrix(averaged_table(corr, "quant"), "quant", ["strict", "gen", "genLifted"])
    assert t2.values.tolist() == [["gen", "-0.33 (4)"]]  # genLifted has no scores: left out


def test_a_task_of_one_run_warns_that_its_correlations_are_nan(caplog):
    """Legal but odd: a task with fewer than 2 runs has no ranking to correlate. One warning per
    such task, naming it and its run count; the other tasks correlate without one."""
    from inexflow.analysis.correlate import measure_correlations

    rows = [(r, "all", "focused", "chars", m, v) for r, vals in (("a", (0.3, 0.4)), ("b", (0.2, 0.1)))
            for m, v in zip(("MAiP", "iP[0.01]"), vals)]
    rows += [("c", "all", "best-in-context", "chars", m, 0.5) for m in ("MAgP", "gP[5]")]
    scores = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    caplog.set_level("WARNING", logger="inexflow")
    corr = measure_correlations(scores, {"focused": ["MAiP", "iP[0.01]"], "best-in-context": ["MAgP", "gP[5]"]})
    assert corr.set_index("task").loc["focused", "tau_b"] == 1.0
    assert corr.set_index("task").loc["best-in-context", ["tau_b", "tau_ap"]].isna().all()
    assert [r.getMessage() for r in caplog.records] == [
        "correlations of task best-in-context: the task has 1 run, and a rank correlation needs at least 2 runs: "
        "its tau_b and tau_ap are NaN"]


def test_error_rate_is_ogilvie_lalmas_section_3_3_against_scipy_and_statsmodels():
    """Recomputed independently: the same splits, scipy's paired t and binomial sign tests on
    every ordered pair of the first half, statsmodels' Benjamini-Yekutieli; an error is a pair
    significant on half 1 whose half-2 mean difference is not positive."""
    import itertools

    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from inexflow.analysis.significance import test_error_rates

    rng = np.random.default_rng(3)
    # 5 runs x 15 topics: a topic effect, run effects close enough for errors to happen
    x = rng.normal(0.5, 0.15, 15)[None, :] + np.array([0.0, 0.02, 0.04, 0.1, 0.2])[:, None] \
        + rng.normal(0, 0.08, (5, 15))
    got = test_error_rates(pd.DataFrame(x), tests=("t", "sign"), splits=20, seed=11, alpha=0.1)
    want = {(t, c): [0, 0, 0] for t in ("t", "sign") for c in ("none", "BY")}
    split_rng = np.random.default_rng(11)
    pairs = list(itertools.permutations(range(5), 2))
    for _ in range(20):
        perm = split_rng.permutation(15)
        h1, h2 = x[:, perm[:7]], x[:, perm[7:]]
        for test in ("t", "sign"):
            def p(h, a, b, test=test):
                if test == "t":
                    return stats.ttest_rel(h[a], h[b], alternative="greater").pvalue
                d = h[a] - h[b]
                return stats.binomtest(int((d > 0).sum()), int((d != 0).sum()), 0.5, alternative="greater").pvalue
            p1 = np.array([p(h1, a, b) for a, b in pairs])
            p2 = np.array([p(h2, a, b) for a, b in pairs])
            worse = np.array([h2[a].mean() - h2[b].mean() <= 0 for a, b in pairs])
            for c, (s1, s2) in {"none": (p1 <= 0.1, p2 <= 0.1),
                                "BY": (multipletests(p1, 0.1, method="fdr_by")[0],
                                       multipletests(p2, 0.1, method="fdr_by")[0])}.items():
                want[(test, c)][0] += s1.sum()
                want[(test, c)][1] += (s1 & worse).sum()
                want[(test, c)][2] += (s1 & s2).sum()
    for r in got.itertuples():
        sig, err, both = want[(r.test, r.correction)]
        assert (r.significant, r.errors) == (sig, err) and r.splits == 20
        if sig:
            assert r.error_rate == pytest.approx(100 * err / sig) and r.both_halves == pytest.approx(100 * both / sig)
        else:
            assert np.isnan(r.error_rate) and np.isnan(r.both_halves)
    assert (got["errors"] > 0).any() and (got["significant"] > 0).sum() >= 3  # the case shows errors


def test_pal_x_percent_pools_by_hand(tmp_path):
    """Pal, Mitra & Kamps, "Reducing pool depth": d_Q(X) is the smallest depth at which the
    regenerated pool holds ceil(X% of the original pool size) documents; the X% qrels are the
    relevant documents inside it, the 100% qrels those inside the pool at d_Q(100)."""
    from scipy.stats import kendalltau

    from inexflow.analysis.stability import depth_levels, depth_reduction, reduced_pools
    from inexflow.model.pool import entry_depths

    q = write(tmp_path / "q.fol", "".join(f"1 Q0 {d} 100 100 0 0:100\n" for d in "ABC"))
    docs = {"r1": "ABC", "r2": "ADC", "r3": "DAB"}
    runs = {n: read_run(write(tmp_path / f"{n}.run", "".join(f"1 Q0 {d} {k} {9 - k} {n} 0 100\n"
                                                            for k, d in enumerate(ds, 1))), task="focused")
            for n, ds in docs.items()}
    entry = entry_depths({n: r.results for n, r in runs.items()})
    assert dict(zip(entry["doc"], entry["entry"])) == {"A": 1, "B": 2, "C": 3, "D": 1}
    # original pool of 4 documents; X=10: ceil(.4)=1 document -> depth 1, where 2 enter (A, D)
    levels = depth_levels(entry, {"1": 4}, [10, 50, 75])
    got = {x: (d, n) for x, d, n in zip(levels["percent"], levels["depth"], levels["pool_size"])}
    assert got == {10.0: (1, 2), 50.0: (1, 2), 75.0: (2, 3), 100.0: (3, 4)}
    assert all(n >= x / 100 * 4 for x, (_, n) in got.items())      # the X% pool holds >= X% of the documents
    # a topic whose runs never reach the original size: every document at 100%
    big = depth_levels(entry, {"1": 10}, [100])
    assert (big["depth"].iloc[0], big["pool_size"].iloc[0]) == (3, 4)
    judged = JudgedRuns(read_assessments(q), runs)
    out = depth_reduction(judged, ["AiP"], entry, levels, [50, 75, 100]).set_index("percent")
    assert list(out["reldocs"]) == [1, 2, 3] and set(out["topics"]) == {1} and set(out["systems"]) == {3}
    # the same taus from masks written by hand: 50% keeps A, 75% keeps A and B
    full = judged.score({"1": np.array([True, True, True])}, ["AiP"])["AiP"].mean(axis=1)
    for x, keep in ((50.0, [True, False, False]), (75.0, [True, True, False])):
        est = judged.score({"1": np.array(keep)}, ["AiP"])["AiP"].mean(axis=1)
        assert out.loc[x, "tau"] == pytest.approx(kendalltau(full, est).statistic)
    assert out.loc[100.0, "tau"] == 1.0 and out.loc[100.0, "tau_ap"] == 1.0
    pools = reduced_pools(entry, levels, judged)
    assert list(pools["relevant"]) == [1, 1, 2, 3]                # A; A; A, B; A, B, C


def test_pal_x_percent_pools_count_articles_and_the_qrels_original_pool_by_hand(tmp_path):
    """Pal et al., "Reducing Pool Depth": the regenerated pool's depth is counted in articles
    and cut at X% of "the original pool size for Q", the documents Q's qrels judge (relevant
    or not); the judged non-relevant ones count in no #reldocs."""
    from inexflow.analysis.stability import (
        depth_levels,
        depth_reduction,
        original_pools,
        pool_at,
        reduced_pools,
        relevant_vs_depth,
    )
    from inexflow.model.pool import first_positions, regenerated_entries

    # A, B, C relevant, D judged non-relevant: an original pool of 4 documents
    q = write(tmp_path / "q.fol", "".join(f"1 Q0 {d} 10 100 0 0:10\n" for d in "ABC") + "1 Q0 D 0 100 0\n")
    # r1: three passages of A around one of B, then C; r2: three of D, then B
    lines = {"r1": [("A", 0), ("A", 20), ("B", 0), ("A", 40), ("C", 0)], "r2": [("D", 0), ("D", 20), ("D", 40), ("B", 0)]}
    runs = {n: read_run(write(tmp_path / f"{n}.run", "".join(f"1 Q0 {d} {k} {9 - k} {n} {o} 10\n"
                                                            for k, (d, o) in enumerate(ls, 1))), task="focused")
            for n, ls in lines.items()}
    paths = []
    for n, r in runs.items():
        paths.append(tmp_path / "firstpos" / f"{n}.parquet")
        write_parquet(first_positions(r.results), paths[-1])
    entry = regenerated_entries(paths)
    # in articles A 1, D 1, B 2 (r1's and r2's second article), C 3; in results B would enter at 3, C at 5
    assert dict(zip(entry["doc"], entry["entry"])) == {"A": 1, "B": 2, "C": 3, "D": 1}
    judged = JudgedRuns(read_assessments(q), runs)
    original, source = original_pools(judged, pd.DataFrame({"topic": ["1"], "doc": ["A"]}))
    assert (sorted(original["1"]), source) == (["A", "B", "C", "D"], "qrels")
    levels = depth_levels(entry, {t: len(d) for t, d in original.items()}, [50, 75])
    # 50%: 2 documents at depth 1 (A, D); 75%: 3 at depth 2 (+ B); 100%: 4 at depth 3 (+ C)
    got = {x: (d, n) for x, d, n in zip(levels["percent"], levels["depth"], levels["pool_size"])}
    assert got == {50.0: (1, 2), 75.0: (2, 3), 100.0: (3, 4)} and set(levels["original_pool"]) == {4}
    assert sorted(pool_at(entry, levels, 75)["doc"]) == ["A", "B", "D"]
    out = depth_reduction(judged, ["AiP"], entry, levels, [50, 75, 100]).set_index("percent")
    assert list(out["reldocs"]) == [1, 2, 3]  # A; A, B; A, B, C: D, judged non-relevant, is no reldoc
    assert list(reduced_pools(entry, levels, judged)["relevant"]) == [1, 2, 3]
    curve = relevant_vs_depth(judged, pool_at(entry, levels, 100))
    assert dict(zip(curve["depth"], curve["relevant_found"])) == {1: 1, 2: 2, 3: 3}
    # qrels of relevant documents only do not record the pool: the campaign's pool stands in
    only_rel = JudgedRuns(read_assessments(write(tmp_path / "r.fol", "1 Q0 A 10 100 0 0:10\n")), runs)
    assert original_pools(only_rel, pd.DataFrame({"topic": ["1", "1"], "doc": ["A", "E"]})) == (
        {"1": ["A", "E"]}, "campaign pool")


def test_pal_tables_in_the_paper_shape():
    """Tables 1-2 and 4-5 of Pal et al.: one row per level "X (#reldocs)", tau and tau_AP per measure."""
    from inexflow.analysis.stability import paper_shape

    summary = pd.DataFrame({"measure": ["iP[0.00]", "MAiP", "iP[0.00]", "MAiP"], "fraction": [0.4, 0.4, 0.2, 0.2],
                            "tau": [0.7, 0.9, 0.6, 0.8], "tau_ap": [0.65, 0.88, 0.55, 0.79],
                            "reldocs": [2589, 2589, 1298, 1298]})
    t = paper_shape(summary, "fraction")
    assert t.columns.tolist() == ["Pool % (# reldocs)", "iP[0.00] tau", "iP[0.00] tau_AP", "MAiP tau", "MAiP tau_AP"]
    assert t.values.tolist() == [["20 (1,298)", 0.6, 0.55, 0.8, 0.79], ["40 (2,589)", 0.7, 0.65, 0.9, 0.88]]


def test_pool_sampling_counts_the_relevant_documents_it_keeps(tmp_path):
    from inexflow.analysis.stability import pool_sampling

    # topic 1: 3 relevant documents, topic 2: 1; at 50%: floor(1.5) = 1 and max(1, floor(.5)) = 1 -> 2 kept
    q = write(tmp_path / "q.fol", "".join(f"1 Q0 {d} 100 100 0 0:100\n" for d in "ABC") + "2 Q0 D 100 100 0 0:100\n")
    runs = {n: read_run(write(tmp_path / f"{n}.run", "".join(f"{t} Q0 {d} {k} {9 - k} {n} 0 100\n"
                                                            for k, (t, d) in enumerate(ds, 1))), task="focused")
            for n, ds in {"r1": [("1", "A"), ("1", "B"), ("2", "D")], "r2": [("1", "C"), ("2", "D")]}.items()}
    out = pool_sampling(JudgedRuns(read_assessments(q), runs), ["AiP"], [0.5, 1.0], samples=3, seed=1)
    assert dict(zip(out["fraction"], out["reldocs"])) == {0.5: 2, 1.0: 4}
    assert out.loc[out["fraction"] == 1.0, "tau"].iloc[0] == 1.0
    # judged non-relevant documents (E, F of topic 1, G of topic 2) are neither sampled nor counted (footnote
    # 3): the same counts, and the same samples, as without them
    q2 = write(tmp_path / "q2.fol", q.read_text() + "1 Q0 E 0 100 0\n1 Q0 F 0 100 0\n2 Q0 G 0 100 0\n")
    out2 = pool_sampling(JudgedRuns(read_assessments(q2), runs), ["AiP"], [0.5, 1.0], samples=3, seed=1)
    assert dict(zip(out2["fraction"], out2["reldocs"])) == {0.5: 2, 1.0: 4}
    assert out2[["tau", "tau_ap"]].equals(out[["tau", "tau_ap"]])


def test_quant_differences_are_ogilvie_lalmas_figure_1(tmp_path):
    """Figure 1's data by hand: the ordered pairs significant under either quantisation, with
    their mean differences under both and who found them; the plot is an SVG with a marker per
    pair, or a note when there is no comparison."""
    import pandas as pd

    from inexflow.analysis import plots
    from inexflow.analysis.significance import quant_differences

    ref = pd.DataFrame([[0.6, 0.4], [0.2, 0.2], [0.1, 0.3]], index=["r1", "r2", "r3"], columns=["t1", "t2"])
    other = pd.DataFrame([[0.5, 0.5], [0.3, 0.1], [0.3, 0.3]], index=["r1", "r2", "r3"], columns=["t1", "t2"])
    # means: ref r1 0.5, r2 0.2, r3 0.2; other r1 0.5, r2 0.2, r3 0.3
    d = quant_differences(ref, other, {("r1", "r2"), ("r1", "r3")}, {("r1", "r2"), ("r3", "r2")})
    assert list(zip(d.run_a, d.run_b, d.agreement)) == [("r1", "r2", "both"), ("r1", "r3", "reference only"),
                                                        ("r3", "r2", "other only")]
    assert d["diff_ref"].round(12).tolist() == [0.3, 0.3, 0.0]
    assert d["diff_other"].round(12).tolist() == [0.3, 0.2, 0.1]
    table = d.assign(measure="MAep", test="t", quant_ref="gen", quant_other="genLifted")
    from lxml import etree

    plots.quant_differences(table, tmp_path / "two.svg")
    svg = etree.parse(str(tmp_path / "two.svg")).getroot()
    ns = {"s": "http://www.w3.org/2000/svg"}
    # one circle per pair both found (the legend's adds one), a cross and a plus path for the others
    assert len(svg.findall(".//s:circle", ns)) == 1 + 1
    texts = [t.text for t in svg.iter("{*}text")]
    assert "both (1)" in texts and "reference only (1)" in texts and "other only (1)" in texts
    plots.quant_differences(table.iloc[0:0], tmp_path / "none.svg")
    assert "no pair of quantisations to compare" in (tmp_path / "none.svg").read_text()


def test_pal_tables_3_and_6_as_counts_by_hand():
    """The minimum #reldocs / #queries for tau >= 0.9: bounds from the levels around the
    crossing, read from the top down (a pass below a failing level does not count), and the
    crossing by linear interpolation."""
    import pandas as pd

    from inexflow.analysis.stability import smallest_stable

    levels, counts = [0.2, 0.4, 0.6, 0.8, 1.0], [20, 40, 60, 80, 100]
    rows = []
    for m, taus in (("dips", [0.5, 0.85, 0.95, 0.88, 1.0]), ("crosses", [0.7, 0.8, 0.92, 0.95, 1.0]),
                    ("always", [0.91, 0.93, 0.95, 0.97, 1.0])):
        rows += [(m, f, t, c) for f, t, c in zip(levels, taus, counts)]
    out = smallest_stable(pd.DataFrame(rows, columns=["measure", "fraction", "tau", "reldocs"]), "fraction",
                          count="reldocs").set_index("measure")
    assert out.loc["dips", "smallest_fraction_tau_ge_0.9"] == 0.6  # any level, as before
    assert out.loc["dips", "paper"] == ">80 (>80%)" and out.loc["dips", "reldocs_failing"] == 80
    # crosses between 0.4 (tau 0.8) and 0.6 (0.92): 0.4 + (0.9 - 0.8) * 0.2 / 0.12 = 0.5667
    assert out.loc["crosses", "estimate_percent"] == 56.7
    assert out.loc["crosses", "paper"] == ">40, <60 (~55%)"  # the estimate to the nearest 5%, as Table 3
    assert (out.loc["crosses", "reldocs_failing"], out.loc["crosses", "reldocs_passing"]) == (40, 60)
    assert out.loc["always", "paper"] == "<=20 (<=20%)" and pd.isna(out.loc["always", "reldocs_failing"])
    # Table 6 counts queries and prints one count, that of the lowest passing level: "86 (80%)"
    six = smallest_stable(pd.DataFrame(rows, columns=["measure", "fraction", "tau", "topics"]), "fraction",
                          count="topics").set_index("measure")
    assert list(six["paper"]) == ["100 (100%)", "60 (60%)", "<=20 (<=20%)"]


def test_topic_sampling_records_the_topics_per_sample():
    import numpy as np
    import pandas as pd

    from inexflow.analysis.stability import topic_sampling

    m = pd.DataFrame(np.arange(28, dtype=float).reshape(4, 7), index=list("abcd"))
    out = topic_sampling({"AiP": m}, [0.2, 0.5, 1.0], samples=2, seed=1)
    assert out["topics"].tolist() == [2, 4, 7]  # ceil(0.2 x 7), ceil(0.5 x 7), 7


def test_swap_fit_chi_square_and_table7_by_hand():
    from inexflow.analysis.swap import goodness_of_fit, table7

    # an exact exponential fits with chi2 = 0
    a1, a2, _ = fit_exponential([5, 10, 15], [0.2, 0.1, 0.05])
    assert goodness_of_fit([5, 10, 15], [0.2, 0.1, 0.05], a1, a2, 50)[0] == pytest.approx(0, abs=1e-12)
    # by hand, in percent: expected 100 * 0.4 e^{-0.1 z} at z = 10, 20: 14.7152, 5.4134
    stat, df, critical = goodness_of_fit([10, 20], [0.16, 0.05], 0.4, 0.1, 50)
    e10, e20 = 40 * np.exp(-1.0), 40 * np.exp(-2.0)
    assert stat == pytest.approx((16 - e10) ** 2 / e10 + (5 - e20) ** 2 / e20)
    assert df == 50 and round(critical, 3) == 27.991  # the paper's chi2_{0.995,50}
    fits = pd.DataFrame({"measure": ["MAiP", "iP[0.01]", "MAiP", "iP[0.01]"], "tolerance": [0.0, 0.0, 0.05, 0.05],
                         "smallest_size_error_lt_5pct": [70, 130, 45, float("nan")]})
    t = table7(fits, ["iP[0.01]", "MAiP"], 107)
    assert t.to_dict("records") == [{"% tolerance": "0", "iP[0.01]": ">107", "MAiP": "70"},
                                    {"% tolerance": "5", "iP[0.01]": "", "MAiP": "45"}]


def test_agreement_table_in_ogilvie_lalmas_shape_by_hand():
    """Tables 3-4's shape: a row per (predictor, truth) comparison with recall, precision and F1
    per measure, then a row per quantisation with the % of all system pairs it finds."""
    from inexflow.analysis.significance import agreement_table

    # 4 runs (6 system pairs); strict finds 2 ordered pairs significant, gen 3 of which 2 are strict's
    sig = {("strict", "MAep", "t"): {("a", "b"), ("a", "c")},
           ("gen", "MAep", "t"): {("a", "b"), ("a", "c"), ("b", "d")},
           ("strict", "nxCG[25]", "t"): set(), ("gen", "nxCG[25]", "t"): {("a", "b")}}
    n_runs = {(q, m): 4 for q in ("strict", "gen") for m in ("MAep", "nxCG[25]")}
    t = agreement_table(sig, [["gen", "strict"], ["strict", "gen"]], ["strict", "gen"], ["MAep", "nxCG[25]"], ["t"],
                        n_runs)
    assert list(t.columns) == ["test", "truth", "predictor", *(f"{m} {s}" for m in ("MAep", "nxCG[25]")
                                                               for s in ("recall", "precision", "F1", "% significant"))]
    assert list(zip(t.truth, t.predictor)) == [("strict", "gen"), ("gen", "strict"), ("strict", ""), ("gen", "")]
    gen_for_strict, strict_for_gen = t.iloc[0], t.iloc[1]
    assert gen_for_strict["MAep recall"] == 1.0  # gen finds both of strict's pairs
    assert gen_for_strict["MAep precision"] == pytest.approx(2 / 3)  # but 1 of its 3 is not strict's
    assert gen_for_strict["MAep F1"] == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert (strict_for_gen["MAep recall"], strict_for_gen["MAep precision"]) == (pytest.approx(2 / 3), 1.0)
    # strict finds nothing on nxCG[25]: it predicts none of gen's one pair
    assert (strict_for_gen["nxCG[25] recall"], strict_for_gen["nxCG[25] F1"]) == (0.0, 0.0)
    assert (t.iloc[2]["MAep % significant"], t.iloc[3]["MAep % significant"]) == (100 * 2 / 6, 100 * 3 / 6)
    assert (t.iloc[2]["nxCG[25] % significant"], t.iloc[3]["nxCG[25] % significant"]) == (0.0, 100 / 6)
    assert t.iloc[:2]["MAep % significant"].isna().all() and t.iloc[2:]["MAep F1"].isna().all()


def test_logo_tables_in_the_papers_shape_by_hand():
    from inexflow.analysis.logo import paper_tables

    per_run = pd.DataFrame({"measure": ["MAiP"] * 4, "change_bin": ["0", "(0,10]", "(0,10]", "(-10,0)"],
                            "significant": [False, True, False, False]})
    per_query = pd.DataFrame({"measure": ["MAiP"] * 3, "bin": ["0", "(0,10]", "(20,50]"], "count": [7890, 110, 1]})
    t = paper_tables(per_run, per_query, ["MAiP"]).set_index(["table", "row"])["MAiP"]
    overall = "overall (out of 4 systems)"
    assert (t[(overall, "0")], t[(overall, "(0,10]")], t[(overall, "(-10,0)")], t[(overall, "(10,20]")]) == \
        ("1 (25%)", "2 (50%)", "1 (25%)", "0")
    # 7890 of 8001 = 98.6 %; 1 of 8001 rounds to 0.0 %: the count alone, as the paper prints it
    assert (t[("per query", "0")], t[("per query", "(20,50]")]) == ("7,890 (98.6%)", "1")
    assert (t[("significant (p < 0.05)", "YES")], t[("significant (p < 0.05)", "NO")]) == ("1 (25%)", "3 (75%)")
    # two measures, counted apart (the overall table's caption counts the measure with the most runs), and a
    # measure the tables do not hold: zeros
    per_run = pd.concat([per_run, pd.DataFrame({"measure": ["iP[0.01]"] * 2, "change_bin": ["0", "(50,100]"],
                                                "significant": [True, True]})], ignore_index=True)
    per_query = pd.concat([per_query, pd.DataFrame({"measure": ["iP[0.01]"], "bin": ["0"], "count": [3]})],
                          ignore_index=True)
    t = paper_tables(per_run, per_query, ["MAiP", "iP[0.01]", "gP[5]"]).set_index(["table", "row"])
    assert t.loc[(overall, "0")].tolist() == ["1 (25%)", "1 (50%)", "0"]
    assert t.loc[(overall, "(50,100]")].tolist() == ["0", "1 (50%)", "0"]
    assert t.loc[("per query", "0")].tolist() == ["7,890 (98.6%)", "3 (100%)", "0"]
    assert t.loc[("significant (p < 0.05)", "YES")].tolist() == ["1 (25%)", "2 (100%)", "0"]
    # no runs at all: every cell 0, the caption out of 0 systems
    empty = paper_tables(per_run.iloc[:0], per_query.iloc[:0], ["MAiP"])
    assert set(empty["MAiP"]) == {"0"} and empty["table"].iloc[0] == "overall (out of 0 systems)"


def test_tau_at_60_is_tables_11_12(tmp_path):
    from inexflow.analysis.summary import tau_at_60

    def tsv(name, text):
        (tmp_path / name).write_text(text)
        return str(tmp_path / name)

    inp = {"sampling": tsv("s.tsv", "measure\tfraction\ttau\nMAiP\t0.6\t0.91\niP[0.01]\t0.6\t0.75\nMAiP\t1.0\t1.0\n"),
           "topics": tsv("t.tsv", "measure\tfraction\ttau\nMAiP\t0.5\t0.8\n"),  # no 60 % level: no row
           "depth": tsv("d.tsv", "measure\tpercent\ttau\niP[0.01]\t60.0\t0.97\nMAiP\t60.0\t0.99\n")}
    header, rows = tau_at_60(inp, ["iP[0.01]", "MAiP"])
    assert header == ["sampling", "iP[0.01]", "MAiP"]
    assert rows == [["Random pool", 0.75, 0.91], ["Pool depth", 0.97, 0.99]]


def test_adaptive_pool_depth_by_hand():
    from inexflow.analysis.adaptive import adaptive_depths

    # topic 1: relevant documents at entry depths 1, 3, 6 and 12; nothing new relevant from 8 on
    e1 = [("a", 1), ("b", 3), ("c", 4), ("d", 6), ("e", 7), ("f", 9), ("g", 10), ("h", 12), ("i", 14)]
    # topic 2: nothing relevant; the budget of 3 documents is reached at depth 5
    e2 = [("x", 1), ("y", 2), ("z", 5), ("w", 20)]
    entry = pd.DataFrame([("1", d, x) for d, x in e1] + [("2", d, x) for d, x in e2], columns=["topic", "doc", "entry"])
    relevant = {("1", "a"), ("1", "b"), ("1", "d"), ("1", "h")}
    judged = {("1", d) for d, _ in e1[:7]} | {("2", d) for d, _ in e2}  # h and i were never judged
    t = adaptive_depths(entry, relevant, judged, step=5, min_rate=0.3, max_judged=3).set_index("topic")
    # topic 1: depth 5 holds a b c (2 relevant, 3 >= budget 3): stops at once on the budget
    assert (t.loc["1", "depth"], t.loc["1", "judged"], t.loc["1", "relevant"], t.loc["1", "stopped"]) == \
        (5, 3, 2, "budget")
    t = adaptive_depths(entry, relevant, judged, step=5, min_rate=0.3, max_judged=None).set_index("topic")
    # depth 5: a b c; step to 10 adds d e f g (1 relevant of 4 = 0.25 < 0.3): stops at 10, 7 judged
    assert (t.loc["1", "depth"], t.loc["1", "judged"], t.loc["1", "relevant"], t.loc["1", "unjudged"],
            t.loc["1", "stopped"]) == (10, 7, 3, 0, "rate")
    # topic 2: depth 5 holds x y z; the step to 10 adds nothing and is passed over; 15 nothing;
    # 20 adds w (0 of 1 relevant): stops there with every document
    assert (t.loc["2", "depth"], t.loc["2", "judged"], t.loc["2", "stopped"]) == (20, 4, "rate")
    t = adaptive_depths(entry, relevant, judged, step=5, min_rate=0.3, max_judged=6).set_index("topic")
    # a budget of 6: the step to 10 would judge 7 (a b c + d e f g): judging stops at the 6th, f
    assert (t.loc["1", "depth"], t.loc["1", "judged"], t.loc["1", "relevant"], t.loc["1", "stopped"]) == \
        (10, 6, 3, "budget")
    t = adaptive_depths(entry, relevant, judged, step=5, min_rate=0.3, max_judged=2).set_index("topic")
    # a budget of 2: the first step's a b c passes it too: a and b are judged, not c
    assert (t.loc["1", "depth"], t.loc["1", "judged"], t.loc["1", "relevant"], t.loc["1", "stopped"]) == \
        (5, 2, 2, "budget")
    assert (t.loc["2", "depth"], t.loc["2", "judged"], t.loc["2", "stopped"]) == (5, 2, "budget")
    t = adaptive_depths(entry, relevant, judged, step=5, min_rate=0.0, max_judged=None).set_index("topic")
    # a zero rate never stops: every document, h and i unjudged
    assert (t.loc["1", "judged"], t.loc["1", "relevant"], t.loc["1", "unjudged"], t.loc["1", "stopped"]) == \
        (9, 4, 2, "exhausted")


@pytest.mark.parametrize("seed", range(3))
def test_adaptive_pool_never_judges_more_than_its_maximum(seed):
    """Pal et al.'s step 4: judging stops when "a predetermined maximum number of documents to
    be judged is reached", the first step included (the demo's topic 2009001 was judged 45 with
    a maximum of 40): random pools of 10 runs x 30 documents in ties, every budget."""
    from inexflow.analysis.adaptive import adaptive_depths

    rng = np.random.default_rng(seed)
    rows = [(str(t), f"d{d}", int(rng.integers(1, 40))) for t in range(5) for d in rng.choice(200, 120, replace=False)]
    entry = pd.DataFrame(rows, columns=["topic", "doc", "entry"])
    relevant = {(t, d) for t, d, _ in rows if rng.random() < 0.3}
    sizes = entry.groupby("topic").size()
    for budget in (1, 7, 40, 45, 200):
        t = adaptive_depths(entry, relevant, set(), step=5, min_rate=0.05, max_judged=budget).set_index("topic")
        assert (t["judged"] <= budget).all()
        # stopped by the budget: exactly the budget judged; otherwise whole steps, and never the budget's fault
        assert (t.loc[t["stopped"] == "budget", "judged"] == budget).all()
        whole = t[t["stopped"] != "budget"]
        assert all(n == int((entry[(entry.topic == k)]["entry"] <= d).sum()) for k, d, n in
                   zip(whole.index, whole["depth"], whole["judged"]))
        assert (t.loc[t["stopped"] == "exhausted", "judged"] == sizes[t.index[t["stopped"] == "exhausted"]]).all()


def test_task_curves_show_the_top_runs_by_the_main_measure():
    from inexflow.analysis.plots import top_runs

    rows = [(f"r{i:02d}", "all", "focused", "-", "MAiP", v) for i, v in enumerate([0.3, 0.5, 0.1, 0.5, 0.2])]
    scores = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    assert top_runs(scores, "focused", "MAiP", 3) == ["r01", "r03", "r00"]  # 0.5, 0.5 (by name), 0.3
    assert top_runs(scores, "focused", "MAiP", 10) == ["r00", "r01", "r02", "r03", "r04"]  # every run
    assert top_runs(scores, "focused", None, 3) == ["r00", "r01", "r02", "r03", "r04"]


def test_task_curves_show_every_run_then_the_top_runs(monkeypatch, tmp_path):
    # Pal et al., Figure 4: "precision-recall curves for focused runs and top-10 systems"
    from inexflow.analysis import plots

    rows = [(f"r{i}", "all", "focused", "chars", "MAiP", v) for i, v in enumerate([0.3, 0.5, 0.1, 0.4, 0.2])]
    rows += [(f"r{i}", "all", "focused", "chars", f"ircl_prn.{x:.2f}", v * (1 - x)) for i, v in
             enumerate([0.3, 0.5, 0.1, 0.4, 0.2]) for x in (0.0, 0.5, 1.0)]
    scores = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig))
    plots.task_curves(scores, "focused", tmp_path / "c.svg", "MAiP", top=3)
    axes = figures[0].flat
    assert [len(ax.series) for ax in axes] == [5, 3]
    assert "all 5 runs" in axes[0].title and "top 3 of 5 runs by MAiP" in axes[1].title
    assert axes[0].legend_size is None and [s.label for s in axes[1].series] == ["r1", "r3", "r0"]
    assert list(axes[1].series[0].y) == [0.5, 0.25, 0.0]  # r1's ircl_prn.0.00, .0.50, .1.00
    plots.task_curves(scores, "focused", tmp_path / "c.svg", "MAiP", top=10)  # every run fits: one row
    assert [len(ax.series) for ax in figures[1].flat] == [5]


@pytest.mark.parametrize("seed", range(4))
def test_rejudged_scores_equal_scoring_each_run_and_topic(tmp_path, seed):
    """JudgedRuns.score (every run and topic at once, results without highlighted text left
    out) gives exactly interpolated_precision per run and topic on the results' sizes, with
    the highlighted characters of documents a mask drops set to 0: random runs over partly
    highlighted documents, random masks, run and topic subsets."""
    from inexflow.measures.passage_arrays import interpolated_precision
    from inexflow.model.recallbase import overlap_with_passages
    from inexflow.model.runs import Run

    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(12)]
    qlines = []
    for t in ("1", "2", "3"):
        for d in rng.choice(docs, 5, replace=False):
            s = int(rng.integers(0, 300))
            n = int(rng.integers(0, 200))
            qlines.append(f"{t} Q0 {d} {n} 1000 0 {s}:{n}\n" if n else f"{t} Q0 {d} 0 1000\n")
    a = read_assessments(write(tmp_path / "q.fol", "".join(qlines)))
    runs = {}
    for r in range(4):
        lines = [f"{t} Q0 {d} {k} {-k} r{r} {20 * k} {int(rng.integers(1, 20))}\n"
                 for t in ("1", "2", "3", "9") for k, d in enumerate(rng.choice(docs, 30), 1)]
        runs[f"r{r}"] = read_run(write(tmp_path / f"r{r}.run", "".join(lines)), task="focused")
        if seed >= 2:  # as the stages read them: cached, topics and documents as categoricals
            runs[f"r{r}"].save(tmp_path / f"r{r}.parquet")
            runs[f"r{r}"] = Run.load(tmp_path / f"r{r}.parquet", categorical=True)
            assert runs[f"r{r}"].results["doc"].dtype == "category"
    judged = JudgedRuns(a, runs)
    masks = {t: rng.random(len(d)) < 0.6 for t, d in judged.rel_docs.items()}
    chosen = ["r3", "r1"] if seed % 2 else None
    got = judged.score(masks, ["AiP", "iP[0.01]", "iP[0.10]"], runs=chosen)
    docs_tab = a.documents
    passages = a.passages.assign(end=lambda p: p["start"] + p["length"])
    for name in chosen or list(runs):
        res = runs[name].results.assign(start=lambda x: x["offset"], end=lambda x: x["offset"] + x["length"])
        rsize = overlap_with_passages(res, passages)
        for t in got["AiP"].columns:
            keep = dict(zip(judged.rel_docs[t], masks[t]))
            sel = (res["topic"] == t).to_numpy()
            kept = np.array([keep.get(d, False) for d in res["doc"][sel]])
            trel = int(docs_tab[(docs_tab["topic"] == t) & docs_tab["doc"].map(keep).fillna(False).astype(bool)]
                       ["rel_chars"].sum())
            ip = interpolated_precision(res["length"].to_numpy()[sel], np.where(kept, rsize[sel], 0), trel)
            assert got["AiP"].loc[name, t] == ip.mean()
            assert got["iP[0.01]"].loc[name, t] == ip[1] and got["iP[0.10]"].loc[name, t] == ip[10]
    assert list(got["AiP"].index) == (chosen or list(runs))
    assert (got["AiP"].to_numpy() > 0).sum() >= 2  # not all 0
    # as the workflow judges them: each run once, cached (judge_run), then assembled
    tables = [tmp_path / "q.fol"]
    for name, run in runs.items():
        (tmp_path / "judged").mkdir(exist_ok=True)
        write_parquet(judged.judge(run), tmp_path / "judged" / f"{name}.parquet",
                      {"name": name, "made_from": {str(tables[0]): checksum(tables[0])}})
    paths = [tmp_path / "judged" / f"{n}.parquet" for n in runs]
    cached = JudgedRuns.from_files(a, paths, tables).score(masks, ["AiP", "iP[0.01]", "iP[0.10]"], runs=chosen)
    for m in got:
        pd.testing.assert_frame_equal(cached[m], got[m], check_exact=True)


def test_a_cached_judged_run_of_another_run_or_other_assessments_is_an_error(tmp_path):
    from inexflow.io.tables import CachedTableError

    q = write(tmp_path / "q.fol", "1 Q0 d1 10 100 0 0:10\n")
    a = read_assessments(q)
    run = read_run(write(tmp_path / "r.run", "1 Q0 d1 1 1 r 0 10\n"), task="focused")
    part = JudgedRuns.from_parts(a, {}).judge(run)
    assert part.to_dict("list") == {"topic": [0], "running": [10], "rsize": [10], "doc": [0]}
    path = tmp_path / "r.judged.parquet"
    write_parquet(part, path, {"name": "r", "made_from": {str(q): checksum(q)}})
    assert pd.DataFrame(judged_columns(path, "r", [q])).equals(part)
    with pytest.raises(CachedTableError, match="holds name 'r', not 'other'"):
        judged_columns(path, "other", [q])
    write(q, "1 Q0 d1 20 100 0 0:20\n")  # the assessments changed since
    with pytest.raises(CachedTableError, match="another version of"):
        judged_columns(path, "r", [q])


def test_tau_b_equals_scipy_kendalltau():
    """tau_b counts pairs itself (no scipy import in the stages); scipy's kendalltau is the
    reference: the same float on random scores with and without ties, across the row blocks
    (n > 1024), and NaN where scipy gives NaN."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(7)
    for n, levels in [(2, 3), (5, 2), (30, 4), (80, 1000), (300, 12), (1500, 40)]:
        for trial in range(5):
            x, y = rng.integers(0, levels, n) / levels, rng.integers(0, levels, n) / levels
            if n == 5 and trial == 0:
                y = 2 * x + 1                     # the same weak order from other scores
            ref, got = kendalltau(x, y).statistic, tau_b(x, y)
            if np.array_equal(np.sign(x[:, None] - x), np.sign(y[:, None] - y)):
                assert got == 1.0                 # identical weak orders, all-tied ones included
            elif np.isnan(ref):
                assert np.isnan(got)
            else:
                assert got == ref
    assert np.isnan(tau_b([1.0, np.nan, 2.0], [1.0, 2.0, 3.0]))
    assert np.isnan(tau_b([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])) and np.isnan(kendalltau([1, 1, 1], [1, 2, 3]).statistic)
    assert tau_b([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]) == -1.0


def test_paired_t_pvalue_equals_scipy_ttest_rel():
    from scipy.stats import ttest_rel

    from inexflow.analysis.logo import paired_t_pvalue

    rng = np.random.default_rng(3)
    for n in (2, 3, 10, 107, 1070):
        for shift in (0.0, 0.01, 0.3):
            a = rng.random(n)
            b = np.clip(a - shift + rng.normal(0, 0.1, n), 0, 1)
            assert paired_t_pvalue(a, b) == pytest.approx(ttest_rel(a, b).pvalue, rel=1e-12, abs=1e-300)


@pytest.mark.slow
def test_wilcoxon_greater_equals_scipy_wilcoxon():
    """The enumerated permutation test (few topics, zeros or ties) and the other paths give
    scipy's wilcoxon p-values exactly: batches with zeros, tied magnitudes, and neither."""
    from scipy import stats

    from inexflow.analysis.significance import wilcoxon_greater

    rng = np.random.default_rng(5)
    for n in (1, 2, 5, 9, 13, 14, 20):
        rows = {13: 1, 9: 4}.get(n, 8)  # (scipy's own permutation test of 2^n patterns is slow)
        for kind in ("ties", "zeros", "continuous"):
            d = rng.normal(size=(rows, n))
            if kind == "ties":
                d = rng.integers(-3, 4, size=(rows, n)) / 4.0
                d[d == 0] = 0.5
            elif kind == "zeros":
                d[rng.random(d.shape) < 0.2] = 0.0
            d = d[np.any(d != 0, axis=1)]
            ref = stats.wilcoxon(d, alternative="greater", zero_method="wilcox", axis=1).pvalue
            assert np.array_equal(wilcoxon_greater(d), ref), (n, kind)


def _beats(x, y, p):
    return x - y > 0 and abs(x - y) >= p * max(x, y)


@pytest.mark.parametrize("block", [1, 7, 2_000_000])
def test_swap_rates_equal_one_iteration_at_a_time(monkeypatch, block):
    """The blocked swap rates equal Voorhees & Buckley's procedure run one iteration at a time
    (the same permutations from the same seed), exactly, whatever the block size."""
    from inexflow.analysis import swap

    monkeypatch.setattr(swap, "SWAP_BLOCK", block)
    rng = np.random.default_rng(11)
    matrix = rng.integers(0, 5, (6, 21)) / 4      # exact means: margins land on the tolerance exactly
    sizes, tolerances, iterations, seed = [2, 4, 5, 10, 11], (0.0, 0.05, 0.3, 0.5), 13, 4
    got = swap.swap_rates(matrix, sizes, tolerances, iterations, seed)
    r = np.random.default_rng(seed)
    want = []
    for z in sizes:
        if 2 * z > 21:
            continue
        count = {p: np.zeros(15) for p in tolerances}
        for _ in range(iterations):
            perm = r.permutation(21)
            m1, m2 = matrix[:, perm[:z]].mean(axis=1), matrix[:, perm[z:2 * z]].mean(axis=1)
            for p in tolerances:
                k = 0
                for a in range(6):
                    for b in range(a + 1, 6):
                        count[p][k] += (_beats(m1[a], m1[b], p) and _beats(m2[b], m2[a], p)) or \
                            (_beats(m1[b], m1[a], p) and _beats(m2[a], m2[b], p))
                        k += 1
        want += [(z, p, float(np.mean(count[p] / iterations))) for p in tolerances]
    assert list(got.itertuples(index=False, name=None)) == want
    assert got["error_rate"].max() > 0


def test_pvalue_table_has_one_row_per_pair_the_better_run_first():
    import numpy as np
    import pandas as pd
    from scipy import stats

    from inexflow.analysis.significance import all_pairs, pvalue_table

    mat = pd.DataFrame([[0.9, 0.8, 0.7, 0.6], [0.1, 0.2, 0.3, 0.35], [0.5, 0.5, 0.4, 0.6]],
                       index=["a", "b", "c"], columns=["1", "2", "3", "4"])
    pairs = all_pairs(mat, ["t"], 100, 0).assign(quant="gen", measure="MAep")
    table = pvalue_table(pairs, {("gen", "MAep"): mat.mean(axis=1)})
    # means a 0.75, c 0.5, b 0.2375: three pairs, the larger difference first
    assert list(zip(table.run_a, table.run_b)) == [("a", "b"), ("c", "b"), ("a", "c")]
    assert table["difference"].tolist() == pytest.approx([0.5125, 0.2625, 0.25])
    # the one-sided paired t-test that run_a is better (scipy's ttest_rel, alternative greater)
    want = [stats.ttest_rel(mat.loc[a], mat.loc[b], alternative="greater").pvalue for a, b in zip(table.run_a,
                                                                                                  table.run_b)]
    assert table["p_t"].tolist() == pytest.approx(want)
    assert table["significant_t"].dtype == np.bool_
    # the BY-adjusted p-values decide as all_pairs decides (alpha 0.05)
    assert ((table["p_by_t"] <= 0.05) == table["significant_t"]).all() and (table["p_by_t"] >= table["p_t"]).all()


def test_significance_counts_a_runs_missing_topics_0_and_says_so():
    """A run without a value on a topic: the matrix counts it 0 (the official mean, by
    default, leaves it out), and the p-value table says how many topics each run had so."""
    from inexflow.analysis.matrix import answered_matrix, score_matrix
    from inexflow.analysis.significance import all_pairs, pvalue_table

    scores = pd.DataFrame({"run": ["a", "a", "a", "b", "b"], "topic": ["1", "2", "3", "1", "3"], "task": "T",
                           "quant": "gen", "measure": "AiP", "value": [0.6, 0.3, float("nan"), 0.4, 0.2]})
    answered = answered_matrix(scores, "T", "MAiP", "gen")
    assert answered.isna().sum(axis=1).to_dict() == {"a": 0, "b": 1}  # b has no topic 2; a's NaN is a value
    mat = score_matrix(scores, "T", "MAiP", "gen")
    assert mat.loc["b"].tolist() == [0.4, 0.0, 0.2] and mat.loc["a"].tolist() == [0.6, 0.3, 0.0]
    # b's mean here is (0.4 + 0 + 0.2) / 3 = 0.2; the official mean over its answered topics is 0.3
    pairs = all_pairs(mat, ["t"], 10, 0).assign(quant="gen", measure="MAiP")
    table = pvalue_table(pairs, {("gen", "MAiP"): mat.mean(axis=1)},
                         {("gen", "MAiP"): answered.isna().sum(axis=1)})
    row = table.iloc[0]
    assert (row.run_a, row.run_b, row.mean_a, row.mean_b) == ("a", "b", pytest.approx(0.3), pytest.approx(0.2))
    assert (row.missing_a_scored_0, row.missing_b_scored_0) == (0, 1)


def test_tau_curves_draw_tau_and_tau_ap_in_their_own_panels(monkeypatch, tmp_path):
    # Pal et al., Figures 1-3: (a) tau, (b) tau_AP, each with its standard error
    from inexflow.analysis import plots

    df = pd.DataFrame({"measure": ["m"] * 3, "fraction": [0.2, 0.6, 1.0], "tau": [0.5, 0.8, 1.0],
                       "tau_se": [0.05, 0.02, 0.0], "tau_ap": [0.4, 0.7, 1.0], "tau_ap_se": [0.05, 0.02, 0.0]})
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig))
    plots.tau_curves(df, "fraction", "% of topics", "Topic sampling", tmp_path / "t.svg")
    a, b = figures[0].flat
    assert "(a) Kendall tau" in a.title and "(b) tau_AP" in b.title
    assert list(a.series[0].y) == [0.5, 0.8, 1.0] and list(b.series[0].y) == [0.4, 0.7, 1.0]
    assert list(a.series[0].x) == [20, 60, 100] and list(a.series[0].yerr) == [0.05, 0.02, 0.0]


def test_table_3_cell_with_an_undefined_tau_below():
    """A level whose tau is undefined (NaN: every run scored alike) fails; the crossing above it
    has no estimate, printed as such (the workflow's pool_sampling stopped on it)."""
    import pandas as pd

    from inexflow.analysis.stability import smallest_stable

    rows = [("m", f, t, c) for f, t, c in zip([0.2, 0.4, 1.0], [float("nan"), 0.95, 1.0], [20, 40, 100])]
    out = smallest_stable(pd.DataFrame(rows, columns=["measure", "fraction", "tau", "reldocs"]), "fraction",
                          count="reldocs").set_index("measure")
    assert out.loc["m", "paper"] == ">20, <40 (~nan%)"


def test_statistics_as_scipy_gives_them_for_each_pair():
    """A pair's Wilcoxon p-value is scipy's for that pair alone (its exact distribution chosen
    or not pair by pair: a zero in another pair moved every pair to the normal approximation);
    a t-test over one topic is undefined (NaN, as ttest_rel), not p 0."""
    stats = pytest.importorskip("scipy.stats")
    from inexflow.analysis.significance import pvalues_for_pairs

    r1 = np.r_[np.arange(1, 11) / 100, -np.arange(11, 15) / 100]
    r2 = r1.copy()
    r2[0] = 0.0
    x = np.vstack([np.zeros(14), r1, r2])
    p = pvalues_for_pairs(x, np.array([[1, 0], [2, 0]]), "wilcoxon")
    assert p[0] == stats.wilcoxon(r1, alternative="greater").pvalue  # exact: 0.4516
    assert p[1] == stats.wilcoxon(r2, alternative="greater").pvalue  # a zero: the approximation
    assert np.isnan(pvalues_for_pairs(np.array([[0.5], [0.2]]), np.array([[0, 1]]), "t")).all()


def test_tau_ap_of_tied_rankings_and_the_standard_error_of_defined_taus():
    from inexflow.analysis.rankcorr import tau_ap, tau_b
    from inexflow.analysis.stability import _standard_error

    assert np.isnan(tau_ap([3, 2, 1], [1, 1, 1])) and np.isnan(tau_b([3, 2, 1], [1, 1, 1]))
    assert tau_ap([1, 1], [2, 2]) == tau_b([1, 1], [2, 2]) == 1.0
    assert tau_ap([1, 2, 2, 3], [5, 7, 7, 9]) == 1.0 and tau_ap([3, 1, 2], [3, 1, 2]) == 1.0
    stats = pytest.importorskip("scipy.stats")
    v = [0.2, float("nan"), 0.6, 0.8]
    assert _standard_error(v) == pytest.approx(stats.sem(v, nan_policy="omit"), abs=1e-15)
    assert np.isnan(_standard_error([0.5]))


def test_topic_sampling_takes_the_configs_decimal_fraction():
    """ceil(0.55 x 100) is 55 topics (56 in binary floating point), ceil(0.07 x 100) 7 (not 8)."""
    import pandas as pd

    from inexflow.analysis.stability import topic_sampling

    mat = pd.DataFrame(np.random.default_rng(0).random((4, 100)), index=list("abcd"))
    out = topic_sampling({"m": mat}, [0.07, 0.55], samples=1, seed=0)
    assert dict(zip(out["fraction"], out["topics"])) == {0.07: 7, 0.55: 55}


def test_pair_lookups_equal_their_definitions():
    """pairs_in and pair_positions (integer keys over one shared numbering) against the pairs
    compared as Python tuples, on columns with repeated pairs, names shared between topics and
    documents, Arrow-backed pandas columns and plain object arrays."""
    from inexflow.analysis.pairs import pair_positions, pairs_in

    rng = np.random.default_rng(11)
    names = ["1", "2", "10", "d1", "d2", "x"]
    topics = rng.choice(names[:3], 300)
    docs = rng.choice(names, 300)
    at_t, at_d = rng.choice(names, 120), rng.choice(names, 120)
    wanted = set(zip(rng.choice(names, 40), rng.choice(names, 40)))
    for t, d in ((pd.Series(topics), pd.Series(docs)), (topics.astype(object), docs.astype(object))):
        assert pairs_in(t, d, wanted).tolist() == [(a, b) in wanted for a, b in zip(topics, docs)]
        cols = (np.array([a for a, _ in wanted], object), np.array([b for _, b in wanted], object))
        assert pairs_in(t, d, cols).tolist() == [(a, b) in wanted for a, b in zip(topics, docs)]
        last = {p: i for i, p in enumerate(zip(topics, docs))}
        assert pair_positions(t, d, at_t, at_d).tolist() == [last.get(p, -1) for p in zip(at_t, at_d)]
    assert pairs_in(topics, docs, set()).tolist() == [False] * 300
    assert pair_positions([], [], at_t, at_d).tolist() == [-1] * 120
    # a missing name matches only a missing name, never the last name numbered
    t, d = ["a", "a", "b", None], ["x", "y", "x", "x"]
    assert pairs_in(t, d, {("b", "x")}).tolist() == [False, False, True, False]
    assert pairs_in(t, d, {(None, "x")}).tolist() == [False, False, False, True]
    assert pair_positions(t, d, ["b", None, None], ["x", "x", "y"]).tolist() == [2, 3, -1]
    assert pairs_in([None], [None], {("b", "x")}).tolist() == [False]
