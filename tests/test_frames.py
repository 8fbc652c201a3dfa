"""DataFrames and ir_measures both ways (issue 33, point 3): TREC-shaped frames, ir_measures' qrels
and run objects and files give inexflow.evaluate and the ir_measures provider the numbers of
``inexflow score --family trec`` on the same data written as files, of pytrec_eval and of hand
working; FOL frames give the tables of the FOL reader; measure strings parse; frame errors are one
UsageError line naming the row or column."""
import math
import re

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, score_values, write
from inexflow.errors import InputError, UsageError

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")

# hand-worked: topic 1 retrieves A (grade 2), C (1), X (unjudged): AP = (1/1 + 2/2) / 2 = 1;
# topic 2 retrieves D (0) then A (1): AP = (1/2) / 1 = 0.5, nDCG = (1/log2 3) / 1; map = 0.75
QRELS = "1 0 A 2\n1 0 B 0\n1 0 C 1\n2 0 A 1\n2 0 D 0\n"
RUN = "1 Q0 A 1 3 r\n1 Q0 C 2 2 r\n1 Q0 X 3 1 r\n2 Q0 D 1 5 r\n2 Q0 A 2 4 r\n"


def small():
    q = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["A", "B", "C", "A", "D"],
                      "relevance": [2, 0, 1, 1, 0]})
    r = pd.DataFrame({"query_id": ["1", "1", "1", "2", "2"], "doc_id": ["A", "C", "X", "D", "A"],
                      "score": [3.0, 2.0, 1.0, 5.0, 4.0]})
    return q, r


