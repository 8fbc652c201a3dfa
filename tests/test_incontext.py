"""Relevant in Context and Best in Context: by hand, validation, and against the official tool."""
import math

import pytest

from conftest import parse_out, run_cli, score_values, write

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
    # a list shorter than the cut-off: the tool reports its last rank, (fa + fb) / 3, not / 5
    assert v[("gP[5]", "1")] == pytest.approx((fa + fb) / 3) and v[("gP[50]", "1")] == v[("gP[3]", "1")]
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


# A is relevant; N and M are judged non-relevant (rel_chars 0: five columns, and six with a
# best entry point column); U is unjudged
JUDGED = "1 Q0 A 100 1000 50 0:100\n1 Q0 N 0 800\n1 Q0 M 0 900 0\n"


def test_judged_non_relevant_documents_score_as_unjudged(tmp_path):
    # focused: N [0,100), A [0,100), M [0,50), U [0,10): only A is relevant
    v = score_values(tmp_path, JUDGED, "1 Q0 N 1 4 x 0 100\n1 Q0 A 2 3 x 0 100\n1 Q0 M 3 2 x 0 50\n"
                     "1 Q0 U 4 1 x 0 10\n", "--task", "focused")
    assert v[("num_rel", "1")] == 1 and v[("num_rel_ret", "1")] == 1 and v[("num_ret", "1")] == 4
    assert v[("art_prec", "1")] == 1 / 4 and v[("art_rec", "1")] == 1.0 and v[("rel_size", "1")] == 100
    # P/R: 0/100 (R 0), 100/200 (R 1), then past recall 1 nothing changes: iP = .5 everywhere
    assert v[("AiP", "1")] == 0.5
    # best in context: N entered at 0 has no entry point (before: BEP -1, d = 1, score .998)
    v = score_values(tmp_path, JUDGED, "1 Q0 N 1 3 x 0 10\n1 Q0 A 2 2 x 150 10\n1 Q0 M 3 1 x 0 10\n",
                     "--task", "best-in-context")
    a = (500 - 100) / 500
    assert v[("gP[1]", "1")] == 0.0 and v[("gP[2]", "1")] == a / 2 and v[("gP[3]", "1")] == a / 3
    assert v[("num_rel", "1")] == 1 and v[("num_rel_ret", "1")] == 1 and v[("gR[1]", "1")] == 0.0
    assert v[("AgP", "1")] == a / 2  # gP at A's rank over the 1 relevant article
    # relevant in context: N [0,100) scores 0; A: [0,50) and [50,150), P = 100/150, R = 1
    v = score_values(tmp_path, JUDGED, "1 Q0 N 1 3 x 0 100\n1 Q0 A 2 2 x 0 50\n1 Q0 A 3 1 x 50 100\n",
                     "--task", "relevant-in-context")
    p, b2 = 100 / 150, 0.25 * 0.25
    f = (1 + b2) * p * 1.0 / (b2 * p + 1.0)
    assert v[("gP[1]", "1")] == 0.0 and v[("gP[2]", "1")] == f / 2 and v[("AgP", "1")] == f / 2
    assert v[("num_rel", "all")] == 1 and v[("rel_ret_size", "1")] == 100 and v[("ret_size", "1")] == 250


def test_best_entry_points_as_the_tool_reads_them(tmp_path, caplog):
    # A's entry point 1200 lies past its 1000 characters: the distance is still |1200 - 900| = 300;
    # B's six-column line has no passages, so the tool ignores its entry point: B scores 0
    qrels = "1 Q0 A 100 1000 1200 0:100\n1 Q0 B 100 1000 40\n"
    v = score_values(tmp_path, qrels, "1 Q0 A 1 2 x 900 10\n1 Q0 B 2 1 x 40 10\n", "--task", "best-in-context")
    assert v[("gP[1]", "1")] == (500 - 300) / 500 and v[("gP[2]", "1")] == (500 - 300) / 500 / 2
    assert "line 2: best entry point 40 of relevant document B is ignored" in caplog.text


def test_topic_without_relevant_documents_is_nan_as_in_the_tool(tmp_path, caplog):
    # topic 2 has judged non-relevant documents only: recall is 0/0, which the tool prints as NaN
    qrels = JUDGED + "2 Q0 N 0 800\n"
    v = score_values(tmp_path, qrels, "1 Q0 A 1 2 x 0 100\n2 Q0 N 1 1 x 0 10\n", "--task", "relevant-in-context")
    assert v[("gP[1]", "2")] == 0.0 and math.isnan(v[("gR[1]", "2")]) and math.isnan(v[("AgP", "2")])
    assert math.isnan(v[("MAgP", "all")]) and v[("num_rel", "all")] == 1
    assert "1 scored topic has no relevant document in the qrels (2): its recall" in caplog.text


