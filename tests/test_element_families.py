"""BEPD/EPRUM (2006), precision and overlap at cut-offs (Hiemstra & Mihajlovic) and
inex_eval 2002 precall: values worked by hand."""
import numpy as np
import pandas as pd
import pytest

from conftest import parse_out, run_cli, write
from inexflow.measures.bepd import eprum_precision
from inexflow.measures.cutoff import overlapping_flags
from inexflow.measures.precall import precall


def test_bepd_by_hand(tmp_path):
    # two relevant documents with BEPs 100 and 0; doc lengths 1000 and 3000 -> L = 2000
    q = write(tmp_path / "q.fol", "1 Q0 A 50 1000 100 100:50\n1 Q0 B 50 3000 0 0:50\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 2 x 300 10\n1 Q0 C 2 1 x 0 10\n")
    p = run_cli("score", "--task", "best-in-context", "--family", "bepd", "--bepd-a", "1,0.1",
                "--assessments", q, "-q", r, check=0)
    v = parse_out(p.stdout)
    s1 = 1 * 2000 / (1 * 2000 + 200)   # A: d = |300 - 100|
    assert v[("BEPD[1]", "1")] == pytest.approx(s1 / 2)       # C has no BEP: 0 ; 2 BEPs
    s01 = 0.1 * 2000 / (0.1 * 2000 + 200)
    assert v[("BEPD[0.1]", "1")] == pytest.approx(s01 / 2)
    # EPRUM: found after rank 1 = s1 (< 1 = recall .5 of 2 targets); levels r with 2r <= s1 are
    # reached at rank 1, where the ideal run needs ceil(2r) = 1 rank too: precision 1; the rest 0
    levels = np.arange(1, 101) / 100
    want = np.where(levels * 2 <= s1, 1.0, 0.0).mean()
    assert v[("EPRUM[1]", "1")] == pytest.approx(want)


def test_eprum_reduces_to_precision_with_certain_users():
    # probabilities 1, 0, 1 for N = 2 targets: recall .5 at rank 1 (precision 1/1), 1 at rank 3 (2/3)
    p = eprum_precision(np.array([1.0, 0.0, 1.0]), 2)
    assert p == pytest.approx((50 * 1.0 + 50 * 2 / 3) / 100)


@pytest.mark.parametrize("n_targets", [1, 2, 10])
def test_eprum_of_the_ideal_run_is_one(n_targets):
    # the run returns exactly the BEPs: s = 1 at every rank, F_k = k; recall r is reached at
    # rank ceil(r N), the ideal run's own search length (before: r N / ceil(r N), 0.505 for N = 1)
    assert eprum_precision(np.ones(n_targets), n_targets) == 1.0


def test_eprum_with_a_partial_user_by_hand():
    # N = 2; the run finds BEP 1 for certain, then a non-relevant result, then a result whose
    # BEP the user reaches with probability .5: F = 1, 1, 1.5
    p = eprum_precision(np.array([1.0, 0.0, 0.5]), 2)
    # r <= .5: 2r <= 1 reached at rank 1, ideal 1 rank -> 1 (50 levels); .5 < r <= .75: reached
    # at rank 3, ideal ceil(2r) = 2 ranks -> 2/3 (25 levels); r > .75 never reached -> 0
    assert p == pytest.approx((50 * 1.0 + 25 * 2 / 3) / 100)


def test_eprum_perfect_run_end_to_end(tmp_path):
    q = write(tmp_path / "q.fol", "1 Q0 A 50 1000 100 100:50\n1 Q0 B 50 3000 0 0:50\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 2 x 100 10\n1 Q0 B 2 1 x 0 10\n")
    v = parse_out(run_cli("score", "--task", "best-in-context", "--family", "bepd", "--bepd-a", "0.01,1",
                          "--assessments", q, "-q", r, check=0).stdout)
    assert v[("EPRUM[0.01]", "all")] == 1.0 and v[("EPRUM[1]", "all")] == 1.0 and v[("BEPD[1]", "1")] == 1.0


