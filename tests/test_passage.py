"""Focused passage measures: by hand, and against the official inex_eval outputs in shared/data."""
import numpy as np
import pytest

import inexflow
from conftest import parse_out, run_cli, write
from inexflow.measures.passage_arrays import interpolated_precision, interpolated_precision_grouped


def test_ip_by_hand():
    # Trel = 100; results: A[0,20) 20 rel, C[0,80) 0 rel, A[20,100) 80 rel
    ip = interpolated_precision(np.array([20, 80, 80]), np.array([20, 0, 80]), 100)
    # P = 20/20, 20/100, 100/180 ; R = .2, .2, 1
    assert ip[0] == 1.0 and ip[20] == 1.0
    assert ip[21] == pytest.approx(100 / 180) and ip[100] == pytest.approx(100 / 180)
    assert ip.mean() == pytest.approx((21 * 1 + 80 * 100 / 180) / 101)


def test_recall_levels_as_the_tool_computes_them():
    # Trel = 3: after 1 relevant char recall is 1/3; level .33 is reached (floor(33.33) = 33), .34 is not
    ip = interpolated_precision(np.array([1, 2]), np.array([1, 0]), 3)
    assert ip[33] == 1.0 and ip[34] == 0.0
    # Trel = 100, 29 relevant chars: the tool's double 29/100 = 0.28999999999999998 and
    # 100 * 0.28999999999999998 = 28.999999999999996, so the result lands on level 28, not 29
    assert 100 * (29 / 100) == 28.999999999999996
    ip = interpolated_precision(np.array([29, 71]), np.array([29, 0]), 100)
    assert ip[28] == 1.0 and ip[29] == 0.0


def test_results_past_recall_one_are_skipped():
    # Trel = 100; text retrieved twice: R = .5, 1.5 -> the second result (level 150) is skipped
    ip = interpolated_precision(np.array([50, 100]), np.array([50, 100]), 100)
    assert list(ip[:51]) == [1.0] * 51 and not ip[51:].any()


def test_grouped_ip_equals_per_topic_ip():
    # the one-pass version for all topics against the per-topic one, on random interleaved
    # topics with repeated text (recall past 1), empty results and a topic without relevant text
    rng = np.random.default_rng(7)
    group = rng.integers(0, 6, 3000)
    size = rng.integers(0, 300, 3000)
    rsize = np.where(rng.random(3000) < 0.4, size, 0)
    trel = np.array([float(rsize[group == g].sum()) * f for g, f in zip(range(6), [.5, 1, 2, 1.3, 1, 0])])
    got = interpolated_precision_grouped(group, size, rsize, trel)
    order = np.argsort(group, kind="stable")  # the same results topic by topic (no sort inside)
    by_topic = interpolated_precision_grouped(group[order], size[order], rsize[order], trel)
    for g in range(6):
        want = interpolated_precision(size[group == g], rsize[group == g], trel[g])
        assert np.array_equal(got[g], want) and np.array_equal(by_topic[g], want), g


SPLIT_QRELS = "1 Q0 A 100 500 0 0:100\n2 Q0 C 10 300 0 0:10\n"
SPLIT_RUN = ("1 Q0 A 1 1 x 0 50\n1 Q0 B 2 1 x 0 100\n2 Q0 C 1 1 x 0 10\n"
             "1 Q0 A 1 1 x 0 100\n1 Q0 A 2 1 x 100 20\n")


def test_topic_in_two_blocks_is_scored_as_the_tool_does(tmp_path):
    q = write(tmp_path / "q.fol", SPLIT_QRELS)
    r = write(tmp_path / "r.run", SPLIT_RUN)
    p = run_cli("score", "--task", "focused", "--assessments", q, "-q", r, check=0)
    assert "topic 1 is listed in 2 separate blocks (lines 1-2, lines 4-5)" in p.stderr
    v = parse_out(p.stdout)
    # file order, topic 1: P/R = 50/50 (R .5), 50/150 (R .5), 150/250 (R 1.5, skipped), 150/270 (skipped)
    assert v[("AiP", "1")] == 51 / 101 and v[("iP[0.10]", "1")] == 1.0
    # articles: A, B in block 1; block 2 carries topic 2's table {C}, so A counts again
    assert v[("num_ret", "1")] == 3 and v[("num_rel_ret", "1")] == 2
    assert v[("art_prec", "1")] == 2 / 3 and v[("art_rec", "1")] == 2.0
    assert v[("ret_size", "1")] == 50 + 100 + 100 + 20 and v[("rel_ret_size", "1")] == 150
    assert v[("AiP", "2")] == 1.0


