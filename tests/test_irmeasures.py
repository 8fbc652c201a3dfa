"""inexflow's measures inside ir_measures (inexflow.irmeasures): ir_measures.calc_aggregate and
iter_calc give the official inex_eval v3.1 numbers on the real INEX 2009 run and qrels (its
committed outputs), beside ir_measures' own measures in one call."""
import doctest
import gzip
import math

import pandas as pd
import pytest

from conftest import parse_out

ir_measures = pytest.importorskip("ir_measures")

DATA = __import__("pathlib").Path(__file__).parent / "data" / "inex2009-2010"


def real_frames():
    """The real qrels and bert-focused run as the DataFrames of inexflow.front.api (one qrels row per
    highlighted passage; a judged non-relevant article as offset NaN, length 0)."""
    qrows = []
    with gzip.open(DATA / "qrels-2009-2010.fol.gz", "rt") as fh:
        for line in fh:
            f = line.split()
            passages = [p.split(":") for p in f[6:]] or [(None, 0)]
            for o, n in passages:
                qrows.append((f[0], f[2], float(o) if o is not None else math.nan, int(n), int(f[4]), int(f[5]),
                              int(int(f[3]) > 0)))
    qrels = pd.DataFrame(qrows, columns=["query_id", "doc_id", "offset", "length", "doc_length", "bep", "relevance"])
    with gzip.open(DATA / "runs" / "bert-focused.run.gz", "rt") as fh:
        r = [line.split() for line in fh if line.strip()]
    run = pd.DataFrame({"query_id": [x[0] for x in r], "doc_id": [x[2] for x in r], "rank": [int(x[3]) for x in r],
                        "score": [float(x[4]) for x in r], "offset": [int(x[6]) for x in r],
                        "length": [int(x[7]) for x in r]})
    return qrels, run


@pytest.fixture(scope="module")
def real():
    return real_frames()


@pytest.fixture(scope="module")
def reference():
    with gzip.open(DATA / "reference" / "bert-focused.f.q.out.gz", "rt") as fh:
        return parse_out("".join(line for line in fh if not line.startswith("<eval")))


def test_docstring_example_runs():
    import inexflow.irmeasures

    assert doctest.testmod(inexflow.irmeasures).failed == 0


def test_calc_aggregate_is_the_official_tool(real, reference):
    from inexflow.irmeasures import INEX

    qrels, run = real
    ms = {n: INEX(measure=n, task="focused") for n in ("MAiP", "iP[0.01]", "iP[0.10]", "num_rel_ret")}
    got = ir_measures.calc_aggregate(list(ms.values()), qrels, run)
    for name, m in ms.items():
        assert got[m] == reference[(name, "all")], name  # exactly: the tool's summation order


def test_iter_calc_per_topic_is_the_official_tool(real, reference):
    from inexflow.irmeasures import INEX

    qrels, run = real
    m = INEX(measure="MAiP", task="focused")
    per = {x.query_id: x.value for x in ir_measures.iter_calc([m], qrels, run)}
    tool = {t: v for (name, t), v in reference.items() if name == "AiP" and t != "all"}
    scored = {t: v for t, v in per.items() if not math.isnan(v)}
    assert scored == tool
    # qrels topics the run does not have are NaN (the tool leaves them out of the mean)
    assert set(per) - set(scored) == set(qrels["query_id"]) - set(tool)


def test_beside_ir_measures_own_measures(real):
    """One call with an inexflow measure and pytrec_eval's P@10 (document level, from the
    qrels' relevance column); P@10 checked by hand on the run's first ten distinct articles."""
    from inexflow.irmeasures import INEX

    qrels, run = real
    t = run["query_id"].iloc[0]
    one_q, one_r = qrels[qrels["query_id"] == t], run[run["query_id"] == t]
    p10, maip = ir_measures.P @ 10, INEX(measure="MAiP", task="focused")
    got = ir_measures.calc_aggregate([p10, maip], one_q, one_r.drop_duplicates("doc_id"))
    rel = set(one_q.loc[one_q["relevance"] > 0, "doc_id"])
    top = one_r.drop_duplicates("doc_id").sort_values("score", ascending=False, kind="stable")["doc_id"][:10]
    assert got[p10] == sum(d in rel for d in top) / 10
    assert 0 <= got[maip] <= 1


def test_errors_name_the_measure(real):
    from inexflow.errors import UsageError
    from inexflow.irmeasures import INEX

    qrels, run = real
    with pytest.raises(UsageError, match=r"'MAIP' is not a measure of the families xcg, passage, trec; did you mean MAiP"):
        ir_measures.calc_aggregate([INEX(measure="MAIP", task="focused")], qrels, run)
    with pytest.raises(UsageError, match="sums num_rel over every qrels topic"):
        ir_measures.calc_aggregate([INEX(measure="num_rel", task="RelevantInContext", families=("ric",))], qrels, run)
    with pytest.raises(UsageError, match="aggregated differently by the families of task relevant-in-context"):
        ir_measures.calc_aggregate([INEX(measure="num_rel", task="RelevantInContext")], qrels, run)