ASSESS_2006 = """<assessments topic="1"><file name="A">
<element path="/article[1]" size="100" rsize="60"/>
<element path="/article[1]/sec[1]" size="50" rsize="50"/>
<element path="/article[1]/sec[2]" size="50" rsize="10"/>
</file><file name="B"><element path="/article[1]" size="40" rsize="40"/></file></assessments>"""


def test_relevant_in_context_2006_hixeval_by_hand(tmp_path):
    a = write(tmp_path / "a.xml", ASSESS_2006)
    # AllInContext (the 2006 DTD's label): C (not assessed), A's two sections, B's article
    r = write(tmp_path / "r.txt", "1 Q0 C 1 4 x /article[1]\n1 Q0 A 2 3 x /article[1]/sec[1]\n"
                                  "1 Q0 A 3 2 x /article[1]/sec[2]\n1 Q0 B 4 1 x /article[1]\n")
    v = parse_out(run_cli("score", "--task", "AllInContext", "--assessments", a, "-q", r, check=0).stdout)
    # C: F 0; A: P = (50 + 10) / 100, R = 60 / 60, F = 2 * .6 * 1 / 1.6 = .75; B: F 1
    fa = 2 * 0.6 * 1.0 / 1.6
    assert v[("gP[5]", "1")] == pytest.approx((0 + fa + 1) / 5)  # the paper's formula: / 5 for a 3-article list
    assert v[("gR[5]", "1")] == 1.0 and v[("num_rel", "1")] == 2 and v[("num_ret", "1")] == 3
    assert v[("AgP", "1")] == pytest.approx((fa / 2 + (fa + 1) / 3) / 2)  # gP at ranks 2 and 3, over 2
    assert v[("MAgP", "all")] == v[("AgP", "1")]
    # nested elements of one article are an error
    bad = write(tmp_path / "bad.txt", "1 Q0 A 1 2 x /article[1]\n1 Q0 A 2 1 x /article[1]/sec[1]\n")
    p = run_cli("score", "--task", "AllInContext", "--assessments", a, bad)
    assert p.returncode == 2 and "bad.txt:line 2: run x, topic 1: element A/article[1]/sec[1] overlaps" in p.stderr


@pytest.mark.parametrize("task,families", [("best-in-context", []), ("relevant-in-context", []),
                                           ("relevant-in-context", ["--family", "ric,passage"])])
def test_file_order_is_applied_once_with_one_warning(tmp_path, task, families):
    # rank 2 before rank 1 in the file: scored in file order (as inex_eval), said once
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n1 Q0 B 50 300 0 10:50\n")
    r = write(tmp_path / "r.run", "1 Q0 B 2 1 r 10 25\n1 Q0 A 1 2 r 0 100\n")
    p = run_cli("score", "--task", task, *families, "--assessments", q, "-q", r, check=0)
    assert p.stderr.count("comes after rank 2 in the file") == 1, p.stderr
    v = parse_out(p.stdout)
    # file order puts B first; in rank order A (a perfect result either way) would give gP[1] = 1
    if task == "relevant-in-context":  # B: precision 1, recall 25/50; F_0.25
        b = (1 + 0.25 ** 2) * 1 * 0.5 / (0.25 ** 2 * 1 + 0.5)
    else:  # B's entry point 10 characters from its BEP 0, n = 500
        b = (500 - 10) / 500
    assert v[("gP[1]", "1")] == pytest.approx(b) and b < 1
    assert v[("num_rel_ret", "1")] == 2


def _gp_by_hand(scores, relevant, nrel, ranks, short_list):
    """gP/gR/AgP/11-point iP of one topic with plain Python floats, rank by rank (the tool's loop)."""
    total, nrel_f, gps, grs = 0.0, float(nrel), [], []
    for k, s in enumerate(scores, 1):
        total += s
        gps.append(total / k)
        grs.append(sum(relevant[:k]) / nrel_f if nrel else math.nan)
    vals = {}
    for r in ranks:
        k = min(r, len(scores))
        vals[f"gP[{r}]"] = 0.0 if not k else gps[k - 1] if short_list == "last" or r <= len(scores) else \
            sum(scores[:k], 0.0) / r
        vals[f"gR[{r}]"] = grs[k - 1] if k else 0.0
    agp_sum = 0.0
    for g, rel in zip(gps, relevant):
        if rel:
            agp_sum += g
    agp = agp_sum / nrel if nrel else math.nan if agp_sum == 0 else math.inf
    ip = [0.0] * 11
    for g, gr in zip(gps, grs):
        point = 0 if math.isnan(gr) else min(int(math.floor(10.0 * gr)), 10)
        ip[point] = max(ip[point], g)
    for k in range(9, -1, -1):
        ip[k] = max(ip[k], ip[k + 1])
    return vals, agp, ip


@pytest.mark.parametrize("short_list,seed,scored_if_relevant", [("last", 7, False), ("zero", 7, False),
                                                                ("last", 8, True), ("zero", 9, True), ("last", 10, False)])
