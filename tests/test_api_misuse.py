"""The Python API's answers to arguments of the wrong kind: one UsageError saying what to pass,
never an AttributeError or a path made of a DataFrame's columns."""
import pandas as pd
import pytest

import inexflow
from conftest import write
from inexflow.errors import UsageError


@pytest.fixture
def files(tmp_path):
    return (write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n2 Q0 C 10 300 0 0:10\n"),
            write(tmp_path / "r.run", "1 Q0 A 1 2 x 0 50\n1 Q0 B 2 1 x 0 100\n2 Q0 C 1 1 x 0 10\n"))


def test_one_family_may_be_named_as_one_measure_may(files):
    q, r = files
    assert inexflow.evaluate(q, r, "MAiP", task="focused", families="passage").equals(
        inexflow.evaluate(q, r, "MAiP", task="focused", families=["passage"]))


@pytest.mark.parametrize("call,message", [
    (lambda q, r: inexflow.evaluate(q, r, "MAiP", task="focused", per_topic="yes"),
     "inexflow.evaluate per_topic: 'yes' is not True or False"),
    (lambda q, r: inexflow.evaluate(q, r, "MAiP", task="focused", families=3),
     "inexflow.evaluate families: 3 is not a name or a list of names"),
    (lambda q, r: inexflow.evaluate(q, None, "MAiP", task="focused"), "read_run: NoneType None is not a path"),
    (lambda q, r: inexflow.evaluate(q, [1, 2, 3], "MAiP", task="focused"), "read_run: list [1, 2, 3] is not a path"),
    (lambda q, r: inexflow.read_assessments(pd.DataFrame({"query_id": ["1"]})),
     "read_assessments: a DataFrame is not a path (or a list of paths; a DataFrame: inexflow.assessments_from_frame"),
    (lambda q, r: inexflow.Session.build(str(q), "focused"), "Session.build: str"),
    (lambda q, r: inexflow.Session.build(inexflow.read_assessments(q), "focused").score(str(r)), "Session.score: str"),
    (lambda q, r: inexflow.evaluate(q, r, "MAiP", task="foccused"),
     "task: unknown task 'foccused' (did you mean 'focused'?): one of thorough, focused,"),
    (lambda q, r: inexflow.evaluate(pd.DataFrame(columns=["query_id", "doc_id", "relevance"]), r, task="focused"),
     "assessments DataFrame has no rows (expected one row per judgement)"),
])
def test_an_argument_of_the_wrong_kind_is_one_usage_error_saying_what_to_pass(files, call, message):
    with pytest.raises(UsageError) as e:
        call(*files)
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_an_ir_measures_task_is_checked_when_the_measure_is_made():
    pytest.importorskip("ir_measures")
    from inexflow.irmeasures import INEX

    for make in (lambda: INEX("MAiP", "fcused"), lambda: INEX("MAiP") @ "fcused"):
        with pytest.raises(UsageError, match=r"INEX: unknown task 'fcused' \(did you mean 'focused'\?\)"):
            make()
