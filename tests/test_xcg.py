"""Thorough XCG: the spec note's worked example by hand, and reductions checked against trec_eval."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexflow.measures.xcg import xcg_topic


def test_spec_worked_example():
    m = xcg_topic(np.array([0.5, 0, 1, 0]), np.array([1, 0.5, 0.5]), [1, 2, 3, 4])
    # xCG = .5 .5 1.5 1.5 ; xCI = 1 1.5 2 2
    assert [m[f"nxCG[{k}]"] for k in (1, 2, 3, 4)] == pytest.approx([0.5, 0.5 / 1.5, 0.75, 0.75])
    assert m["MAnxCG[2]"] == pytest.approx((0.5 + 1 / 3) / 2)
    # ep at rank 1: ideal reaches .5 at rank .5 -> .5/1; at rank 3: ideal reaches 1.5 at rank 2 -> 2/3
    assert m["MAep"] == pytest.approx((0.5 + 2 / 3 + 0) / 3)
    # iMAep: gr points .25 (ep .5) and .75 (ep 2/3); 25 levels at .5, 50 levels on the line, 25 at 0
    line = sum(0.5 + (k / 100 - 0.25) / 0.5 * (1 / 6) for k in range(26, 76))
    assert m["iMAep"] == pytest.approx((25 * 0.5 + line) / 100)
    # Q: cbg = 1.5 1.5 3.5 3.5 (bonused), cig = xCI = 1 1.5 2 2 -> (1.5/(1+1) + 3.5/(2+3)) / 3
    assert m["Q"] == pytest.approx((1.5 / 2 + 3.5 / 5) / 3)
    # R-measure: cbg(3) / (cig(3) + 3)
    assert m["R"] == pytest.approx(3.5 / 5)


def test_q_and_r_as_printed_by_hand(tmp_path):
    """The 2005 paper's Eq. 13-14 as printed (docs/measures.md's worked example): gen's gains
    on the printed scale e*s (twice the registry's), cig with the bonus, R-measure over
    cbg(R) + R; Q and R stay Sakai's."""
    m = xcg_topic(np.array([0.5, 0, 1, 0]), np.array([1, 0.5, 0.5]), [], (), printed_scale=2.0)
    # printed: xG = 1 0 2 0, xI = 2 1 1; cbg = 2 2 5 5, cig = 3 5 7 7
    assert m["Q[printed]"] == pytest.approx((2 / (3 + 1) + 5 / (7 + 3)) / 3)
    assert m["R[printed]"] == pytest.approx(5 / (5 + 3))
    assert (m["Q"], m["R"]) == (pytest.approx((1.5 / 2 + 3.5 / 5) / 3), pytest.approx(3.5 / 5))
    ideal = xcg_topic(np.ones(2), np.ones(2), [], (), printed_scale=1.0)
    # the ideal run under the printed forms: cbg = cig = 2 4 -> Q = (2/3 + 4/6) / 2, R = 4/6
    assert (ideal["Q[printed]"], ideal["R[printed]"]) == (pytest.approx(2 / 3), pytest.approx(4 / 6))
    assert "Q[printed]" not in xcg_topic(np.ones(2), np.ones(2), [])


def test_q_and_r_printed_see_the_printed_quantisations(tmp_path):
    """End to end: gen's gains on e*s (factor 2), strict's as they are (1); --qr-printed adds
    the two measures and changes nothing else."""
    from conftest import parse_out, run_cli, write
    from inexflow.model.quantisation import printed_factor

    assert (printed_factor("inex2005", "gen"), printed_factor("inex2005", "genLifted")) == (2.0, 3.0)
    assert (printed_factor("inex2005", "strict"), printed_factor("inex2002", "gen")) == (1.0, 1.0)
    a = write(tmp_path / "a.xml", """<assessments topic="1">
  <file name="d1">
    <element path="/article[1]" exhaustivity="1" size="100" rsize="50"/>
    <element path="/article[1]/sec[1]" exhaustivity="2" size="50" rsize="50"/>
  </file>
</assessments>""")
    r = write(tmp_path / "r.xml", """<inex-submission participant-id="1" run-id="r" task="CO.Thorough">
  <topic topic-id="1">
    <result><file>d1</file><path>/article[1]</path><rank>1</rank></result>
    <result><file>d1</file><path>/article[1]/p[9]</path><rank>2</rank></result>
  </topic>
</inex-submission>""")
    args = ["score", "--task", "thorough", "--assessments", a, "--quant", "gen,strict", "-q", r]
    plain = parse_out(run_cli(*args, check=0).stdout)
    both = parse_out(run_cli(*args, "--qr-printed", check=0).stdout)
    assert {k: v for k, v in both.items() if "[printed]" not in k[0]} == plain
    # gen printed: xI = 2*1 (sec), 1*.5 (article) = 2, .5; run 0.5, 0 -> cbg 1.5 1.5, cig 3 4.5
    assert both[("Q[printed].gen", "1")] == pytest.approx((1.5 / (3 + 1)) / 2)
    assert both[("R[printed].gen", "1")] == pytest.approx(1.5 / (1.5 + 2))
    # strict: xI = 1 (sec); the run's article scores 0: cbg 0 -> both 0
    assert (both[("Q[printed].strict", "1")], both[("R[printed].strict", "1")]) == (0.0, 0.0)


def test_ideal_run_scores_one():
    xi = np.array([1.0, 0.7, 0.7, 0.2])
    m = xcg_topic(xi.copy(), xi, [1, 2, 4, 10])
    for k in ("nxCG[1]", "nxCG[2]", "nxCG[4]", "nxCG[10]", "MAnxCG[10]", "MAep", "iMAep", "Q", "R"):
        assert m[k] == pytest.approx(1.0), k


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(1, 12), st.integers(0, 10**6))
def test_binary_reduces_to_trec_eval(rels, n_rel, seed):
    """Each document a single element, binary gains, no overlap: MAep = AP, nxCG[k] = rel@k / min(k, R)."""
    import pytrec_eval

    n_rel = max(n_rel, sum(rels))
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(len(rels))]
    relevant = [d for d, r in zip(docs, rels) if r] + [f"u{i}" for i in range(n_rel - sum(rels))]
    qrel = {"q": {d: 1 for d in relevant}}
    scores = np.sort(rng.random(len(docs)))[::-1] + np.arange(len(docs))[::-1]  # strictly decreasing
    run = {"q": {d: float(s) for d, s in zip(docs, scores)}}
    ev = pytrec_eval.RelevanceEvaluator(qrel, {"map", "P_5", "P_10"}).evaluate(run)["q"]
    m = xcg_topic(np.array(rels, dtype=float), np.ones(n_rel), [5, 10])
    assert m["MAep"] == pytest.approx(ev["map"], abs=1e-12)
    for k in (5, 10):
        rel_at_k = ev[f"P_{k}"] * k  # trec_eval's P@k divides by k
        assert m[f"nxCG[{k}]"] == pytest.approx(rel_at_k / min(k, n_rel), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.01, 1), min_size=1, max_size=10), st.lists(st.booleans(), min_size=10, max_size=10),
       st.integers(0, 8), st.integers(0, 10**6), st.integers(0, 5))