def test_gp_measures_of_many_topics_at_once_equal_a_plain_loop_per_topic(short_list, seed, scored_if_relevant):
    """Also where only relevant articles score (as in Relevant and Best in Context), with
    articles that score 0 between them: the sums skip the articles that add 0.0."""
    import numpy as np

    from inexflow.measures.passage_arrays import gp_measures_grouped
    rng = np.random.default_rng(seed)
    ranks = (1, 2, 3, 5, 10, 25, 50)
    sizes = [0, 1, 7, 60, 3, 0, 120]
    nrel = np.array([3, 0, 4, 20, 1, 5, 0])
    topics = [(rng.random(n) * (rng.random(n) < 0.6), (rng.random(n) < 0.4).astype(np.int64)) for n in sizes]
    if scored_if_relevant:
        topics = [(s * r, r) for s, r in topics]
    for t in np.flatnonzero(nrel == 0):  # no relevant article in the qrels: gR 0/0
        topics[t] = (topics[t][0], np.zeros(sizes[t], np.int64))
    nrel = np.maximum(nrel, [int(r.sum()) for _, r in topics]) * (nrel > 0)
    # articles listed topic 2, 0, 6, ... (file order, not topic order)
    order = [2, 0, 6, 3, 4, 1, 5]
    group = np.concatenate([np.full(sizes[t], t) for t in order]).astype(np.int64)
    scores = np.concatenate([topics[t][0] for t in order])
    relevant = np.concatenate([topics[t][1] for t in order])
    vals, agp, ip = gp_measures_grouped(group, scores, relevant, nrel, ranks, short_list)
    for t, (s, rel) in enumerate(topics):
        ev, eagp, eip = _gp_by_hand(s.tolist(), rel.tolist(), int(nrel[t]), ranks, short_list)
        assert {m: float(v[t]) for m, v in vals.items()} == pytest.approx(ev, rel=0, abs=0, nan_ok=True)
        assert (math.isnan(eagp) and math.isnan(agp[t])) or agp[t] == eagp
        assert ip[t].tolist() == eip


@pytest.mark.parametrize("task", ["relevant-in-context", "best-in-context"])
@pytest.mark.parametrize("passage", ["0 10", "0 0"])  # the fast path; a 0-length passage goes the general way
def test_assessments_without_any_relevant_article(tmp_path, task, passage):
    """Qrels whose only topic has no relevant article (per-topic qrels of a topic judged all
    non-relevant): the official tool prints the topic (num_rel 0, gP 0.0, gR and AgP NaN);
    inexflow crashed on the empty table of relevant articles."""
    q = write(tmp_path / "q.fol", "1 Q0 100 0 1000\n")
    r = write(tmp_path / "r.run", f"1 Q0 100 1 1 r {passage}\n")
    v = parse_out(run_cli("score", "--task", task, "--assessments", q, "-q", r, check=0).stdout)
    assert (v[("num_ret", "1")], v[("num_rel", "1")], v[("num_rel_ret", "1")], v[("gP[1]", "1")]) == (1, 0, 0, 0.0)
    assert math.isnan(v[("AgP", "1")]) and math.isnan(v[("gR[1]", "1")]) and math.isnan(v[("MAgP", "all")])


def test_best_in_context_checks_articles_of_assessed_topics_only(tmp_path):
    """Two results for one article in a topic the qrels lack: the official tool reads none of
    the topic's lines, so the run is scored (with the warning that the topic is ignored); in an
    assessed topic it stays an error."""
    q = write(tmp_path / "q.fol", QRELS)
    r = write(tmp_path / "r.run", "1 Q0 A 1 0.9 r 90 40\n7 Q0 C 1 0.9 r 90 40\n7 Q0 C 2 0.8 r 100 40\n")
    got = run_cli("score", "--task", "best-in-context", "--assessments", q, "-q", r, check=0)
    assert parse_out(got.stdout)[("num_ret", "1")] == 1 and "topic not in the assessments is ignored: 7" in got.stderr
    r2 = write(tmp_path / "r2.run", "1 Q0 A 1 0.9 r 90 40\n1 Q0 A 2 0.8 r 100 40\n")
    assert "has more than one result" in run_cli("score", "--task", "best-in-context", "--assessments", q, r2,
                                                  check=2).stderr


def test_a_beta_whose_square_overflows_is_refused(tmp_path):
    """F-beta weighs with beta squared: beyond 1e150 it is infinite and every score NaN (numpy's
    RuntimeWarnings showed); refused in one line, as the schema refuses it in a config."""
    q = write(tmp_path / "q.fol", QRELS)
    r = write(tmp_path / "r.run", "1 Q0 A 1 3 x 0 50\n")
    got = run_cli("score", "--task", "relevant-in-context", "--beta", "1e200", "--assessments", q, r, check=2)
    assert got.stderr.strip() == ("inexflow: error: option beta: 1e+200 is not allowed (expected a finite number "
                                  "above 0 and at most 1e+150)")
    assert run_cli("score", "--task", "relevant-in-context", "--beta", "1e150", "--assessments", q, r, check=0).stdout