def test_overlap_flags_by_hand():
    docs = np.array(["a", "a", "b", "a", "b"])
    xps = np.array(["/x[1]/y[1]", "/x[1]", "/x[1]", "/x[1]/z[1]", "/x[1]/y[1]"])
    # a: /x[1] contains /x[1]/y[1] and /x[1]/z[1] -> all three overlap; b: nested pair -> both
    assert list(overlapping_flags(docs, xps)) == [True, True, True, True, True]
    assert list(overlapping_flags(np.array(["a", "a"]), np.array(["/x[1]/y[1]", "/x[1]/y[2]"]))) == [False, False]
    # a sibling whose name extends another's with a character that sorts before "/" ("-", ".")
    # does not hide that other's descendants from it
    xps = np.array(["/a/b", "/a/b-c", "/a/b/d", "/a/b.e"])
    assert list(overlapping_flags(np.array(["a"] * 4), xps)) == [True, False, True, False]


ASSESS2002 = """<assessments topic='1'><file file='A'>
<path path='/article[1]' exhaustiveness='2' specificity='1'/>
<path path='/article[1]/sec[1]' exhaustiveness='3' specificity='3'/>
<path path='/article[1]/sec[2]' exhaustiveness='1' specificity='3'/>
</file></assessments>"""


def test_precision_and_overlap_at_cutoffs(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS2002)
    r = write(tmp_path / "r.txt", "1 Q0 A 1 5 x /article[1]/sec[1]\n1 Q0 A 2 4 x /article[1]\n"
                                  "1 Q0 B 3 3 x /article[1]\n1 Q0 A 4 2 x /article[1]/sec[2]\n")
    p = run_cli("score", "--task", "thorough", "--family", "cutoff", "--quant", "strict,liberal,e3s321,s3e321",
                "--assessments", a, "-q", r, check=0)
    v = parse_out(p.stdout)
    # strict: only sec[1] (3,3); liberal: e>=2 or s>=2 -> sec[1], article (e2), sec[2] (s3)
    assert v[("P[5].strict", "1")] == pytest.approx(1 / 5)
    assert v[("P[5].liberal", "1")] == pytest.approx(3 / 5)
    assert v[("P[5].e3s321", "1")] == pytest.approx(1 / 5)    # e = 3: sec[1]
    assert v[("P[5].s3e321", "1")] == pytest.approx(2 / 5)    # s = 3: sec[1], sec[2]
    # overlap: first 5 (4 results, padded): sec[1], article, sec[2] of A nest; B alone -> 3/5
    assert v[("overlap[5]", "1")] == pytest.approx(3 / 5)
    assert v[("overlap[1500]", "1")] == pytest.approx(3 / 1500)
    t = run_cli("score", "--task", "thorough", "--family", "cutoff", "--quant", "strict,liberal", "--cutoff-table",
                "--assessments", a, r, check=0).stdout.splitlines()
    assert t[1].split("\t")[0] == "cutoff" and t[2].split("\t") == ["5", "0.6000", "0.2000", "0.6000"]


def test_precall_with_a_tie_block():
    # strict, n = 2: level 1 = {A rel, B non-rel} (equal rsv), level 2 = {C non-rel, D rel}
    got = precall(np.array([1.0, 0, 0, 1.0]), np.array([0.9, 0.9, 0.5, 0.5]), 2.0)
    want = []
    for k in range(1, 101):
        need = k / 100 * 2
        if need <= 1:   # final level 1: j = 0, s = need, i = 1, r = 1
            esl = need * 1 / 2
        else:           # final level 2: j = 1, s = need - 1, i = 1, r = 1
            esl = 1 + (need - 1) * 1 / 2
        want.append(need / (need + esl))
    assert got == pytest.approx(want)
    # without the tie (every result its own level) recall .5 costs nothing and 1.0 costs 2 non-relevant
    untied = precall(np.array([1.0, 0, 0, 1.0]), np.arange(4.0), 2.0)
    assert untied[49] == 1.0 and untied[99] == pytest.approx(2 / (2 + 2))