def test_bounds_and_appending_non_relevant(ideal, returned, zeros, seed, extra):
    """A thorough run returns each assessed element at most once: its gains are a sub-multiset of xI."""
    xi = np.sort(np.array(ideal))[::-1]
    xg = np.concatenate([xi[np.array(returned[:len(xi)])], np.zeros(zeros)])
    xg = np.random.default_rng(seed).permutation(xg)
    cut = [1, 2, 5, 10]
    a = xcg_topic(xg, xi, cut)
    b = xcg_topic(np.concatenate([xg, np.zeros(extra)]), xi, cut)
    for k in ["MAep", "iMAep", "Q", "R"] + [f"nxCG[{c}]" for c in cut]:
        assert 0 <= a[k] <= 1 + 1e-12, k
    for k in cut:
        if k <= len(xg):
            assert a[f"nxCG[{k}]"] == b[f"nxCG[{k}]"]


def test_full_gain_recall_is_reached_whatever_the_summation_order():
    # the run retrieves every element of the recall-base, but its gains summed in run order
    # (2.8) fall one ulp short of the ideal gains summed in ideal order (2.8000000000000003)
    xi = np.array([0.9, 0.7, 0.6, 0.3, 0.2, 0.1])
    xg = np.array([0.1, 0.2, 0.3, 0.6, 0.9, 0.7])
    assert np.cumsum(xg)[-1] < np.cumsum(xi)[-1]
    m = xcg_topic(xg, xi, [5])
    # at rank 6 the run has all the gain, which the ideal run also needs 6 ranks for: ep = 6/6
    assert m["ep[1.00]"] == pytest.approx(1.0)
    # ep at the natural points: ranks 1..6 with cumulated gains .1, .3, .6, 1.2, 2.1, 2.8; the
    # ideal run reaches g at rank interp(g) on 0, .9, 1.6, 2.2, 2.5, 2.7, 2.8
    ideal = np.interp([.1, .3, .6, 1.2, 2.1, 2.8], [0, .9, 1.6, 2.2, 2.5, 2.7, 2.8], np.arange(7))
    ep = ideal / np.arange(1, 7)
    gr = np.array([.1, .3, .6, 1.2, 2.1, 2.8]) / 2.8
    levels = np.arange(1, 101) / 100
    want = np.interp(levels, gr, ep, left=ep[0])
    assert m["iMAep"] == pytest.approx(want.mean(), abs=1e-12)
    assert m["MAep"] == pytest.approx(ep.sum() / 6, abs=1e-12)


