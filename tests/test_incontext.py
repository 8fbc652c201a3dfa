"""Relevant in Context and Best in Context: by hand, validation, and against the official tool."""
import pytest

from conftest import run_cli, write
from test_passage import parse_out

QRELS = "1 Q0 A 100 1000 50 0:100\n1 Q0 B 200 1000 600 500:200\n"


def test_relevant_in_context_by_hand(tmp_path):
    q = write(tmp_path / "q.fol", QRELS)
    # article A: [0,50) + [60,160) -> 150 retrieved, 90 highlighted; article C: nothing relevant; B: [500,700)
    r = write(tmp_path / "r.run", "1 Q0 A 1 3 x 0 50\n1 Q0 A 2 2 x 60 100\n1 Q0 C 3 1 x 0 10\n1 Q0 B 4 0 x 500 200\n")
    v = parse_out(run_cli("score", "--task", "relevant-in-context", "--assessments", q, "-q", r, check=0).stdout)
    p, rc, b2 = 90 / 150, 90 / 100, 0.25 ** 2
    fa = (1 + b2) * p * rc / (b2 * p + rc)
    fb = 1.0  # B retrieved exactly its highlighted text
    assert v[("num_ret", "1")] == 3 and v[("num_rel_ret", "1")] == 2 and v[("rel_ret_size", "1")] == 290
    assert v[("gP[1]", "1")] == pytest.approx(fa)
    assert v[("gP[2]", "1")] == pytest.approx(fa / 2)
    assert v[("gP[3]", "1")] == pytest.approx((fa + fb) / 3)
    assert v[("gP[5]", "1")] == pytest.approx((fa + fb) / 5)  # shorter list: missing ranks score 0
    assert v[("gR[2]", "1")] == 0.5 and v[("gR[3]", "1")] == 1.0
    # AgP: gP at the ranks of relevant articles (1 and 3) over the 2 relevant articles
    assert v[("AgP", "1")] == pytest.approx((fa + (fa + fb) / 3) / 2)
    v1 = parse_out(run_cli("score", "--task", "relevant-in-context", "--assessments", q, "-q", "--beta", "1", r,
                           check=0).stdout)
    assert v1[("gP[1]", "1")] == pytest.approx(2 * p * rc / (p + rc))


@pytest.mark.parametrize("n,expected_a", [(500, (500 - 30) / 500), (10, 0.0)])
def test_best_in_context_by_hand(tmp_path, n, expected_a):
    q = write(tmp_path / "q.fol", QRELS)
    # A's BEP is 50, the run enters at 80 (d = 30); B's BEP 600, the run enters at 700 (d = 100)
    r = write(tmp_path / "r.run", "1 Q0 A 1 3 x 80 10\n1 Q0 B 2 2 x 700 10\n")
    v = parse_out(run_cli("score", "--task", "best-in-context", "--assessments", q, "-q", "-n", n, r,
                          check=0).stdout)
    b = (n - 100) / n if 100 < n else 0.0
    assert v[("gP[1]", "1")] == pytest.approx(expected_a)
    assert v[("gP[2]", "1")] == pytest.approx((expected_a + b) / 2)
    assert v[("AgP", "1")] == pytest.approx((expected_a + (expected_a + b) / 2) / 2)
    assert v[("ret_size", "1")] == 0


@pytest.mark.parametrize("extra_qrels,run,error,expected", [
    # A's results interleaved with B's: line 3 is named; regrouped, relevant text retrieved is
    # A 50 + 40 (60:100 inside 0:100) and B 200 = 290
    ("", "1 Q0 A 1 3 x 0 50\n1 Q0 B 2 2 x 500 200\n1 Q0 A 3 1 x 60 100\n",
     "r.run:line 3: run x, topic 1: results of article A are interleaved",
     {("rel_ret_size", "1"): 290, ("num_ret", "1"): 2}),
    # topic 1 in two blocks: the official tool cannot score it (its article ranks restart)
    ("2 Q0 C 10 300 0 0:10\n", "1 Q0 A 1 3 x 0 50\n2 Q0 C 1 1 x 0 10\n1 Q0 B 2 2 x 500 200\n",
     "r.run: run x: topic 1 is listed in 2 separate blocks (lines 1-1, lines 3-3)",
     {("num_ret", "1"): 2, ("num_ret", "2"): 1}),
])
def test_grouping_errors_or_regroup(tmp_path, extra_qrels, run, error, expected):
    q = write(tmp_path / "q.fol", QRELS + extra_qrels)
    r = write(tmp_path / "r.run", run)
    p = run_cli("score", "--task", "relevant-in-context", "--assessments", q, r)
    assert p.returncode == 2 and error in p.stderr
    p = run_cli("score", "--task", "relevant-in-context", "--assessments", q, "--regroup", "-q", r, check=0)
    assert "regrouped per topic and article: 2 results moved" in p.stderr
    v = parse_out(p.stdout)
    assert {k: v[k] for k in expected} == expected


def test_best_in_context_one_result_per_article(tmp_path):
    q = write(tmp_path / "q.fol", QRELS)
    r = write(tmp_path / "r.run", "1 Q0 A 1 3 x 0 50\n1 Q0 A 2 2 x 60 10\n")
    p = run_cli("score", "--task", "best-in-context", "--assessments", q, r)
    assert p.returncode == 2 and "r.run:line 2: run x, topic 1: article A has more than one result" in p.stderr


@pytest.mark.parametrize("run,task,ref,opts", [
    ("bert-ric.run", "relevant-in-context", "bert-ric.r.q.out", []),
    ("bert-ric.run", "relevant-in-context", "bert-ric.r.beta1.q.out", ["--beta", "1"]),
    ("bert-bic.run", "best-in-context", "bert-bic.b.q.out", []),
    ("bert-bic.run", "best-in-context", "bert-bic.b.n1000.q.out", ["-n", "1000"]),
])
def test_matches_official_tool(shared_data, run, task, ref, opts):
    p = run_cli("score", "--task", task, "--assessments", shared_data / "qrels-2009-2010.fol", "-q", *opts,
                shared_data / "runs" / run, check=0)
    got = parse_out(p.stdout)
    want = parse_out((shared_data / "reference" / ref).read_text())
    assert set(got) == set(want)
    for k, v in want.items():
        assert got[k] == pytest.approx(v, abs=1e-9), k