def test_unassessed_topic_lines_do_not_split_a_topic(tmp_path):
    # topic 2 has no assessments: the tool skips its line, so lines 1-5 are one block of topic 1
    # and the passage on line 4 overlaps the one on line 1
    q = write(tmp_path / "q.fol", SPLIT_QRELS.splitlines()[0] + "\n")
    r = write(tmp_path / "r.run", SPLIT_RUN)
    p = run_cli("score", "--task", "focused", "--assessments", q, r)
    assert p.returncode == 2
    assert "r.run:line 4: run x, topic 1: passage 0:100 of article A overlaps passage 0:50 on line 1" in p.stderr
    v = parse_out(run_cli("score", "--task", "thorough", "--assessments", q, "-q", r, check=0).stdout)
    assert v[("num_ret", "1")] == 2 and v[("num_rel_ret", "1")] == 1


def test_file_order_not_rank_order(tmp_path):
    # the tool ignores the rank column: B (non-relevant) is read first, then A (100 of 100 relevant)
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "r.run", "1 Q0 B 2 1 x 0 100\n1 Q0 A 1 1 x 0 100\n")
    p = run_cli("score", "--task", "focused", "--assessments", q, "-q", r, check=0)
    assert "r.run:line 2: run x, topic 1: rank 1 comes after rank 2 in the file" in p.stderr
    v = parse_out(p.stdout)
    # P/R = 0/100 (R 0), 100/200 (R 1): iP = .5 at every level
    assert v[("AiP", "1")] == 0.5 and v[("iP[0.00]", "1")] == 0.5


def test_repeated_passage_in_one_block_is_overlap(tmp_path):
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1 x 0 50\n1 Q0 A 2 1 x 0 50\n")
    p = run_cli("score", "--task", "focused", "--assessments", q, r)
    assert p.returncode == 2 and "r.run:line 2: run x, topic 1: passage 0:50 of article A overlaps passage 0:50 on line 1" in p.stderr


@pytest.mark.parametrize("task,ref,opts", [("focused", "bert-focused.f.q.out", ["-q"]),
                                           ("focused", "bert-focused.f.c.q.out", ["-q", "-c"]),
                                           ("thorough", "bert-focused.t.q.out", ["-q"])])
def test_matches_official_tool(shared_data, task, ref, opts):
    p = run_cli("score", "--task", task, "--assessments", shared_data / "qrels-2009-2010.fol", *opts,
                shared_data / "runs" / "bert-focused.run", check=0)
    got = parse_out(p.stdout)
    want = parse_out((shared_data / "reference" / ref).read_text())
    assert set(got) == set(want)
    for key, v in want.items():
        assert got[key] == pytest.approx(v, abs=1e-9), key
    # bert-focused.run lists topic 2009079 in two blocks (lines 15687-15935 and 32582-32830)
    assert "topic 2009079 is listed in 2 separate blocks (lines 15687-15935, lines 32582-32830)" in p.stderr
    assert got[("num_ret", "2009079")] == 200 and got[("AiP", "2009079")] == 0.5839295129369855


def test_per_run_blocks_and_all_only(tmp_path):
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r1 = write(tmp_path / "r1.run", "1 Q0 A 1 1.0 one 0 20\n1 Q0 C 2 0.9 one 0 80\n1 Q0 A 3 0.8 one 20 80\n")
    r2 = write(tmp_path / "r2.run", "1 Q0 C 1 1.0 two 0 80\n")
    p = run_cli("score", "--task", "focused", "--assessments", q, r1, r2, check=0)
    blocks = p.stdout.split("</eval>\n")
    assert blocks[0].startswith('<eval run-id="one"') and blocks[1].startswith('<eval run-id="two"')
    one, two = parse_out(blocks[0]), parse_out(blocks[1])
    assert all(t == "all" for (_, t) in one)
    assert one[("MAiP", "all")] == pytest.approx((21 * 1 + 80 * 100 / 180) / 101)
    assert two[("MAiP", "all")] == 0.0
    assert one[("num_ret", "all")] == 2 and one[("art_prec", "all")] == 0.5