def random_trec(seed=7, topics=6, docs=40):
    """Graded qrels and a run with tied scores (trec_eval breaks ties by descending doc id) and
    unjudged documents; integer query ids, ranks in the run that trec_eval ignores."""
    rng = np.random.default_rng(seed)
    qrows, rrows = [], []
    for t in range(1, topics + 1):
        for d in rng.choice(docs, size=docs // 2, replace=False):
            qrows.append((t, f"d{d}", int(rng.integers(-1, 4))))
        for k, d in enumerate(rng.choice(docs + 10, size=25, replace=False), 1):
            rrows.append((t, f"d{d}", k, float(rng.integers(0, 8))))
    q = pd.DataFrame(qrows, columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame(rrows, columns=["query_id", "doc_id", "rank", "score"])
    return q, r


def trec_files(tmp_path, q, r):
    qp = write(tmp_path / "qrels.txt", "".join(f"{a} 0 {b} {c}\n" for a, b, c in q.itertuples(index=False)))
    rp = write(tmp_path / "run.txt", "".join(f"{a} Q0 {b} {k} {s!r} r\n" for a, b, k, s in r.itertuples(index=False)))
    return qp, rp


def trec_measures():
    """The trec family's measures, from the registry (more may be added)."""
    from inexflow.measures.registry import measure_names
    from inexflow.model.options import Options

    return measure_names(["trec"], Options().as_dict())


def as_dict(table):
    return {(m, str(t)): v for t, m, v in zip(table["topic"], table["measure"], table["value"])}


def test_by_hand():
    import inexflow

    q, r = small()
    got = inexflow.evaluate(q, r, ["map", "ndcg", "P_5"], per_topic=True)
    v = as_dict(got)
    assert v["map", "1"] == 1.0 and v["map", "2"] == 0.5 and v["map", "all"] == 0.75
    assert v["ndcg", "2"] == pytest.approx(1 / math.log2(3))
    assert v["P_5", "1"] == pytest.approx(2 / 5)


def test_trec_frames_are_pytrec_eval():
    import inexflow

    q, r = random_trec()
    got = as_dict(inexflow.evaluate(q, r, per_topic=True))
    qd, rd = {}, {}
    for a, b, c in q.itertuples(index=False):
        qd.setdefault(str(a), {})[b] = c
    for a, b, _, s in r.itertuples(index=False):
        rd.setdefault(str(a), {})[b] = s
    # trec_eval 9 (pytrec_eval) rounds recall levels otherwise than 10 (tests/test_trec_measures.py);
    # gm_map has no per-topic value
    names = [m for m in trec_measures() if (m.split("_")[0] in pytrec_eval.supported_measures
             or m in pytrec_eval.supported_measures) and not m.startswith(("iprec_at_recall", "11pt", "gm_"))]
    assert {"map", "ndcg", "Rprec", "P_10", "num_rel_ret"} <= set(names)
    ref = pytrec_eval.RelevanceEvaluator(qd, set(names)).evaluate(rd)
    assert ref
    assert got["num_q", "all"] == len(ref)  # a count over the topics only
    per_topic = [m for m in names if m != "num_q"]
    for t, vals in ref.items():
        for m in per_topic:
            assert got[m, t] == pytest.approx(vals[m], abs=1e-12), (m, t)


def test_trec_frames_are_the_cli_on_files(tmp_path):
    import inexflow

    q, r = random_trec(seed=3)
    qp, rp = trec_files(tmp_path, q, r)
    # no --task: document scoring; every measure at full precision
    cli = score_values(tmp_path, qp.read_text(), rp.read_text(), "--format", "trec", "-m", "all_trec",
                       "-m", "Judged", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap")
    assert {m for m, _ in cli} >= set(trec_measures())
    assert as_dict(inexflow.evaluate(q, r, per_topic=True)) == cli
    # the files themselves, and the frames without ranks (trec_eval ignores them), give the same
    assert as_dict(inexflow.evaluate(qp, rp, per_topic=True)) == cli
    assert as_dict(inexflow.evaluate(q, r.drop(columns="rank").assign(run_id="x", iteration="Q0"),
                                     per_topic=True)) == cli


def test_ir_measures_objects_and_files(tmp_path):
    import inexflow
    from inexflow.irmeasures import INEX, read_qrels, read_run

    q, r = random_trec(seed=5)
    qp, rp = trec_files(tmp_path, q, r)
    want = inexflow.evaluate(q, r, ["map", "P_10", "ndcg", "Rprec"])
    for qrels, run in [(ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp))),
                       (list(ir_measures.read_trec_qrels(str(qp))), list(ir_measures.read_trec_run(str(rp)))),
                       (ir_measures.util.QrelsConverter(q.assign(query_id=q.query_id.astype(str))).as_dict_of_dict(),
                        ir_measures.util.RunConverter(r.assign(query_id=r.query_id.astype(str))).as_dict_of_dict()),
                       (read_qrels(qp), read_run(rp)), (qp, rp)]:
        got = inexflow.evaluate(qrels, run, ["map", "P_10", "ndcg", "Rprec"])
        pd.testing.assert_frame_equal(got, want)
    ms = [INEX("map"), INEX(measure="P_10"), INEX("ndcg"), INEX("Rprec")]
    ours = ir_measures.calc_aggregate(ms, ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)))
    by_name = dict(zip(want["measure"], want["value"]))  # (the trec family lists them in trec_eval's order)
    assert [ours[m] for m in ms] == pytest.approx([by_name[n] for n in ("map", "P_10", "ndcg", "Rprec")], abs=1e-12)
    # beside ir_measures' own measures (pytrec_eval) in one call, on inexflow's readers' frames
    theirs = ir_measures.calc_aggregate([*ms, ir_measures.AP, ir_measures.P @ 10, ir_measures.nDCG,
                                         ir_measures.Rprec], read_qrels(qp), read_run(rp))
    assert [theirs[m] for m in (ir_measures.AP, ir_measures.P @ 10, ir_measures.nDCG, ir_measures.Rprec)] \
        == pytest.approx([theirs[m] for m in ms], abs=1e-12)
    # paths, through the measure's own entry points
    assert INEX("map").calc_aggregate(qp, rp) == pytest.approx(by_name["map"], abs=1e-15)
    assert {m.query_id for m in INEX("map").iter_calc(str(qp), str(rp))} == {str(t) for t in set(r.query_id)}


def test_fol_frames_are_the_fol_reader(tmp_path):
    """A FOL frame gives the FOL reader's tables; a FOL file read back as a frame scores as the file."""
    import inexflow
    from inexflow.front.frames import assessments_from_frame
    from inexflow.irmeasures import INEX, read_qrels, read_run
    from inexflow.model.assessments import read_assessments

    text = "1 Q0 A 150 500 5 0:100 200:50\n1 Q0 B 50 300 10 10:50\n2 Q0 A 30 500 -1 5:30\n2 Q0 D 0 200\n"
    qp = write(tmp_path / "q.fol", text)
    rp = write(tmp_path / "r.run", "1 Q0 A 1 2.0 r 0 100\n1 Q0 C 2 1.0 r 0 40\n2 Q0 D 1 3.0 r 0 50\n")
    frame = read_qrels(qp)
    assert list(frame.columns) == ["query_id", "doc_id", "offset", "length", "doc_length", "bep", "relevance"]
    from_file, from_frame = read_assessments(qp), assessments_from_frame(frame)
    assert from_frame.scale == "fol"
    pd.testing.assert_frame_equal(from_frame.documents, from_file.documents)
    pd.testing.assert_frame_equal(from_frame.passages, from_file.passages)
    want = inexflow.evaluate(qp, rp, task="focused", per_topic=True)
    pd.testing.assert_frame_equal(inexflow.evaluate(frame, read_run(rp), task="focused", per_topic=True), want)
    maip = INEX("MAiP") @ "focused"
    assert maip.calc_aggregate(qp, rp) == pytest.approx(float(want.query("measure == 'MAiP'")["value"].iloc[0]))