def test_precall_cli_generalised(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS2002)
    r = write(tmp_path / "r.txt", "1 Q0 A 1 5 x /article[1]/sec[2]\n1 Q0 A 2 4 x /article[1]/sec[1]\n")
    v = parse_out(run_cli("score", "--task", "thorough", "--family", "precall", "--quant", "gen", "--assessments", a,
                          "-q", r, check=0).stdout)
    # gen: article (2,1) .5, sec[1] (3,3) 1, sec[2] (1,3) .5 -> n = 2; gains in order .5, 1; no ties
    want = []
    for k in range(1, 101):
        need = k / 100 * 2
        if need <= 0.5:
            want.append(1.0)                 # first level, nothing non-relevant before
        elif need <= 1.5:
            want.append(1.0)                 # second level, still no non-relevant element
        else:
            want.append(0.0)                 # the article is never retrieved: 2 is not reached
    assert v[("precall_AP", "1")] == pytest.approx(np.mean(want))


def _means(rows):
    """A tidy score table of topic 'all' means: rows (run, quant, measure, value)."""
    return pd.DataFrame([(r, "all", "CO", q, m, v) for r, q, m, v in rows],
                        columns=["run", "topic", "task", "quant", "measure", "value"])


def test_hiemstra_tables_per_run_and_ranked_by_precision_averaged_over_quantisations():
    """Tables 1-4/6-8 (one run: P[k] per quantisation and overlap per cut-off) and Tables 5/9
    (runs ranked by P[10], P[100] averaged over the quantisations), by hand."""
    from inexflow.measures.cutoff import cutoff_table, ranked_runs, runs_cutoff_tables
    from inexflow.measures.registry import table_cutoffs

    rows = []
    for run, p10, p100, o10, o100 in (("a", (0.4, 0.2), (0.10, 0.06), 0.5, 0.9),
                                      ("b", (0.5, 0.3), (0.05, 0.03), 0.1, 0.2),
                                      ("c", (0.3, 0.1), (0.04, 0.04), 0.0, 0.0)):
        for q, v10, v100 in zip(("strict", "liberal"), p10, p100):
            rows += [(run, q, "P[10]", v10), (run, q, "P[100]", v100)]
        rows += [(run, "-", "overlap[10]", o10), (run, "-", "overlap[100]", o100)]
    scores = _means(rows)
    one = cutoff_table(scores[scores["run"] == "a"], ["strict", "liberal"])
    assert list(one.columns) == ["cutoff", "strict", "liberal", "overlap"]
    assert one.values.tolist() == [[10, 0.4, 0.2, 0.5], [100, 0.10, 0.06, 0.9]]
    stacked = runs_cutoff_tables(scores, ["strict", "liberal"])
    assert list(stacked["run"]) == ["a", "a", "b", "b", "c", "c"] and stacked.columns[0] == "run"
    ranked = ranked_runs(scores, table_cutoffs([5, 10, 100, 1500]))
    # P[10] means: a (0.4+0.2)/2 = 0.3, b 0.4, c 0.2; P[100]: a 0.08, b 0.04, c 0.04 (tied, rank 2 both)
    assert list(ranked["run"]) == ["b", "a", "c"]
    assert ranked["P[10]"].round(12).tolist() == [0.4, 0.3, 0.2]
    assert ranked["rank[10]"].tolist() == [1, 2, 3] and ranked["rank[100]"].tolist() == [2, 1, 2]
    assert ranked["overlap[100]"].tolist() == [0.2, 0.9, 0.0]
    assert table_cutoffs([5, 20, 30]) == [5, 20]  # neither 10 nor 100: the two smallest


