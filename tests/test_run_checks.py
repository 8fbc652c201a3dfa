"""What an organiser is warned of about a run (inexflow.model.run_checks), and the summaries
written for reading."""
import numpy as np
import pandas as pd

from inexflow.io.tables import write_tsv
from inexflow.model.run_checks import outside_topic_set, run_warnings, to_log
from inexflow.model.runs import read_run


def results(rows):
    """A canonical result table from (topic, doc, offset, length, rsv) rows."""
    df = pd.DataFrame(rows, columns=["topic", "doc", "offset", "length", "rsv"])
    df["xpath"] = ""
    df["rank"] = df.groupby("topic").cumcount() + 1
    df["line"] = np.arange(1, len(df) + 1)
    return df[["topic", "doc", "xpath", "offset", "length", "rank", "rsv", "line"]]


def test_a_plain_run_has_no_warning():
    r = results([("1", "a", 0, 10, 3.0), ("1", "b", 0, 10, 2.0), ("2", "a", 5, 5, 1.0)])
    assert run_warnings(r, ["1", "2"], 1500) == []


def test_topics_outside_the_topic_set_are_named_in_topic_order():
    r = results([(t, "a", 0, 10, 1.0) for t in ["3", "10", "2", "1", "11", "12", "13", "20"]])
    assert outside_topic_set(r, ["1", "2", "3", "10", "11", "12", "13", "20", "21"], "topics.xml") == []
    assert outside_topic_set(r, ["1", "2", "3", "10"], "topics.xml") == [
        "answers 4 topics not in the topic set topics.xml: 11, 12, 13, 20; scored where they are assessed, as the "
        "official tool does (topic_subset restricts the topics scored)"]
    assert outside_topic_set(r, ["4"], "t.xml")[0].startswith(
        "answers 8 topics not in the topic set t.xml: 1, 2, 3, 10, 11 and 3 more; scored")


def test_topics_assessed_but_not_answered_are_counted_with_what_c_changes():
    r = results([("1", "a", 0, 10, 3.0), ("1", "b", 0, 10, 2.0)])
    assert run_warnings(r, ["1", "2", "3", "4"], 1500) == [
        "answers 1 of the 4 assessed topics: its means are over the topics it answers (the official tool's "
        "default); with all_qrels_topics: true (-c) the 3 others count as 0"]
    assert run_warnings(r, ["1", "2"], 1500, all_qrels_topics=True) == [
        "answers 1 of the 2 assessed topics: the 1 other counts as 0 (all_qrels_topics: true)"]
    assert run_warnings(r, ["1"], 1500) == []  # a topic answered but not assessed is not one missing


def test_longer_lists_than_the_task_allows_repeats_and_ties():
    r = results([("1", "a", 0, 10, 1.0), ("1", "b", 0, 10, 1.0), ("1", "a", 0, 10, 1.0),
                 ("2", "a", 0, 10, 5.0), ("2", "c", 0, 10, 5.0)])
    got = run_warnings(r, ["1", "2"], 2)
    assert got == [
        "1 topic with more than 2 results (most: 3 on topic 1), more than the task allows (max_list_length); "
        "every result is scored, as the official tool does",
        "1 repeated result (the same topic, document and element or passage): every line is scored, as the "
        "official tools do",
        "every topic's results share one score (all tied): their order is the tie-break's (the ranks, the file, "
        "or for the trec measures the document ids), not the system's"]
    # exactly the limit is no warning; one topic with distinct scores is not all tied; no scores is not tied
    assert run_warnings(r.iloc[[0, 1, 3, 4]].assign(rsv=[2.0, 1.0, 5.0, 5.0]), ["1", "2"], 2) == []
    assert run_warnings(r.iloc[[0, 1]].assign(rsv=np.nan), ["1"], 2) == []


def test_a_repeated_result_is_logged_once_and_counted_in_the_summary(tmp_path, caplog):
    """The reader names the first repeated line; the stage's log leaves out run_warnings' count of
    them (to_log), which the summaries' warnings column keeps."""
    path = tmp_path / "g-focused.txt"
    path.write_text("1 Q0 a 1 3 r 0 10\n1 Q0 b 2 2 r 0 10\n1 Q0 a 3 1 r 0 10\n")
    with caplog.at_level("WARNING"):
        run = read_run(path, task="focused")
    warnings = run_warnings(run.results, ["1"], 1500)
    logged = [r.getMessage() for r in caplog.records] + to_log(warnings, run.results)
    assert [m for m in logged if "repeated" in m or "duplicate" in m] == [
        f"{path}:line 3: duplicate result: topic 1 doc a 0:10 already on line 1 (1 repeated result in the run; the "
        "INEX families read each line, as the official tools do, where the task allows overlap; document measures "
        "count a document once, at its highest-scoring line, where trec_eval stops)"]
    assert any(w.startswith("1 repeated result") for w in warnings)


def test_readable_tsv_has_four_decimals_and_integer_counts(tmp_path):
    df = pd.DataFrame({"rank": [1, 2], "run": ["a", "b"], "MAiP": [0.123456789, 0.1], "num_rel": [59.0, 60.0],
                       "warnings": ["", "answers 1 of the 2 assessed topics"]})
    write_tsv(df, tmp_path / "t.tsv", digits=4, counts={"rank", "num_rel"})
    assert (tmp_path / "t.tsv").read_text().splitlines() == [
        "rank\trun\tMAiP\tnum_rel\twarnings", "1\ta\t0.1235\t59\t", "2\tb\t0.1000\t60\tanswers 1 of the 2 assessed topics"]
    write_tsv(df, tmp_path / "exact.tsv")
    assert "0.123456789\t59.0" in (tmp_path / "exact.tsv").read_text()


def test_a_summary_spreads_the_measures_of_fixed_labels_over_the_quantisations():
    from inexflow.analysis.aggregate import task_summary

    rows = []
    for run, scale in (("a", 1.0), ("b", 0.5)):
        for q, v in (("strict", 0.2), ("liberal", 0.3)):
            rows.append((run, "all", "CO", q, "P[10]", v * scale))
        rows.append((run, "all", "CO", "-", "overlap[10]", 0.5 * scale))  # the cutoff family's set overlap
    df = pd.DataFrame(rows, columns=["run", "topic", "task", "quant", "measure", "value"])
    s = task_summary(df, "CO", "P[10]", {"a": "g1", "b": "g2"})
    assert list(zip(s["run"], s["quant"], s["P[10]"], s["overlap[10]"], s["rank"])) == [
        ("a", "liberal", 0.3, 0.5, 1), ("b", "liberal", 0.15, 0.25, 2),
        ("a", "strict", 0.2, 0.5, 1), ("b", "strict", 0.1, 0.25, 2)]
