"""Focused XCG (overlap on): rv, rv_norm and the ideal recall-base, worked by hand; the
nxCG curve; FetchBrowse; and topic-order invariance of the means."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import parse_out, run_cli, write
from inexflow.measures.overlap import DocumentState
from inexflow.measures.registry import curve_ranks
from inexflow.measures.xcg import xcg_topic


def state(elements):
    """elements: (xpath, gain, size, ideal)"""
    return DocumentState([e[0] for e in elements], [e[1] for e in elements], [e[2] for e in elements],
                         [e[3] for e in elements])


A, S1, S2 = "/article[1]", "/article[1]/sec[1]", "/article[1]/sec[2]"


def test_rv_norm_caps_a_cluster():
    # ideal = sec[1] (gain 1); its paragraphs are near-misses of gain 1 each
    st_ = state([(A, 0.25, 100, False), (S1, 1.0, 50, True), (S1 + "/p[1]", 1.0, 25, False),
                 (S1 + "/p[2]", 1.0, 25, False)])
    # p[1] takes the cluster's whole credit (min(1, 1)); p[2] would add 1 but nothing is left;
    # sec[1] is then partly seen with both children fully seen: alpha=1 leaves 0
    assert [st_.take(x, 1.0) for x in (S1 + "/p[1]", S1 + "/p[2]", S1)] == [1.0, 0.0, 0.0]


def test_alpha_half_gives_partial_credit():
    els = [(A, 0.6, 100, True), (S1, 0.5, 50, False), (S2, 0.1, 50, False)]
    st_ = state(els)
    assert st_.take(S2, 0.5) == pytest.approx(0.1)          # unseen: its quant; cluster left .5
    # article partly seen: alpha * (rv(sec1) 50 + rv(sec2) 50) / 100 + (1 - alpha) quant
    #   rv(sec1) unseen = .5 ; rv(sec2) returned = (1 - .5) * .1
    want = 0.5 * (0.5 * 50 + 0.5 * 0.1 * 50) / 100 + 0.5 * 0.6
    assert st_.take(A, 0.5) == pytest.approx(want)          # .4375 < .5 left: not capped
    st2 = state(els)
    assert st2.take(S1, 0.5) == pytest.approx(0.5)          # charged to the article: .1 left
    assert st2.rv(A, 0.5) == pytest.approx(0.5 * (0.5 * 0.5 * 50 + 0.1 * 50) / 100 + 0.5 * 0.6)
    assert st2.take(A, 0.5) == pytest.approx(0.1)           # rv .3875 capped at the .1 left


def test_result_above_two_ideal_elements_is_charged_in_document_order():
    els = [(A, 0.3, 100, False), (S1, 1.0, 50, True), (S2, 1.0, 50, True)]
    st_ = state(els)
    assert st_.take(A, 0.5) == pytest.approx(0.3)           # min(.3, 1 + 1), charged to sec[1]
    assert st_.remaining[S1] == pytest.approx(0.7) and st_.remaining[S2] == 1.0
    assert st_.take(S1, 0.5) == pytest.approx(0.5)          # fully seen: (1 - .5) * 1, .7 left
    assert st_.take(S2, 0.5) == pytest.approx(0.5)


ASSESS = """<assessments topic="1"><file name="A">
<element path="/article[1]" exhaustivity="1" size="100" rsize="50"/>
<element path="/article[1]/sec[1]" exhaustivity="2" size="50" rsize="50"/>
<element path="/article[1]/sec[1]/p[1]" exhaustivity="2" size="25" rsize="25"/>
<element path="/article[1]/sec[1]/p[2]" exhaustivity="2" size="25" rsize="25"/>
</file><file name="B">
<element path="/article[1]" exhaustivity="2" size="40" rsize="40"/>
</file></assessments>"""


def test_focused_cli_by_hand(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS)
    r = write(tmp_path / "r.txt", "1 Q0 A 1 3 x /article[1]/sec[1]/p[1]\n1 Q0 A 2 2 x /article[1]/sec[1]/p[2]\n"
                                  "1 Q0 B 3 1 x /article[1]\n")
    v = parse_out(run_cli("score", "--task", "focused", "--assessments", a, "--cutoffs", "1,2,3", "-q", r,
                          check=0).stdout)
    # gen: A/article .25, A/sec 1, A/p 1, 1, B/article 1; ideal = A/sec[1] (1) and B/article (1)
    # xG = p[1] 1 (cluster sec[1] full), p[2] 0 (capped), B 1 ; xI = 1, 1
    assert [v[(f"nxCG[{k}]", "1")] for k in (1, 2, 3)] == pytest.approx([1.0, 0.5, 1.0])
    # ep at rank 1 = 1/1, at rank 3 (gain 2 reached by the ideal at rank 2) = 2/3
    assert v[("MAep", "1")] == pytest.approx((1 + 2 / 3) / 2)
    t = parse_out(run_cli("score", "--task", "thorough", "--assessments", a, "--cutoffs", "1,2,3", "-q", r,
                          check=0).stdout)
    # thorough: xG = 1, 1, 1 ; xI = 1, 1, 1, 1, .25
    assert [t[(f"nxCG[{k}]", "1")] for k in (1, 2, 3)] == pytest.approx([1.0, 1.0, 1.0])


def test_nxcg_curve_and_ep_curve():
    assert curve_ranks(1500)[:3] == [15, 30, 45] and curve_ranks(1500)[-1] == 1500 and len(curve_ranks(1500)) == 100
    m = xcg_topic(np.array([0.5, 0, 1, 0]), np.array([1, 0.5, 0.5]), [], curve_ranks(4))
    # ranks 1..4 of a 4-long list: nxCG = .5, 1/3, .75, .75 (the spec note's example)
    assert [m[f"nxCG@[{k}]"] for k in (1, 2, 3, 4)] == pytest.approx([0.5, 0.5 / 1.5, 0.75, 0.75])
    assert m["ep[0.25]"] == pytest.approx(0.5) and m["ep[0.76]"] == 0.0
    assert np.mean([m[f"ep[{k / 100:.2f}]"] for k in range(1, 101)]) == pytest.approx(m["iMAep"])


def test_fetchbrowse_by_hand(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS)
    r = write(tmp_path / "r.txt", "1 Q0 C 1 4 x /article[1]\n1 Q0 A 2 3 x /article[1]/sec[1]/p[1]\n"
                                  "1 Q0 A 3 2 x /article[1]\n1 Q0 B 4 1 x /article[1]\n")
    v = parse_out(run_cli("score", "--task", "fetch-browse", "--assessments", a, "--quant", "gen,strict", "-q", r,
                          check=0).stdout)
    # article scores = the quantised score of the article node itself (2005 paper, 6.3), or where
    # that is 0, the best element inside (docs/measures.md):
    # gen: A (e 1, s .5) .25, B (e 2, s 1) 1 -> xI = 1, .25; the run's articles C 0, A .25, B 1
    # natural points: rank 2 (xCG .25: the ideal curve 0, 1, 1.25 reaches it at rank .25) ep .25/2;
    # rank 3 (xCG 1.25: ideal rank 2) ep 2/3
    assert v[("art_MAep.gen", "1")] == pytest.approx((0.25 / 2 + 2 / 3) / 2)
    # strict: both articles hold a strictly relevant element (A's sections), so both are kept
    # ("only those articles are kept that contain at least one highly exhaustive and fully
    # specific element"); B's node is (2, 1) itself, A's node is not: A scores its best element, 1.
    # xI = 1, 1; the run's articles C 0, A 1, B 1 -> natural points rank 2 (ep 1/2), rank 3 (ep 2/3)
    assert v[("art_MAep.strict", "1")] == pytest.approx((1 / 2 + 2 / 3) / 2)
    v = {(m.split(".")[0], t): x for (m, t), x in v.items() if m.endswith(".gen")}
    # element level, off: cluster A = [p1 (1), article (.25)] vs xI = 1, 1, 1, .25 -> MAep (1 + 2/... )
    xi = np.array([1, 1, 1, 0.25])
    ma_a = xcg_topic(np.array([1.0, 0.25]), xi, [])["MAep"]
    ma_b = xcg_topic(np.array([1.0]), np.array([1.0]), [])["MAep"]
    assert v[("el_MAep[off]", "1")] == pytest.approx((ma_a + ma_b) / 2)
    # on: cluster A against its ideal sec[1]: p1 takes 1, the article is capped at 0 -> MAep 1
    assert v[("el_MAep[on]", "1")] == pytest.approx((1.0 + 1.0) / 2)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.permutations(["1", "2", "3"]), st.integers(0, 1000), st.sampled_from(["off", "on"]))
def test_permuting_topics_changes_no_mean(tmp_path_factory, order, seed, overlap):
    from inexflow.measures.context import ScoringContext
    from inexflow.measures.session import score_run
    from inexflow.model.assessments import read_assessments
    from inexflow.model.recallbase import build_recallbases
    from inexflow.model.runs import read_run

    d = tmp_path_factory.mktemp("perm")
    rng = np.random.default_rng(seed)
    files = [write(d / f"a{i}.xml", f'<assessments topic="{t}"><file name="A">'
                   f'<element path="/article[1]" exhaustivity="2" size="100" rsize="{50 + 10 * i}"/>'
                   f'<element path="/article[1]/sec[1]" exhaustivity="1" size="50" rsize="{20 + 5 * i}"/></file></assessments>')
             for i, t in enumerate("123")]
    a = read_assessments(files)
    ctx = ScoringContext(a, build_recallbases(a, None, ["gen"]), {"overlap": overlap})
    lines = {t: [f"{t} Q0 A {k + 1} {1 - k / 10} x {p}\n" for k, p in
                 enumerate(rng.permutation(["/article[1]", "/article[1]/sec[1]"]))] for t in "123"}
    means = []
    for name, topics in (("r1", "123"), ("r2", order)):
        run = read_run(write(d / f"{name}.txt", "".join(l for t in topics for l in lines[t])), task="thorough")
        s = score_run(run, "xcg", ctx)
        means.append(s[s.topic == "all"].set_index("measure")["value"])
    pd.testing.assert_series_equal(means[0], means[1])


def test_unassessed_partly_seen_element_scores_zero():
    st_ = state([(A, 0.5, 100, True), (S1, 0.5, 50, False)])
    assert st_.take("/article[1]/sec[2]/p[1]", 1.0) == 0.0   # unassessed
    assert st_.take("/article[1]/sec[2]", 1.0) == 0.0        # unassessed, partly seen


@pytest.mark.parametrize("overlap", ["on", "off"])
def test_ideal_run_scores_one(tmp_path, overlap):
    from inexflow.measures.context import ScoringContext
    from inexflow.measures.session import score_run
    from inexflow.model.assessments import read_assessments
    from inexflow.model.recallbase import build_recallbases
    from inexflow.model.runs import Run

    a = read_assessments(write(tmp_path / "a.xml", ASSESS))
    rb = build_recallbases(a, None, ["gen"])["gen"]
    base = rb[rb["gain"] > 0]
    if overlap == "on":
        base = base[base["ideal"]]
    base = base.sort_values("gain", ascending=False, kind="stable")
    res = pd.DataFrame({"topic": base["topic"], "doc": base["doc"], "xpath": base["xpath"], "offset": -1,
                        "length": -1, "rank": range(1, len(base) + 1), "rsv": 0.0, "line": 0})
    s = score_run(Run("ideal", "p", "focused", "x", "x", res.reset_index(drop=True)), "xcg",
                  ScoringContext(a, {"gen": rb}, {"overlap": overlap, "cutoffs": [1, 2, 5]}))
    means = s[(s.topic == "all") & ~s.measure.str.startswith(("ep[", "nxCG@[", "num_q"))].set_index("measure")
    assert (means["value"] > 1 - 1e-12).all(), means[means["value"] < 1]