def test_parse():
    from inexflow.irmeasures import INEX, parse

    cases = {"INEX(MAiP)@focused": INEX("MAiP", "focused"),
             "INEX('MAiP', task='focused')": INEX(measure="MAiP", task="focused"),
             "INEX(measure=MAiP, task=CO.Focussed)": INEX("MAiP", task="CO.Focussed"),
             "INEX(map)": INEX(measure="map"),
             "INEX(MAgP, beta=0.25)@focused": INEX("MAgP", "focused", beta=0.25),
             "INEX(iP[0.01], quantisations=(gen,))@focused": INEX("iP[0.01]", "focused", quantisations=("gen",))}
    for text, m in cases.items():
        assert parse(text) == m, text
        assert parse(repr(m)) == m  # repr is what parse reads
    assert repr(INEX("MAiP") @ "focused") == "INEX(MAiP)@focused"
    assert parse("P@10") == ir_measures.P @ 10  # not inexflow's: ir_measures' own
    for bad, msg in [("INEX()@focused", "no measure name"), ("INEX(MAiP, x=1)", "unknown parameter x"),
                     ("INEX(MAiP, task=focused)@thorough", "task given twice")]:
        with pytest.raises(UsageError, match=msg):
            parse(bad)


@pytest.mark.parametrize("change, message", [
    (lambda q, r: (q.drop(columns="relevance"), r), r"assessments DataFrame has neither relevance nor offset and "
                                                     r"length \(has query_id, doc_id\)"),
    (lambda q, r: (q.assign(relevance=["2", "x", "1", "1", "0"]), r),
     r"<assessments DataFrame>:row 1: relevance 'x' is not a number \(expected an integer\)"),
    (lambda q, r: (q.assign(relevance=[2, 0.5, 1, 1, 0]), r), r"<assessments DataFrame>:row 1: relevance 0.5 is not "
                                                              r"an integer"),
    (lambda q, r: (q.assign(doc_id=["A", "B\nC", "C", "A", "D"]), r),
     r"<assessments DataFrame>:row 1: doc_id 'B\\nC' is empty or holds whitespace"),
    (lambda q, r: (q.assign(doc_id=["A", "A", "C", "A", "D"]), r),
     r"<assessments DataFrame>:row 1: query 1 doc A is judged twice \(first on row 0\)"),
    (lambda q, r: (q.assign(query_id=[1.0, 1.0, 1.0, 2.0, 2.0]), r), r"has float64 values in column query_id"),
    (lambda q, r: (q, r.assign(score=[3.0, math.nan, 1.0, 5.0, 4.0])), r"<run DataFrame>:row 1: score is missing"),
    (lambda q, r: (q, r.assign(score=[3.0, math.inf, 1.0, 5.0, 4.0])), r"<run DataFrame>:row 1: score inf is not a "
                                                                       r"finite number"),
    (lambda q, r: (q, r.drop(columns="score")), r"run DataFrame has neither rank nor score"),
    (lambda q, r: (q, r.drop(columns="doc_id")), r"run DataFrame has no column doc_id"),
    (lambda q, r: (q, r.assign(doc_id=[None, "C", "X", "D", "A"])), r"<run DataFrame>:row 0: doc_id is missing"),
    (lambda q, r: (q, r.assign(rank=[1, 2, 2.5, 1, 2])), r"<run DataFrame>:row 2: rank 2.5 is not an integer"),
    (lambda q, r: (q, r.iloc[:0]), r"run DataFrame has no rows"),
])
def test_frame_errors_are_one_line(change, message):
    import inexflow

    q, r = change(*small())
    with pytest.raises(UsageError, match=message) as e:
        inexflow.evaluate(q, r, ["map"])
    assert isinstance(e.value, InputError) and "\n" not in str(e.value).replace("\\n", "")


def test_task_is_needed_only_for_documents():
    import inexflow

    q = pd.DataFrame({"query_id": ["1"], "doc_id": ["A"], "offset": [0], "length": [10], "doc_length": [100]})
    r = pd.DataFrame({"query_id": ["1"], "doc_id": ["A"], "score": [1.0]})
    with pytest.raises(UsageError, match="task is required"):
        inexflow.evaluate(q, r)
    # the trec family on FOL qrels: documents with highlighted text are relevant
    assert inexflow.evaluate(q, r, ["map"], families=["trec"])["value"].tolist() == [1.0]


