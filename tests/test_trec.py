"""TREC interoperability: 4-column TREC qrels and 6-column runs give trec_eval's numbers
(checked against pytrec_eval, an independent implementation of trec_eval), and the
passage families refuse document-level qrels with an error saying what they need."""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, parse_out, run_cli, run_scores, write
from inexflow.front import documents

pytrec_eval = pytest.importorskip("pytrec_eval")
MEASURES = {"map", "P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "Rprec", "ndcg", "num_ret", "num_rel",
            "num_rel_ret"}


def random_case(seed):
    rng = np.random.default_rng(seed)
    qrels, run_lines, qrel_lines = {}, [], []
    for t in range(1, 6):
        docs = [f"d{i:03d}" for i in rng.choice(200, size=40, replace=False)]
        grades = rng.choice([0, 0, 0, 1, 2, 3], size=len(docs))
        grades[0] = max(grades[0], 1)  # every topic has a relevant document
        qrels[str(t)] = {d: int(g) for d, g in zip(docs, grades)}
        qrel_lines += [f"{t} 0 {d} {g}\n" for d, g in zip(docs, grades)]
        retrieved = rng.choice(200, size=int(rng.integers(3, 120)), replace=False)
        scores = np.round(rng.random(len(retrieved)) * 5, 1)  # ties on purpose
        order = rng.permutation(len(retrieved))  # file order says nothing
        for r, i in enumerate(order, 1):
            run_lines.append(f"{t} Q0 d{retrieved[i]:03d} {r} {scores[i]} myrun\n")
    return qrels, run_scores(run_lines), "".join(qrel_lines), "".join(run_lines)


@pytest.mark.parametrize("seed", range(6))
def test_equals_pytrec_eval(tmp_path, seed):
    qrels, run, qrel_text, run_text = random_case(seed)
    want = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    q, r = write(tmp_path / "q.trec", qrel_text), write(tmp_path / "r.run", run_text)
    got = parse_out(run_cli("score", "--task", "focused", "--format", "trec", "-m", "all_trec", "--assessments", q, "-q", r,
                           check=0).stdout)
    for t, vals in want.items():
        for m, v in vals.items():
            assert got[(m, t)] == pytest.approx(v, abs=1e-12), (m, t)
    for m in MEASURES - {"num_ret", "num_rel", "num_rel_ret"}:
        assert got[(m, "all")] == pytest.approx(np.mean([v[m] for v in want.values()]), abs=1e-12), m
    assert got[("num_rel_ret", "all")] == sum(v["num_rel_ret"] for v in want.values())


def test_by_hand(tmp_path):
    # relevant: a (grade 2), b (grade 1); run by score: c, a, b -> AP = (1/2 + 2/3) / 2
    q = write(tmp_path / "q.trec", "1 0 a 2\n1 0 b 1\n1 0 c 0\n")
    r = write(tmp_path / "r.run", "1 Q0 a 1 0.5 x\n1 Q0 b 2 0.1 x\n1 Q0 c 3 0.9 x\n")
    v = parse_out(run_cli("score", "--task", "focused", "--format", "trec", "-m", "all_trec", "--assessments", q, "-q", r,
                           check=0).stdout)
    assert v[("map", "1")] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert v[("P_5", "1")] == pytest.approx(2 / 5) and v[("Rprec", "1")] == pytest.approx(1 / 2)
    dcg, idcg = 2 / np.log2(3) + 1 / np.log2(4), 2 / np.log2(2) + 1 / np.log2(3)
    assert v[("ndcg", "1")] == pytest.approx(dcg / idcg)


@pytest.mark.slow
@pytest.mark.parametrize("flags", [[], ["-q"], ["-q", "-e", "--format", "tsv"], ["--format", "trec", "-q"],
                                   ["-q", "-m", "all_trec", "-c"], ["-q", "-m", "relstring.3", "-J"]])
def test_the_document_path_prints_what_the_general_path_prints(tmp_path, monkeypatch, flags):
    # TREC runs on TREC qrels are scored from Arrow columns (inexflow.front.documents); runs it
    # does not read (a repeated document, an FOL run, a topic not assessed) go the general way
    q = write(tmp_path / "q.trec", random_case(0)[2])
    runs = [write(tmp_path / f"r{s}.run", random_case(s)[3].replace("myrun", f"run{s}")) for s in range(3)]
    lines = random_case(3)[3].splitlines(keepends=True)
    runs.append(write(tmp_path / "dup.run", "".join(lines + lines[:1]).replace("myrun", "dup")))
    runs.append(write(tmp_path / "fol.run", "".join(line.rstrip("\n") + " 0 10\n" for line in lines)))
    write(tmp_path / "extra.run", "".join(lines) + "99 Q0 d001 1 1.0 myrun\n")
    runs.append(f"{tmp_path}/./extra.run")  # what is said of it names it .../extra.run, as the general reader does
    fast = run_cli("score", "--family", "trec", *flags, "--assessments", q, *runs, check=0)
    monkeypatch.setattr(documents, "handles", lambda args: False)
    general = run_cli("score", "--family", "trec", *flags, "--assessments", q, *runs, check=0)
    said = [[line for line in p.stderr.splitlines() if line.startswith("inexflow:")] for p in (fast, general)]
    assert fast.stdout == general.stdout and said[0] == said[1]
    assert "duplicate result" in fast.stderr and "1 topic not in the assessments is ignored: 99" in fast.stderr