def test_a_task_keeps_the_recall_bases_of_its_own_quantisations(tmp_path):
    """The workflow hands a task the recall-bases of every quantisation on its assessments
    (those of the other tasks too); the task is scored under its own, in its order."""
    from conftest import write
    from inexflow.measures.session import scoring_context
    from inexflow.model.assessments import read_assessments
    from inexflow.model.options import Options

    a = read_assessments(write(tmp_path / "a.xml", """<assessments topic="1">
  <file name="d1"><element path="/article[1]" exhaustivity="2" size="10" rsize="10"/></file>
</assessments>"""))
    rbs = {q: object() for q in ("strict", "gen", "genLifted")}
    ctx = scoring_context(a, "thorough", ["xcg"], Options(quantisations=("genLifted", "strict")), rbs)
    assert list(ctx.recallbases) == ["genLifted", "strict"]
    assert ctx.recallbases["strict"] is rbs["strict"]


@pytest.mark.parametrize("seed", range(6))
def test_many_topics_at_once_equal_each_topic_alone(seed):
    # xcg_topics (the batched computation score_xcg uses) gives xcg_topic's values bit for bit, for
    # topics shorter than, as long as and longer than the largest cut-off, empty ones included
    from inexflow.measures.registry import curve_ranks
    from inexflow.measures.xcg import IdealCurve, xcg_topics

    rng = np.random.default_rng(seed)
    cutoffs, ranks = [1, 5, 10, 25], curve_ranks(40)
    lengths = [40, 40, 0, 1, 7, 39, 40, 55, 40, 3]
    xgs = [np.where(rng.random(n) < 0.4, rng.choice([0.25, 0.5, 1.0, 1 / 3], n), 0.0) for n in lengths]
    xis = [np.sort(rng.choice([0.25, 0.5, 1.0, 1 / 3], rng.integers(1, 30)))[::-1] for _ in lengths]
    for scale in (None, 3.0):
        names, values = xcg_topics(xgs, [IdealCurve(xi, 40) for xi in xis], cutoffs, ranks, scale)
        for t, (xg, xi) in enumerate(zip(xgs, xis)):
            alone = xcg_topic(xg, xi, cutoffs, ranks, scale)
            assert names == list(alone)
            assert values[t].tolist() == list(alone.values())