def test_a_real_run_with_a_topic_in_two_blocks_as_a_frame(tmp_path):
    # bert-focused.run lists topic 2009079 twice: the frame keeps the file's order, so the
    # frame path scores it as the file path (and the official tool) does
    import inexflow
    from inexflow.irmeasures import INEX, read_qrels, read_run

    data = ROOT / "tests" / "data" / "inex2009-2010"
    q, r = data / "qrels-2009-2010.fol.gz", data / "runs" / "bert-focused.run.gz"
    want = inexflow.evaluate(q, r, ["MAiP"], task="focused")["value"].iloc[0]
    assert INEX("MAiP", "focused").calc_aggregate(read_qrels(q), read_run(r)) == want


def test_ir_measures_takes_trec_measures_at_any_parameter():
    from inexflow.irmeasures import INEX

    q, r = random_trec(seed=7)
    # string ids and distinct scores for ir_measures' own (pytrec_eval: 32-bit float ties)
    q, r = q.assign(query_id=q.query_id.astype(str)), r.assign(query_id=r.query_id.astype(str),
                                                                score=1000.0 - np.arange(len(r)))
    got = ir_measures.calc_aggregate([INEX("P_7"), ir_measures.P @ 7, INEX("ndcg_cut_3"), ir_measures.nDCG @ 3], q, r)
    assert got[INEX("P_7")] == pytest.approx(got[ir_measures.P @ 7], abs=1e-12)
    assert got[INEX("ndcg_cut_3")] == pytest.approx(got[ir_measures.nDCG @ 3], abs=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda q, r: __import__("inexflow").evaluate(q, r, 5), "measures: 5 is not a name or a list of names"),
    (lambda q, r: __import__("inexflow").evaluate(q, r, ["map"], task=5), "task: 5 is not a name"),
    (lambda q, r: __import__("inexflow").evaluate(q, {"1": 5}), "query '1': maps to int 5"),
    (lambda q, r: __import__("inexflow").evaluate(q, r.assign(query_id=[["1"]] * len(r))),
     "query_id holds list ['1']"),
])
def test_python_inputs_of_the_wrong_kind_are_one_line(call, message):
    from inexflow.errors import UsageError

    q, r = random_trec(seed=2)
    with pytest.raises(UsageError, match=re.escape(message)):
        call(q, r)


def test_ir_measures_measures_of_the_wrong_kind_are_one_line():
    from inexflow.errors import UsageError
    from inexflow.irmeasures import INEX, parse

    for make, message in [(lambda: INEX("map", bogus=1), "unknown parameter bogus"),
                          (lambda: INEX(5), "measure 5 is not a name"),
                          (lambda: parse("INEX(MAiP"), "cannot parse measure 'INEX(MAiP'")]:
        with pytest.raises(UsageError, match=re.escape(message)):
            make()


def test_a_frames_results_are_named_by_their_rows(tmp_path, caplog):
    """A message about a result of a run DataFrame names its row (its position, from 0, as the
    frames' own errors do), where the same run as a file names its line: a topic in two blocks."""
    import inexflow
    from inexflow.irmeasures import read_run

    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n2 Q0 C 10 300 0 0:10\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1 x 0 50\n1 Q0 B 2 1 x 0 100\n2 Q0 C 1 1 x 0 10\n"
                                  "1 Q0 A 1 1 x 0 100\n1 Q0 A 2 1 x 100 20\n")
    with caplog.at_level("WARNING", logger="inexflow"):
        from_file = inexflow.evaluate(q, r, task="focused", per_topic=True)
        from_frame = inexflow.evaluate(q, read_run(r), task="focused", per_topic=True)
    said = [rec.getMessage() for rec in caplog.records if "separate blocks" in rec.getMessage()]
    assert len(said) == 2
    assert "topic 1 is listed in 2 separate blocks (lines 1-2, lines 4-5)" in said[0]
    assert said[1].startswith("<run DataFrame>: run ") and "(rows 0-1, rows 3-4)" in said[1], said
    pd.testing.assert_frame_equal(from_frame, from_file)


def test_means_over_the_answered_topics_and_with_all_qrels_topics_as_ir_measures():
    """inexflow averages over the topics a run answers (trec_eval's default), ir_measures over
    every qrels topic; with all_qrels_topics (-c) the two agree."""
    import ir_measures

    from inexflow.irmeasures import INEX

    qrels = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("1", "b", 0), ir_measures.Qrel("2", "c", 1)]
    run = [ir_measures.ScoredDoc("1", "b", 2.0), ir_measures.ScoredDoc("1", "a", 1.0)]  # topic 2 unanswered
    got = ir_measures.calc_aggregate([INEX("map"), INEX("map", all_qrels_topics=True), ir_measures.AP], qrels, run)
    assert got[INEX("map")] == pytest.approx(0.5)  # topic 1 alone: a at rank 2
    assert got[INEX("map", all_qrels_topics=True)] == pytest.approx(got[ir_measures.AP]) == pytest.approx(0.25)