def test_overlap_is_an_error_in_focused_but_not_in_thorough(tmp_path):
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1.0 x 0 50\n1 Q0 B 2 0.9 x 0 80\n1 Q0 A 3 0.8 x 40 20\n")
    p = run_cli("score", "--task", "focused", "--assessments", q, r)
    assert p.returncode == 2
    assert "r.run:line 3: run x, topic 1: passage 40:20 of article A overlaps passage 0:50 on line 1" in p.stderr
    v = parse_out(run_cli("score", "--task", "thorough", "--assessments", q, "-q", r, check=0).stdout)
    # thorough: in the relevant article A only text not retrieved before counts: [40,60) adds
    # [50,60), 10 characters, all relevant; sizes 50, 80, 10; relevant 50, 0, 10
    assert v[("ret_size", "1")] == 140 and v[("rel_ret_size", "1")] == 60
    # P/R: 50/50 (R .5), 50/130 (R .5), 60/140 (R .6)
    assert v[("iP[0.00]", "1")] == 1.0 and v[("AiP", "1")] == pytest.approx((51 * 1.0 + 10 * 60 / 140) / 101)


@pytest.mark.slow
def test_overlap_check_equals_the_pairwise_definition():
    # the tool's rule, pair by pair: results i, j of one article overlap iff s_i < e_j and s_j < e_i
    # (empty passages included: one strictly inside another overlaps, one at its edge does not)
    import pandas as pd

    from inexflow.errors import InputError
    from inexflow.measures.passage import check_no_overlap
    from inexflow.measures.toolorder import ToolView
    from inexflow.model.runs import Run

    rng = np.random.default_rng(0)
    for _ in range(2000):
        n = int(rng.integers(1, 8))
        st = rng.integers(0, 20, n)
        ln = rng.integers(0, 6, n) * (rng.random(n) < 0.8)
        doc = rng.choice(["a", "b"], n)
        want = any(doc[i] == doc[j] and st[i] < st[j] + ln[j] and st[j] < st[i] + ln[i]
                   for i in range(n) for j in range(i))
        res = pd.DataFrame({"topic": "1", "doc": doc, "start": st, "end": st + ln, "line": np.arange(1, n + 1)})
        try:
            check_no_overlap(Run("x", "", "focused", "fol-text", "r.run", res), ToolView.of(res, ["1"]))
            got = False
        except InputError:
            got = True
        assert got == want, (st, ln, doc)


@pytest.mark.parametrize("task,run,ref,opts", [
    ("focused", "bert-focused.run", "bert-focused.f.q.out", []),
    ("focused", "bert-focused.run", "bert-focused.f.c.q.out", ["-c"]),
    ("thorough", "bert-focused.run", "bert-focused.t.q.out", []),
    ("relevant-in-context", "bert-ric.run", "bert-ric.r.beta1.q.out", ["--beta", "1"]),
    ("best-in-context", "bert-bic.run", "bert-bic.b.n1000.q.out", ["-n", "1000"]),
])
def test_output_is_the_official_tools_byte_for_byte(shared_data, task, run, ref, opts):
    # the same lines, tabs (two after names shorter than 8) and number formatting (Java's
    # Double.toString: 7.119099690176781E-4, NaN) as inex_eval v3.1; only the <eval> line
    # names the file as it was given
    p = run_cli("score", "--task", task, "--assessments", shared_data / "qrels-2009-2010.fol", "-q", *opts,
                shared_data / "runs" / run, check=0)
    want = (shared_data / "reference" / ref).read_text().splitlines(keepends=True)
    got = p.stdout.splitlines(keepends=True)
    assert got[0].startswith('<eval run-id="TREC2INEX" file=')
    assert got[1:] == want[1:]


def test_java_number_formatting():
    from inexflow.measures.output import java_double

    assert [java_double(v) for v in (7.119099690176781e-4, 1e-5, 0.001, 9.99e-4, 0.5, 1.0, 1e7, -2.5e-8,
                                     float("nan"))] == \
        ["7.119099690176781E-4", "1.0E-5", "0.001", "9.99E-4", "0.5", "1.0", "1.0E7", "-2.5E-8", "NaN"]


def test_json_lines_carry_the_official_tools_numbers(shared_data):
    # --format json: one object per score (run: the run id, as --format tsv); every value equals the
    # tool's line exactly (counts as integers), and pandas reads the output as a table
    import io
    import json

    import pandas as pd

    p = run_cli("score", "--task", "relevant-in-context", "--assessments", shared_data / "qrels-2009-2010.fol", "-q",
                shared_data / "runs" / "bert-ric.run", "--format", "json", check=0)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    want = parse_out((shared_data / "reference" / "bert-ric.r.q.out").read_text())
    assert {(r["measure"], r["topic"]): r["value"] for r in rows} == want
    # the quant as the score tables have it (inexflow.evaluate, the workflow's): chars for passage measures
    tables = inexflow.evaluate(shared_data / "qrels-2009-2010.fol", shared_data / "runs" / "bert-ric.run",
                               task="relevant-in-context", per_topic=True)
    assert set(tables["quant"]) == {"chars"}
    assert all(r["run"] == "TREC2INEX" and r["quant"] == "chars" for r in rows)
    assert {type(r["value"]) for r in rows if r["measure"] == "num_rel"} == {int}
    df = pd.read_json(io.StringIO(p.stdout), lines=True, dtype={"topic": str})
    assert list(df.columns) == ["run", "measure", "topic", "quant", "value"] and len(df) == len(want)