def test_inex_eval_ng_recall_and_precision_by_hand(tmp_path):
    """Hiemstra & Mihajlovic Eq. 5-7 on one document: article [0,100) holds sec [0,50), which
    holds p [10,20). Ranked sec, p, article: p adds nothing unseen (|c'| = 0), the article only
    its last 50 characters."""
    coll = write(tmp_path / "coll" / "A.xml", "<article><sec>" + "a" * 10 + "<p>" + "b" * 10 + "</p>" + "c" * 30
                 + "</sec>" + "d" * 50 + "</article>")
    a = write(tmp_path / "a.xml", "<assessments topic='1'><file file='A'>"
              "<path path='/article[1]' exhaustiveness='3' specificity='3'/>"
              "<path path='/article[1]/sec[1]' exhaustiveness='3' specificity='2'/>"
              "<path path='/article[1]/sec[1]/p[1]' exhaustiveness='2' specificity='3'/></file></assessments>")
    r = write(tmp_path / "r.txt", "1 Q0 A 1 3 x /article[1]/sec[1]\n1 Q0 A 2 2 x /article[1]/sec[1]/p[1]\n"
                                  "1 Q0 A 3 1 x /article[1]\n")
    p = run_cli("score", "--task", "thorough", "--family", "inex_eval_ng", "--quant", "gen,strict", "--cutoff-ks",
                "1,3", "--collection", coll.parent, "--assessments", a, "-q", r, check=0)
    v = parse_out(p.stdout)
    # gen: e/3 and s/3. Recall denominator: e of every assessed element = 1 + 1 + 2/3 = 8/3
    assert v[("recall_o[1].gen", "1")] == pytest.approx(1 / (8 / 3))               # sec: e 1, all 50 unseen
    assert v[("recall_o[3].gen", "1")] == pytest.approx((1 + 0 + 1 * 50 / 100) / (8 / 3))
    assert v[("precision_o[1].gen", "1")] == pytest.approx((2 / 3 * 50) / 50)
    assert v[("precision_o[3].gen", "1")] == pytest.approx((2 / 3 * 50 + 1 * 0 + 1 * 50) / (50 + 0 + 50))
    # strict: 1 for 3, else 0. Recall denominator: article and sec have e = 3 -> 2
    assert v[("recall_o[1].strict", "1")] == pytest.approx(1 / 2)
    assert v[("recall_o[3].strict", "1")] == pytest.approx((1 + 0 + 0.5) / 2)
    assert v[("precision_o[1].strict", "1")] == 0                                # sec has s = 2
    assert v[("precision_o[3].strict", "1")] == pytest.approx((0 + 0 + 1 * 50) / 100)
    # without the collection the element sizes are unknown: one clear error
    p = run_cli("score", "--task", "thorough", "--family", "inex_eval_ng", "--assessments", a, "-q", r)
    assert p.returncode == 2 and "inex_eval_ng needs element sizes" in p.stderr


def test_unseen_sizes_merge_what_was_seen():
    from inexflow.measures.inexevalng import unseen_sizes

    docs = np.array(["A", "A", "B", "A", "A"])
    # [0,10), [20,30), B's [0,50), [5,25) overlaps both A spans (15 seen of 20), then [0,30) is all seen
    got = unseen_sizes(docs, np.array([0, 20, 0, 5, 0]), np.array([10, 30, 50, 25, 30]))
    assert got.tolist() == [10, 10, 50, 20 - 5 - 5, 0]


def test_eprum_precision_at_rank_and_graph_by_hand():
    from inexflow.measures.bepd import eprum_at_ranks, eprum_curve

    # 0/1 probabilities: classical precision at k (targets at ranks 1 and 3 of N = 2)
    assert eprum_at_ranks(np.array([1.0, 0.0, 1.0]), 2, [1, 2, 3]) == [1.0, 1 / 2, 2 / 3]
    # half-way results: F_1 = 0.5 needs the ideal run's first rank, F_2 = 1 too
    assert eprum_at_ranks(np.array([0.5, 0.5]), 1, [1, 2]) == [1.0, 1 / 2]
    # more expected targets than there are (two results in one article): at most N
    assert eprum_at_ranks(np.array([1.0, 1.0, 1.0]), 2, [3]) == [2 / 3]
    # a run shorter than k keeps what it found; a run that finds nothing scores 0
    assert eprum_at_ranks(np.array([1.0]), 1, [5]) == [1 / 5] and eprum_at_ranks(np.zeros(3), 2, [2]) == [0.0]
    # the graph: the only target reached at rank 2 -> precision 1/2 at every recall level
    c = eprum_curve(np.array([0.0, 1.0]), 1)
    assert len(c) == 100 and (c == 0.5).all()
    # two targets, reached at ranks 1 and 4: levels up to 0.5 need 1 rank (1/1), above 2 ranks in 4 (2/4)
    c = eprum_curve(np.array([1.0, 0.0, 0.0, 1.0]), 2)
    assert (c[:50] == 1.0).all() and (c[50:] == 0.5).all()