def test_document_scoring_imports_no_pandas(tmp_path):
    q = write(tmp_path / "q.trec", random_case(1)[2])
    r = write(tmp_path / "r.run", random_case(1)[3])
    # the same run with document ids that are numbers (read as numbers, not encoded)
    n = write(tmp_path / "n.run", random_case(1)[3].replace(" d", " 1"))
    code = ("import sys; from inexflow.front.cli import main; "
            f"main(['score', '--family', 'trec', '-q', '--assessments', {str(q)!r}, {str(r)!r}, {str(n)!r}]); "
            "assert 'pandas' not in sys.modules, 'pandas imported'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    assert p.returncode == 0, p.stderr
    assert "\nmap                   \t1\t" in p.stdout


def test_passage_families_refuse_trec_qrels(tmp_path):
    q = write(tmp_path / "q.trec", "1 0 a 1\n")
    r = write(tmp_path / "r.run", "1 Q0 a 1 1 x 0 10\n")
    p = run_cli("score", "--task", "focused", "--family", "passage", "--assessments", q, r)
    assert p.returncode == 2 and "family passage needs highlighted passages" in p.stderr
    assert "give FOL qrels (topic Q0 doc rel_chars doc_chars" in p.stderr


def test_trec_family_on_fol_qrels_reads_documents(tmp_path):
    # FOL qrels at document level: A and B relevant (highlighted text), D judged non-relevant
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n1 Q0 B 50 300 0 10:50\n1 Q0 D 0 200\n")
    r = write(tmp_path / "r.run", "1 Q0 D 1 3 x 0 10\n1 Q0 A 2 2 x 0 10\n1 Q0 A 3 1 x 20 10\n")
    v = parse_out(run_cli("score", "--task", "focused", "--family", "trec", "--format", "trec", "--assessments", q,
                          "-q", r, check=0).stdout)
    assert v[("num_ret", "1")] == 2 and v[("num_rel_ret", "1")] == 1  # A counted once, at rank 2
    assert v[("map", "1")] == pytest.approx((1 / 2) / 2)


def test_convert_a_trec_run_to_fol(tmp_path):
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n1 Q0 B 50 300 0 10:50\n")
    r = write(tmp_path / "r.trec", "1 Q0 B 2 1.5 myrun\n1 Q0 A 1 2.5 myrun\n")
    p = run_cli("convert", "--assessments", q, r, check=0)
    assert p.stdout == "1 Q0 A 1 2.5 myrun 0 500\n1 Q0 B 2 1.5 myrun 0 300\n"  # whole documents, rank order
    out = write(tmp_path / "r.fol", p.stdout)
    v = parse_out(run_cli("score", "--task", "focused", "--assessments", q, "-q", out, check=0).stdout)
    assert v[("ret_size", "1")] == 800 and v[("rel_ret_size", "1")] == 150


def test_convert_a_document_the_qrels_do_not_list(tmp_path):
    """FOL qrels give only the lengths of the documents they list (the 2009-2010 qrels the
    relevant ones alone): a run with another document is one error line saying so and what to
    pass; the collection gives the lengths the qrels lack."""
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "m.trec", "1 Q0 A 1 2.5 myrun\n1 Q0 Z 2 2.0 myrun\n1 Q0 Y 3 1.5 myrun\n")
    p = run_cli("convert", "--assessments", q, r)
    errors = [line for line in p.stderr.splitlines() if line.startswith("inexflow: error:")]
    assert p.returncode == 2 and p.stdout == "" and len(errors) == 1, p.stderr
    assert errors[0] == ("inexflow: error: " + str(r) + ":line 2: whole-document result Z has no known length: FOL qrels "
                         "give the lengths of the documents they list only, and not this one; 2 such results in the run "
                         "(expected the collection, which gives every document's length: --collection DIR, the "
                         "config's collection key, or collection= in Python)")
    (tmp_path / "c").mkdir()
    for doc, text in (("Z", "z" * 40), ("Y", "y" * 7)):
        write(tmp_path / "c" / f"{doc}.xml", f"<article><p>{text}</p></article>")
    p = run_cli("convert", "--assessments", q, "--collection", tmp_path / "c", r, check=0)
    assert p.stdout == "1 Q0 A 1 2.5 myrun 0 500\n1 Q0 Z 2 2.0 myrun 0 40\n1 Q0 Y 3 1.5 myrun 0 7\n"
    p = run_cli("convert", "--collection", tmp_path / "c", write(tmp_path / "zy.trec", "1 Q0 Z 1 2.0 x\n1 Q0 Y 2 1.5 x\n"),
                check=0)
    assert p.stdout == "1 Q0 Z 1 2.0 x 0 40\n1 Q0 Y 2 1.5 x 0 7\n"


@pytest.mark.parametrize("command", [["convert", "--assessments"], ["score", "--task", "focused", "--assessments"]])
def test_a_result_without_a_range_is_one_plain_line(tmp_path, command):
    """An element result (or a whole document) without its character range: one line naming
    it, what gives the range and how to pass it, no parentheses inside the expectation."""
    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "e.run", "1 Q0 A 1 1.0 r /article[1]\n")
    p = run_cli(*command, q, r)
    errors = [line for line in p.stderr.splitlines() if line.startswith("inexflow: error:")]
    assert p.returncode == 2 and len(errors) == 1, p.stderr
    assert errors[0] == (f"inexflow: error: {r}:line 1: element result A/article[1] has no character range (expected "
                         "the collection, which resolves elements to character ranges: --collection DIR, the "
                         "config's collection key, or collection= in Python)")
