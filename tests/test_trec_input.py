"""TREC qrels and runs read as trec_eval 10.0 reads them: ``Q0`` as the qrels' iteration,
``#`` comment lines in runs and qrels, and a rank column that is not integers (trec_eval never
reads it). Values are compared with the trec_eval binary's where it is built (at
``/tmp/trec_eval_src/trec_eval`` or ``$TREC_EVAL``; skipped otherwise) and with the same files
without what trec_eval passes over."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli, write
from inexflow.front import documents
from test_trec import random_case

TREC_EVAL = Path(os.environ.get("TREC_EVAL", "/tmp/trec_eval_src/trec_eval"))
MEASURES = ("map", "P_5", "P_10", "Rprec", "ndcg", "num_ret", "num_rel", "num_rel_ret")


def decorated(qrels: str, run: str) -> tuple[str, str]:
    """``qrels`` with ``Q0`` iterations and comment lines, ``run`` with comment lines and ranks
    that are not integers: what trec_eval 10.0 reads as the same files."""
    q = "# qrels, judged by hand\n" + qrels.replace(" 0 d", " Q0 d").replace("\n2 ", "\n# topic 2\n2 ", 1)
    lines = run.splitlines(keepends=True)
    lines = [f"{t} {q0} {d} {float(r) + 0.5} {s} {n}\n" if i % 3 == 0 else line
             for i, (line, (t, q0, d, r, s, n)) in enumerate(zip(lines, map(str.split, lines)))]
    return q, "#  a run\n" + "".join(lines[:7]) + "   # indented comment\n" + "".join(lines[7:])


def values(stdout: str) -> dict:
    return {(m, t): float(v) for m, t, v in (line.split() for line in stdout.splitlines())}


@pytest.mark.parametrize("fast", [True, False])
def test_q0_comments_and_fractional_ranks_read_as_trec_eval_reads_them(tmp_path, monkeypatch, fast):
    _, _, qrels, run = random_case(5)
    q, r = write(tmp_path / "q.trec", qrels), write(tmp_path / "r.run", run)
    dq, dr = decorated(qrels, run)
    dq, dr = write(tmp_path / "dq.trec", dq), write(tmp_path / "dr.run", dr)
    if not fast:
        monkeypatch.setattr(documents, "handles", lambda args: False)
    plain = run_cli("score", "--format", "trec", "-q", "--assessments", q, r, check=0)
    got = run_cli("score", "--format", "trec", "-q", "--assessments", dq, dr, check=0)
    assert got.stdout == plain.stdout and "\nmap\tall\t" in got.stdout
    said = [line for line in got.stderr.splitlines() if line.startswith("inexflow:")]
    assert said == [f"inexflow: warning: {dr}:line 2: rank '1.5' is not an integer: the rank column is ignored and "
                    "results are ordered by descending score, as trec_eval reads a run; only the trec family can "
                    "score this run"]


def test_equals_the_trec_eval_binary(tmp_path):
    if not TREC_EVAL.is_file():
        pytest.skip(f"no trec_eval binary at {TREC_EVAL}")
    _, _, qrels, run = random_case(6)
    dq, dr = decorated(qrels, run)
    dq, dr = write(tmp_path / "q.trec", dq), write(tmp_path / "r.run", dr)
    want = subprocess.run([TREC_EVAL, "-q", *(f"-m{m}" for m in ("map", "P.5,10", "Rprec", "ndcg", "num_ret",
                                                                 "num_rel", "num_rel_ret")), dq, dr],
                          capture_output=True, text=True, check=True).stdout
    got = values(run_cli("score", "--format", "trec", "-m", "all_trec", "-q", "--assessments", dq, dr,
                         check=0).stdout)
    want = {(m, t): float(v) for m, t, v in (line.split() for line in want.splitlines()) if m in MEASURES}
    assert len(want) > 40 and want == pytest.approx({k: got[k] for k in want}, abs=5e-5)


def test_q0_qrels_are_recognised_and_a_failed_recognition_names_the_option(tmp_path):
    q = write(tmp_path / "q.trec", "1 Q0 d1 1\n1 Q0 d2 0\n")
    r = write(tmp_path / "r.run", "1 Q0 d1 1 2.0 x\n1 Q0 d2 2 1.0 x\n")
    assert values(run_cli("score", "--format", "trec", "--assessments", q, r, check=0).stdout)[("map", "all")] == 1
    # a 4-column line with Q0 among FOL lines is a truncated FOL line: the FOL reader says so,
    # and how TREC qrels are read
    bad = write(tmp_path / "mixed", "1 Q0 d1 1\n1 Q0 d2 10 100 0 0:10\n")
    p = run_cli("score", "--task", "focused", "--assessments", bad, r)
    assert p.returncode == 2 and f"{bad}:line 1: 4 columns" in p.stderr and "--assessments-format trec" in p.stderr


def test_families_that_order_by_rank_refuse_a_run_without_integer_ranks(tmp_path):
    fol = write(tmp_path / "q.fol", "1 Q0 d1 10 100 0 0:10\n")
    r = write(tmp_path / "r.run", "1 Q0 d1 1 2.0 x\n1 Q0 d2 two 1.0 x\n")
    p = run_cli("score", "--task", "focused", "--assessments", fol, r)  # the passage family
    errors = [line for line in p.stderr.splitlines() if line.startswith("inexflow: error:")]
    assert p.returncode == 2 and len(errors) == 1
    assert errors[0].startswith(f"inexflow: error: {r}:line 2: rank 'two' is not an integer: the passage family "
                                "needs integer ranks")
    assert run_cli("score", "--task", "focused", "--family", "trec", "--assessments", fol, r).returncode == 0
    # a 7- or 8-column run keeps its error: its ranks order it
    r8 = write(tmp_path / "r8.run", "1 Q0 d1 1.5 2.0 x 0 10\n")
    p = run_cli("score", "--task", "focused", "--family", "trec", "--assessments", fol, r8)
    assert p.returncode == 2 and f"{r8}:line 1: rank '1.5' is not an integer" in p.stderr


def test_canonical_numbers_only_where_the_number_gives_back_the_id():
    import pyarrow as pa

    from inexflow.io.run_arrow import canonical_numbers

    def read(ids):
        got = canonical_numbers(pa.array([i.encode() for i in ids], pa.binary()))
        return None if got is None else got.tolist()

    assert read(["1", "10", "0", "999999999999999999", "42"]) == [1, 10, 0, 999999999999999999, 42]
    for refused in (["7", "007"], ["0x1F"], ["0xFFFFFFFF"], ["-5"], ["+5"], ["1", "d1"], ["1000000000000000000"]):
        assert read(refused) is None, refused
    assert canonical_numbers(pa.array([b"x", b"12", b"345"], pa.binary()).slice(1)).tolist() == [12, 345]


def numbered_case(seed: int, width: bool) -> tuple[str, str]:
    """Qrels and a run whose document ids are numbers of 1 to 4 digits (scores tied, so that
    trec_eval's order by id as bytes, ``9`` after ``10``, decides); ``width``: some ids with a
    leading zero too (``007`` is not ``7``)."""
    rng = np.random.default_rng(seed)
    ids = [str(i) for i in (*range(12), *rng.choice(np.arange(12, 3000), 60, replace=False))]
    if width:
        ids += ["007", "0010", "00"]
    qrels, run = [], []
    for t in ("1", "2", "3"):
        for d in rng.choice(ids, 30, replace=False):
            qrels.append(f"{t} 0 {d} {rng.choice([0, 0, 1, 2, -1])}\n")
        for r, d in enumerate(rng.choice(ids, 40, replace=False), 1):
            run.append(f"{t} Q0 {d} {r} {rng.choice([1.0, 0.5, 0.25])} numbered\n")
    return "".join(qrels), "".join(run)


@pytest.mark.parametrize("seed, width", [(0, False), (1, False), (2, True), (3, True)])
def test_numbered_documents_score_as_their_ids(tmp_path, monkeypatch, seed, width):
    """Document ids read as numbers (the document path's fast reading) give what the same ids
    give as strings (the general path), and trec_eval's values where it is built."""
    qrels, run = numbered_case(seed, width)
    q, r = write(tmp_path / "q.trec", qrels), write(tmp_path / "r.run", run)
    fast = run_cli("score", "-m", "all_trec", "-q", "--assessments", q, r, check=0).stdout
    monkeypatch.setattr(documents, "handles", lambda args: False)
    general = run_cli("score", "--family", "trec", "--format", "trec_eval", "-m", "all_trec", "-q",
                      "--assessments", q, r, check=0).stdout
    assert fast == general and "map                   \t1\t" in fast
    if TREC_EVAL.is_file():
        want = subprocess.run([TREC_EVAL, "-q", "-m", "all_trec", q, r], capture_output=True, text=True,
                              check=True).stdout
        assert fast == want


def test_tie_order_of_numbers_is_the_tie_order_of_their_ids():
    """trec_eval's order (ties by document id as bytes, descending) of ids given as numbers,
    held to the same ids as strings: prefixes (1, 10, 100, 105), lengths (9 after 10), repeats."""
    from inexflow.measures.trec_arrays import trec_order

    rng = np.random.default_rng(7)
    ids = rng.choice([0, 1, 9, 10, 100, 105, 1000000, 99999999, 12, 120, 1200, 21], 400)
    topic = np.repeat(np.arange(4), 100)
    score = rng.choice([1.0, 0.5], 400)
    as_numbers = trec_order(topic, score, ids.astype(np.int64))
    as_strings = trec_order(topic, score, [str(i) for i in ids])
    assert np.array_equal(as_numbers, as_strings)


@pytest.mark.parametrize("fast", [True, False])
def test_topics_are_scored_summed_and_printed_in_trec_evals_order(tmp_path, monkeypatch, fast):
    """trec_eval sorts topics by their bytes (strcmp: 1, 10, 2) and sums the means in that
    order: reciprocal ranks 1, 1/3, 1 (topics 1, 10, 2) sum to 2.333333333333333 so, and to
    2.3333333333333335 in numeric order (1, 2, 10). Ids equal as numbers (01, 1) keep that order
    too, every call."""
    if not fast:
        monkeypatch.setattr(documents, "handles", lambda args: False)
    q = write(tmp_path / "q.trec", "1 0 a 1\n2 0 b 1\n10 0 c 1\n")
    r = write(tmp_path / "r.run", "1 Q0 a 1 3 x\n2 Q0 b 1 3 x\n10 Q0 y 1 3 x\n10 Q0 z 2 2 x\n10 Q0 c 3 1 x\n")
    got = run_cli("score", "--format", "trec", "-m", "recip_rank", "--assessments", q, r, check=0)
    assert values(got.stdout)[("recip_rank", "all")] == ((1 + 1 / 3) + 1) / 3 != ((1 + 1) + 1 / 3) / 3
    got = run_cli("score", "--format", "trec_eval", "-q", "-m", "recip_rank", q, r, check=0)
    assert [line.split()[1] for line in got.stdout.splitlines()] == ["1", "10", "2", "all"]
    q2 = write(tmp_path / "q2.trec", "1 0 a 1\n01 0 b 1\n")
    r2 = write(tmp_path / "r2.run", "1 Q0 a 1 3 x\n01 Q0 c 1 3 x\n01 Q0 b 2 1 x\n")
    for _ in range(3):
        got = run_cli("score", "--format", "trec_eval", "-q", "-m", "P.1", q2, r2, check=0)
        assert [line.split()[1] for line in got.stdout.splitlines()] == ["01", "1", "all"]


def test_odd_topic_ids_num_q_alone_and_the_last_lines_run_id(tmp_path):
    """A topic id of digits that are not ASCII (``²``, which int() refuses) is an id like any
    other; ``-m num_q`` alone prints num_q (it printed nothing); a run with several run ids is
    named by its last line's, as trec_eval keeps it ("only from the last content line")."""
    q = write(tmp_path / "q.trec", "\u00b2 0 a 1\n7 0 b 1\n8 0 c 1\n")
    r = write(tmp_path / "r.run", "\u00b2 Q0 a 1 2 zeta\n7 Q0 b 1 1 alpha\n8 Q0 x 1 0 mid\n")
    got = run_cli("score", "--format", "trec_eval", "-m", "map", "-m", "num_q", "-m", "runid", q, r, check=0)
    assert got.stdout.splitlines() == ["runid                 \tall\tmid", "num_q                 \tall\t3",
                                       "map                   \tall\t0.6667"]
    assert "several run ids ['alpha', 'mid', 'zeta']; using the last line's, 'mid'" in got.stderr
    got = run_cli("score", "--format", "trec_eval", "-m", "num_q", q, r, check=0)
    assert got.stdout == "num_q                 \tall\t3\n"


def test_rndcg_without_a_positive_gain_is_undefined_as_in_trec_eval(tmp_path):
    """With -l 0 a topic judged 0 only has relevant documents but no gain: trec_eval averages
    Rndcg over no point (0 / 0, printed -nan) and the mean with it."""
    q = write(tmp_path / "q.trec", "1 0 a 0\n2 0 b 1\n")
    r = write(tmp_path / "r.run", "1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    got = run_cli("score", "--format", "trec_eval", "-q", "-l", "0", "-m", "Rndcg", q, r, check=0)
    assert [line.split("\t")[2] for line in got.stdout.splitlines()] == ["  -nan", "1.0000", "  -nan"]


def test_qrels_fields_are_separated_by_ascii_white_space(tmp_path):
    """A no-break space is part of a document id in the qrels as in the run (C's isspace);
    a line starting with blanks and then # is a judgement, as trec_eval reads it."""
    q = write(tmp_path / "q.trec", "1 0 doc\u00a0A 1\n1 0 b 0\n  #2 0 c 1\n")
    r = write(tmp_path / "r.run", "1 Q0 doc\u00a0A 1 2 r\n1 Q0 b 2 1 r\n")
    got = run_cli("score", "--format", "trec_eval", "-c", "-m", "map", "-m", "num_q", q, r, check=0)
    assert got.stdout.splitlines() == ["num_q                 \tall\t2", "map                   \tall\t0.5000"]


def test_qrels_grades_written_as_integral_decimals(tmp_path):
    """trec_eval reads a grade with atol: 1.0 is 1 (read so here); 2.7 it would truncate to 2
    without a word, which is refused here, naming the line."""
    r = write(tmp_path / "r.run", "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    q = write(tmp_path / "q.trec", "1 0 a 1.0\n1 0 b 0.00\n")
    got = run_cli("score", "--format", "trec_eval", "-m", "num_rel", "-m", "map", q, r, check=0)
    assert got.stdout.splitlines() == ["num_rel               \tall\t1", "map                   \tall\t1.0000"]
    bad = write(tmp_path / "bad.trec", "1 0 a 1\n1 0 b 2.7\n")
    got = run_cli("score", "-m", "map", bad, r, check=2)
    assert got.stderr.strip().splitlines()[-1] == (f"inexflow: error: {bad}:line 2: grade '2.7' is not an integer "
                                                   "(expected a whole number such as 0, 1 or 2, or 1.0 for 1)")


def test_complete_scoring_of_a_run_answering_no_assessed_topic(tmp_path):
    """With -c every qrels topic is scored, unanswered ones 0: a run answering none of them is
    scored so (as trec_eval's -c scores it), with a warning naming the mismatch; without -c it
    stays an error."""
    q = write(tmp_path / "q.trec", "1 0 a 1\n2 0 b 1\n")
    r = write(tmp_path / "r.run", "7 Q0 a 1 1 r\n")
    got = run_cli("score", "--format", "trec_eval", "-c", "-m", "num_q", "-m", "map", q, r, check=0)
    assert got.stdout.splitlines() == ["num_q                 \tall\t2", "map                   \tall\t0.0000"]
    assert "the run's 1 topic is not in the assessments (run topics 7...; assessed 1, 2...): every assessed " \
           "topic scores 0" in got.stderr
    assert "the run's 1 topic is not in the assessments" in run_cli("score", "-m", "map", q, r, check=2).stderr
