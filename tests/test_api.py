"""The notebook API: inexflow.evaluate on paths and DataFrames gives the numbers of
``inexflow score`` (and so of the official tool); DataFrame errors name the row."""
import doctest

import pandas as pd
import pytest

from conftest import score_values, write
from inexflow.errors import InputError, UsageError

QRELS = "1 Q0 A 100 500 -1 0:100\n1 Q0 B 50 300 -1 10:50\n2 Q0 A 30 500 -1 5:30\n2 Q0 D 0 200\n"
RUN = "1 Q0 A 1 2.0 r 0 100\n1 Q0 C 2 1.0 r 0 40\n2 Q0 D 1 3.0 r 0 50\n2 Q0 A 2 2.0 r 0 20\n"


def frames():
    q = pd.DataFrame({"query_id": [1, 1, 2, 2], "doc_id": ["A", "B", "A", "D"], "offset": [0, 10, 5, None],
                      "length": [100, 50, 30, 0], "doc_length": [500, 300, 500, 200]})
    r = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["A", "C", "D", "A"], "score": [2.0, 1.0, 3.0, 2.0],
                      "offset": [0, 0, 0, 0], "length": [100, 40, 50, 20]})
    return q, r


def test_docstring_example_runs():
    import inexflow.front.api

    assert doctest.testmod(inexflow.front.api).failed == 0


def test_by_hand():
    import inexflow

    q, r = frames()
    got = inexflow.evaluate(q, r, ["MAiP", "AiP"], task="focused", per_topic=True)
    aip = dict(zip(got["topic"], got["value"]))
    # topic 1: precision 1 up to recall 100/150 -> 67 of 101 levels
    assert aip["1"] == pytest.approx(67 / 101)
    # topic 2: D (judged non-relevant) 50 chars first, then A 0:20 covers 15 of the 30 relevant (5..20):
    # recall .5 reached with precision 15/70 -> levels 0.00..0.50 (51 levels)
    assert aip["2"] == pytest.approx(51 / 101 * 15 / 70)
    assert aip["all"] == pytest.approx((aip["1"] + aip["2"]) / 2)


def test_dataframes_paths_and_cli_agree(tmp_path):
    import inexflow

    q, r = frames()
    qp, rp = write(tmp_path / "q.fol", QRELS), write(tmp_path / "r.run", RUN)
    from_frames = inexflow.evaluate(q, r, task="focused", per_topic=True)
    from_paths = inexflow.evaluate(qp, rp, task="focused", per_topic=True)
    pd.testing.assert_frame_equal(from_frames, from_paths)
    cli = score_values(tmp_path, QRELS, RUN, "--task", "focused")
    assert {(m, t): v for t, m, v in zip(from_paths.topic, from_paths.measure, from_paths.value)} == cli


def test_measure_names_are_checked():
    import inexflow

    q, r = frames()
    with pytest.raises(UsageError, match="inexflow.evaluate measures: .MAIP. is not a measure of the families passage"):
        inexflow.evaluate(q, r, ["MAIP"], task="focused")


def test_dataframe_errors_name_the_row():
    import inexflow

    q, r = frames()
    with pytest.raises(InputError, match=r"<run DataFrame>:row 1: negative offset or length"):
        inexflow.evaluate(q, r.assign(length=[100, -4, 50, 20]), task="focused")
    with pytest.raises(UsageError, match="run DataFrame has no column doc_id"):
        inexflow.evaluate(q, r.drop(columns="doc_id"), task="focused")
    bad = q.assign(offset=[0, 10, 5, 3], length=[100, 50, 30, 40])
    bad.loc[len(bad)] = [1, "A", 50, 10, 500]  # overlaps A's 0:100
    with pytest.raises(InputError, match=r"<assessments DataFrame>:query 1 doc A: passages 0:100 and 50:10 overlap"):
        inexflow.evaluate(bad, r, task="focused")