def test_reader_codes_equal_factorising_and_give_the_same_scores(shared_data, tmp_path):
    """A text run in evaluation order keeps the reader's dictionary codes of topic and doc;
    they equal pd.factorize of the result table, scoring with them equals scoring the same
    table without them, and a replaced table never carries them."""
    import pandas as pd

    from inexflow.measures.context import ScoringContext
    from inexflow.measures.session import score_run
    from inexflow.model.assessments import read_assessments
    from inexflow.model.runs import read_run

    lines = (shared_data / "runs" / "bert-focused.run").read_text().splitlines(keepends=True)
    # bert-focused.run lists topic 2009079 a second time from line 32582: without that block
    # the file is in evaluation order
    kept = [line for i, line in enumerate(lines, 1) if not (32582 <= i <= 32830)]
    run = read_run(write(tmp_path / "r.run", "".join(kept)), task="focused")
    for col in ("topic", "doc"):
        codes, uniques = run.codes(col)
        want_codes, want_uniques = pd.factorize(run.results[col])
        assert (codes == want_codes).all() and list(uniques) == list(want_uniques)
    ctx = ScoringContext(read_assessments(shared_data / "qrels-2009-2010.fol"), {}, {})
    stripped = run.with_results(run.results.copy(), run.order)
    assert stripped.codes("topic") is None and run.with_results(run.results, "file").codes("doc") is not None
    before = run.results.copy(deep=True)
    pd.testing.assert_frame_equal(score_run(run, "passage", ctx), score_run(stripped, "passage", ctx))
    pd.testing.assert_frame_equal(run.results, before)  # scoring shares the run's columns, never changes them
    # a file out of evaluation order (the real run) keeps none
    assert read_run(shared_data / "runs" / "bert-focused.run", task="focused").codes("topic") is None


@pytest.mark.parametrize("task", ["focused", "thorough", "relevant-in-context", "best-in-context"])
def test_topics_in_the_official_tools_string_order(tmp_path, task):
    """The official tool sorts topics as Java strings (10, 100, 9) and sums its means in that
    order: char_rec 30/50, 30/50, 10/70 for topics 9, 10, 100 sums to 0.44761904761904764 so and
    to 0.4476190476190476 in numeric order."""
    q = write(tmp_path / "q.fol", "9 Q0 100 50 1000 120 100:50\n10 Q0 100 50 1000 120 100:50\n"
                                  "100 Q0 100 70 1000 120 100:70\n")
    r = write(tmp_path / "r.run", "9 Q0 100 1 1 r 90 40\n10 Q0 100 1 1 r 100 30\n100 Q0 100 1 1 r 120 10\n")
    out = run_cli("score", "--task", task, "--assessments", q, "-q", r, check=0).stdout
    topics = [line.split("\t")[-2] for line in out.splitlines() if "\t" in line]
    assert list(dict.fromkeys(topics)) == ["10", "100", "9", "all"]
    if task in ("focused", "thorough"):
        assert parse_out(out)[("char_rec", "all")] == ((0.6 + 10 / 70) + 0.6) / 3 != ((0.6 + 0.6) + 10 / 70) / 3


@pytest.mark.parametrize("task", ["focused", "thorough"])
def test_a_run_beyond_the_official_tools_32_bit_counts_is_warned_of(tmp_path, task):
    """The official tool counts characters in Java ints: two topics of 2,000,000,000 retrieved
    characters each print ret_size all -294967296 there; here 4000000000, with a warning."""
    q = write(tmp_path / "q.fol", "1 Q0 100 50 1000 120 100:50\n2 Q0 100 50 1000 120 100:50\n")
    r = write(tmp_path / "r.run", "1 Q0 100 1 1 r 90 2000000000\n2 Q0 100 1 1 r 90 2000000000\n")
    got = run_cli("score", "--task", task, "--assessments", q, r, check=0)
    assert parse_out(got.stdout)[("ret_size", "all")] == 4_000_000_000
    assert "the run retrieves 4,000,000,000 characters, more than a Java int holds (2,147,483,647)" in got.stderr
