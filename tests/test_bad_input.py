"""Bad input: one clear error naming file, place and problem, exit code 2, no traceback;
warnings for input that is legal but odd."""
import os
import subprocess

import pandas as pd
import pytest

from conftest import cli, mount_small_tmpfs, parse_out, run_cli, run_cli_process, write

QRELS = "1 Q0 A 100 500 0 0:100\n"
DOC = "<article><bdy><p>" + "x" * 100 + "</p><p>" + "y" * 50 + "</p></bdy></article>"


def score(tmp_path, run_text, qrels=QRELS, task="focused", name="r.run", extra=()):
    q = write(tmp_path / "q.fol", qrels)
    r = write(tmp_path / name, run_text)
    return run_cli("score", "--task", task, "--assessments", q, *extra, r)


def assert_error(p, *fragments):
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("inexflow: error: ")]
    assert len(errors) == 1 and all(line.startswith("inexflow: ") for line in p.stderr.splitlines()), p.stderr
    for f in fragments:
        assert f in errors[0], (f, p.stderr)


def test_malformed_xml_run(tmp_path):
    p = score(tmp_path, '<inex-submission run-id="x" task="Focused">\n<topic topic-id="1">\n<result>\n</topic>',
              name="r.xml")
    assert_error(p, "r.xml:line", "malformed XML")


def test_missing_field_in_xml_run(tmp_path):
    p = score(tmp_path, '<inex-submission run-id="x" task="Focused"><topic topic-id="1">\n'
              '<result><path>/article[1]</path></result></topic></inex-submission>', name="r.xml")
    assert_error(p, "r.xml:line 2 <result>", "missing child element <file>")


def test_wrong_number_of_columns(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n1 Q0 A 2 0.5 r 20\n")
    assert_error(p, "r.run:line 2", "7 columns", "8 as on the first line")


def test_extra_column(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n1 Q0 A 2 0.5 r 20 10 99\n")
    assert_error(p, "r.run:line 2", "9 columns", "8 as on the first line")


def test_blank_lines_keep_line_numbers(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n\n1 Q0 A 2 0.5 r 20 x\n")
    assert_error(p, "r.run:line 3", "length 'x' is not an integer")


def test_negative_length(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 -10\n")
    assert_error(p, "r.run:line 1", "negative offset or length")


def test_non_numeric_rank(tmp_path):
    p = score(tmp_path, "1 Q0 A first 1.0 r 0 10\n")
    assert_error(p, "r.run:line 1", "rank 'first' is not an integer")


def test_run_topics_absent_from_assessments(tmp_path):
    p = score(tmp_path, "7 Q0 A 1 1.0 r 0 10\n")
    assert_error(p, "r.run", "the run's 1 topic is not in the assessments")


def test_unknown_topic_is_a_warning(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n7 Q0 A 1 1.0 r 0 10\n")
    assert p.returncode == 0
    assert "1 topic not in the assessments is ignored: 7" in p.stderr


def test_duplicate_result_is_a_warning_and_scored(tmp_path):
    # thorough: both lines are read; in the relevant article A the repeat adds no new
    # characters (0 of 0), in the non-relevant B it counts in full again (official tool's -t)
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n1 Q0 A 2 0.5 r 0 10\n1 Q0 B 3 0.4 r 0 10\n1 Q0 B 4 0.3 r 0 10\n",
              task="thorough", extra=["-q"])
    assert p.returncode == 0
    assert "r.run:line 2: duplicate result: topic 1 doc A 0:10 already on line 1" in p.stderr
    assert "rel_ret_size\t1\t10\n" in p.stdout and "ret_size\t1\t30\n" in p.stdout


def test_document_missing_from_collection(tmp_path):
    write(tmp_path / "c" / "A.xml", DOC)
    p = score(tmp_path, "1 Q0 B 1 1.0 r /article[1]\n", extra=["--collection", tmp_path / "c"])
    assert_error(p, "document B", "not found in the collection")


def test_element_not_in_document(tmp_path):
    write(tmp_path / "c" / "A.xml", DOC)
    p = score(tmp_path, "1 Q0 A 1 1.0 r /article[1]/bdy[1]/p[7]\n", extra=["--collection", tmp_path / "c"])
    assert_error(p, "r.run:line 1", "element A/article[1]/bdy[1]/p[7]", "does not exist")


def test_element_run_without_collection(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r /article[1]\n")
    assert_error(p, "r.run:line 1", "has no character range", "collection")


def test_element_run_on_fol_with_collection_scores(tmp_path):
    write(tmp_path / "c" / "A.xml", DOC)
    p = score(tmp_path, "1 Q0 A 1 1.0 r /article[1]/bdy[1]/p[1]\n1 Q0 A 2 0.5 r /article[1]/bdy[1]/p[2]\n",
              extra=["--collection", tmp_path / "c", "-q"])
    assert p.returncode == 0, p.stderr
    # p[1] is exactly the highlighted [0, 100): P = 1 until recall 1
    v = parse_out(p.stdout)
    assert v[("AiP", "1")] == 1.0 and v[("ret_size", "1")] == 150


def test_bad_fol_qrels(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n", qrels="1 Q0 A 100 500 0 0-100\n")
    assert_error(p, "q.fol:line 1", "passage '0-100' is not offset:length")
    # a 4-column line among FOL lines (alone, "1 Q0 A 100" is TREC qrels, as trec_eval reads it)
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n", qrels="1 Q0 A 100\n1 Q0 B 100 500 0 0:100\n")
    assert_error(p, "q.fol:line 1", "4 columns", "at least 5", "--assessments-format trec")


@pytest.mark.parametrize("element,message", [
    ('<element path="/article[1]" exhaustivity="2" rsize="5"/>', "has no size"),
    ('<element path="/article[1]" exhaustivity="3" size="10" rsize="5"/>', "exhaustivity '3' outside the 2005 scale"),
    ('<element path="/article[1]" exhaustivity="2" size="10" rsize="15"/>', "rsize 15 larger than size 10"),
])
def test_bad_2005_element(tmp_path, element, message):
    q = write(tmp_path / "a.xml", f'<assessments topic="1"><file name="A">\n{element}</file></assessments>')
    r = write(tmp_path / "r.txt", "1 Q0 A 1 1 x /article[1]\n")
    p = run_cli("score", "--task", "thorough", "--assessments", q, r)
    assert_error(p, "a.xml:line 2 <element>", message)


def test_missing_run_file(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n")
    p = run_cli("score", "--task", "focused", "--assessments", tmp_path / "q.fol", tmp_path / "nope.run")
    assert_error(p, "nope.run", "run file not found")


def test_wrong_quantisation_for_scale(tmp_path):
    q = write(tmp_path / "a.xml", "<assessments topic='1'><file file='A'>"
              "<path path='/article[1]' exhaustiveness='3' specificity='3'/></file></assessments>")
    r = write(tmp_path / "r.txt", "1 Q0 A 1 1 x /article[1]\n")
    p = run_cli("score", "--task", "thorough", "--quant", "binexh", "--assessments", q, r)
    assert_error(p, "quantisation 'binexh' is not defined", "inex2002")


@pytest.mark.parametrize("qrels,run,where,problem", [
    ("1 Q0 A 100 500 inf 0:100\n", "1 Q0 A 1 1 r 0 10\n", "q.fol:line 1", "best entry point 'inf' is not an integer"),
    ("1 Q0 A 100 500 0 99999999999999999999999:10\n", "1 Q0 A 1 1 r 0 10\n", "q.fol:line 1", "too large"),
    (QRELS, "1 Q0 A 1 1 r 99999999999999999999999 10\n", "r.run:line 1", "offset 99999999999999999999999 is too large"),
    ("1 Q0 A 100 500 0 0:60 50:50\n", "1 Q0 A 1 1 r 0 10\n", "q.fol:line 1", "passages 0:60 and 50:50 overlap"),
    (QRELS, b"1 Q0 A 1 1 r 0 10\n1 Q0 \xe9 2 1 r 0 10\n", "r.run:line 2", "byte 0xe9 at column 6 is not UTF-8"),
    (b"1 Q0 A 100 500 0 0:100\n1 Q0 \xe9 1 5 0\n", "1 Q0 A 1 1 r 0 10\n", "q.fol:line 2", "byte 0xe9"),
    (QRELS, b"1 Q0 A 1 1 r 0 10\x00\n", "r.run:line 1", "NUL byte"),
    # lines ended by carriage returns alone, as the official tool's readLine ends them
    (b"1 Q0 A 100 500 0 0:100\r1 Q0 B 100 500 0 0:100\r\n1 Q0 \xe9 1 5 0\r", "1 Q0 A 1 1 r 0 10\n", "q.fol:line 3",
     "byte 0xe9 at column 6 is not UTF-8"),
    (QRELS, b"1 Q0 A 1 1 r 0 10\r1 Q0 A 2 1 r 10 10\x00\r", "r.run:line 2", "NUL byte"),
    (QRELS, b"1 Q0 A 1 1 r 0 10\r1 Q0 \xe9 2 1 r 10 10\r", "r.run:line 2", "byte 0xe9 at column 6 is not UTF-8"),
])
def test_located_errors_instead_of_tracebacks(tmp_path, qrels, run, where, problem):
    for name, text in (("q.fol", qrels), ("r.run", run)):
        (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    p = run_cli("score", "--task", "focused", "--assessments", tmp_path / "q.fol", tmp_path / "r.run")
    assert_error(p, where, problem)


def test_bom_is_accepted(tmp_path):
    # before: the BOM joined the first topic id and topic 1's first document was lost (num_rel 1 -> 0)
    (tmp_path / "q.fol").write_bytes(b"\xef\xbb\xbf" + QRELS.encode())
    (tmp_path / "r.run").write_bytes(b"\xef\xbb\xbf1 Q0 A 1 1 r 0 100\n")
    p = run_cli("score", "--task", "focused", "--assessments", tmp_path / "q.fol", tmp_path / "r.run", "-q")
    v = parse_out(p.stdout)
    assert p.returncode == 0 and v[("num_rel", "1")] == 1 and v[("MAiP", "all")] == 1.0


def test_empty_and_unreadable_inputs(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "only_sub" / "sub").mkdir(parents=True)
    write(tmp_path / "r.run", "1 Q0 A 1 1 r 0 10\n")
    for d in ("empty", "only_sub"):
        p = run_cli("score", "--task", "focused", "--assessments", tmp_path / d, tmp_path / "r.run")
        assert_error(p, d, "no assessment files in directory")
    import os
    if os.geteuid() != 0:  # root reads anything
        q = write(tmp_path / "q.fol", QRELS)
        q.chmod(0)
        assert_error(run_cli("score", "--task", "focused", "--assessments", q, tmp_path / "r.run"), "q.fol",
                     "cannot read")


def test_unknown_family_is_a_usage_error_not_a_crash(tmp_path):
    p = score(tmp_path, "1 Q0 A 1 1 r 0 10\n", extra=["--family", "nope"])
    assert_error(p, "unknown measure family 'nope'")


# --- silently accepted before (issue 13): now an error naming file and place, or a warning ---

def in_process_error(code, err, *fragments):
    assert code == 2 and "Traceback" not in err, err
    line = [x for x in err.splitlines() if x.startswith("inexflow: error: ")]
    assert len(line) == 1, err
    for f in fragments:
        assert f in line[0], (f, err)


@pytest.mark.parametrize("body,where,problem", [
    ('<file name="A">\n<elemnt path="/article[1]" exhaustivity="2" size="10" rsize="5"/></file>',
     "a.xml:line 2 <elemnt>", "unknown element <elemnt> inside <file>"),
    ('<file name="A"><element path="/article[1]" exhaustivity="2" size="10" rsize="5"/></file>\n'
     '<file name="A"><element path="/article[1]/p[1]" exhaustivity="1" size="5" rsize="5"/></file>',
     "a.xml:line 2 <file>", "document A has a second <file> block for topic 1 (first on line 1)"),
    ('<fil name="A"/>', "a.xml:line 1 <fil>", "unknown element <fil> inside <assessments>"),
    ('<file name="A"><passage start="/article[1]/text()[1].0" end="/article[1]/text()[1].5" size="5">\n'
     '<element path="/article[1]" exhaustivity="2" size="10" rsize="5"/></passage></file>',
     "a.xml:line 2 <element>", "unknown element <element> inside <passage> (expected an empty <passage/>)"),
])
def test_2005_assessment_structure(tmp_path, body, where, problem):

    q = write(tmp_path / "a.xml", f'<assessments topic="1">{body}</assessments>')
    r = write(tmp_path / "r.txt", "1 Q0 A 1 1 x /article[1]\n")
    in_process_error(*cli("score", "--task", "thorough", "--assessments", q, r)[::2], where, problem)


@pytest.mark.parametrize("child", ["<file>B</file>", "<path>/article[1]</path>", '<fol offset="0" length="5"/>',
                                   "<rank>3</rank>", "<rsv>2</rsv>"])
def test_repeated_child_of_an_xml_result(tmp_path, child):

    run = write(tmp_path / "r.xml", '<inex-submission run-id="x" task="Focused"><topic topic-id="1"><result>\n'
                f'<file>A</file><path>/article[1]</path><rank>1</rank><rsv>1</rsv>\n{child}</result></topic>'
                "</inex-submission>")
    q = write(tmp_path / "q.fol", QRELS)
    name = child[1:child.index(">")].split()[0]
    in_process_error(*cli("score", "--task", "focused", "--assessments", q, run)[::2], f"r.xml:line 3 <{name}>",
                     "repeats a child already given in this <result>")


@pytest.mark.parametrize("inside, where, problem", [
    ("<result><file>A</file><path>/article[1]</path>\n<passage start='/article[1]' end='/article[1]'/></result>",
     "r.xml:line 2 <passage>", "unknown element <passage> inside <result> (expected <file> or <path> or <fol> or "
     "<rank> or <rsv>)"),
    ("<result><file>A</file><path>/article[1]</path></result>\n<reslt><file>B</file></reslt>",
     "r.xml:line 2 <reslt>", "unknown element <reslt> inside <topic> (expected <result>)")])
def test_an_unknown_element_in_an_xml_run_is_an_error(tmp_path, inside, where, problem):
    """A misspelt or unsupported element in a result or topic would drop what it holds: an
    error naming file, line and element, not a silent skip."""
    run = write(tmp_path / "r.xml", f'<inex-submission run-id="x" task="Focused"><topic topic-id="1">{inside}'
                "</topic></inex-submission>")
    q = write(tmp_path / "q.fol", QRELS)
    in_process_error(*cli("score", "--task", "focused", "--assessments", q, run)[::2], where, problem)


def test_an_unknown_element_among_a_submissions_topics_is_a_warning(tmp_path, caplog):
    """The submission's description (<topic-fields>, <description>, <collections>) is not read;
    anything else beside the topics is not read either, with a warning: a misspelt <topic> would
    drop its results. Both readers (the scan and the tree) say so."""
    from inexflow.model.runs import read_run

    for rank in ("<rank>1</rank>", "<!-- no rank -->"):  # the scan reads the first, the tree reader the second
        run = write(tmp_path / "r.xml", '<inex-submission run-id="x" task="Focused">\n<description>d</description>\n'
                    '<topc topic-id="2"><result><file>A</file><path>/article[1]</path></result></topc>\n'
                    f'<topic topic-id="1"><result><file>A</file><path>/article[1]</path>{rank}<rsv>1</rsv></result>'
                    "</topic></inex-submission>")
        caplog.clear()
        assert read_run(run).results["topic"].tolist() == ["1"]
        assert [r.getMessage() for r in caplog.records] == [
            f"{run}:line 3 <topc>: element <topc> inside <inex-submission> is not read (expected <topic> or "
            "<topic-fields>, <description>, <collections>)"]


def test_assessed_element_missing_from_the_collection(tmp_path):

    write(tmp_path / "c" / "A.xml", DOC)
    q = write(tmp_path / "a.xml", '<assessments topic="1"><file name="A"><element path="/article[1]/bdy[1]/p[9]" '
              'exhaustivity="2" size="10" rsize="10"/></file></assessments>')
    r = write(tmp_path / "r.txt", "1 Q0 A 1 1 x /article[1]\n")
    in_process_error(*cli("score", "--task", "thorough", "--collection", tmp_path / "c", "--assessments", q,
                          r)[::2], "a.xml:topic 1", "assessed element A/article[1]/bdy[1]/p[9] does not exist in the "
                     "collection document (1 such element)")


def test_passage_past_the_document_end_is_scored_as_the_tool_does_with_a_warning(tmp_path):

    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n1 Q0 B 50 300 0 10:50\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1 r 400 200\n1 Q0 B 2 0.5 r 0 400\n")
    code, out, err = cli("score", "--task", "focused", "--assessments", q, r)
    assert code == 0
    assert ("r.run:line 1: passage 400:200 of document A ends at 600, after the document's 500 characters "
            "(2 such results; scored in full, as the official tool does)") in err
    # inex_eval v3.1 prints ret_size 600 (200 + 400, nothing clipped) and rel_ret_size 50 for this pair
    assert "ret_size\tall\t600\n" in out and "rel_ret_size\tall\t50\n" in out


def test_empty_assessment_file_is_named_not_the_run(tmp_path):

    q = write(tmp_path / "a.xml", "\n  \n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1 r 0 10\n")
    in_process_error(*cli("score", "--task", "focused", "--assessments", q, r)[::2], "a.xml", "empty assessment file")


def test_topic_subset(tmp_path):
    import logging

    from inexflow.errors import UsageError
    from inexflow.measures.context import ScoringContext
    from inexflow.measures.session import score_run
    from inexflow.model.assessments import read_assessments
    from inexflow.model.runs import read_run
    a = read_assessments(write(tmp_path / "q.fol", QRELS + "2 Q0 A 10 500 0 0:10\n"))
    run = read_run(write(tmp_path / "r.run", "1 Q0 A 1 1 r 0 10\n2 Q0 A 1 1 r 0 10\n"))
    with pytest.raises(UsageError, match="config topic_subset: none of its 2 topics is in the assessments"):
        score_run(run, "passage", ScoringContext(a, {}, {"topic_subset": ["7", "8"]}))
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("inexflow").addHandler(handler)
    try:
        s = score_run(run, "passage", ScoringContext(a, {}, {"topic_subset": ["2", "8"]}))
    finally:
        logging.getLogger("inexflow").removeHandler(handler)
    assert set(s["topic"]) == {"2", "all"}
    assert any("topic_subset names 1 topic that is not assessed, left out: 8" in r.getMessage() for r in records)


def test_entry_point_in_a_real_process(tmp_path):

    from inexflow import __version__
    p = run_cli_process("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"inexflow {__version__}"
    q, r = write(tmp_path / "q.fol", QRELS), write(tmp_path / "r.run", "1 Q0 A 1 1 r 0 100\n1 Q0 A 2 1 r 0 -1\n")
    p = run_cli_process("score", "--task", "focused", "--assessments", q, r)
    assert_error(p, "r.run:line 2", "negative offset or length")


def test_progress_only_on_a_terminal():
    import io

    from inexflow.front.cli import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress(3, "runs scored", stream=stream)
        for _ in range(3):
            p.step()
    assert tty.getvalue() == ("\rinexflow: 1/3 runs scored\rinexflow: 2/3 runs scored"
                              "\rinexflow: 3/3 runs scored\n")
    assert pipe.getvalue() == ""
    quiet = Tty()
    Progress(3, "runs", enabled=False, stream=quiet).step()
    assert quiet.getvalue() == ""


def test_special_files_are_refused_before_any_read(tmp_path, monkeypatch):
    """A FIFO (which would wait for a writer forever) or a device given as an input is named as
    not a regular file, by the CLI and by the config checks, before anything reads it."""
    import os
    import signal

    import yaml

    from inexflow.campaign.config import ConfigError, load_config

    signal.alarm(20)  # a hang fails the test instead of stopping the suite
    try:
        fifo = tmp_path / "run.fifo"
        os.mkfifo(fifo)
        q = write(tmp_path / "q.fol", QRELS)
        assert_error(run_cli("score", "--task", "focused", "--assessments", q, fifo), "run.fifo",
                     "is a FIFO (named pipe), not a regular file")
        assert_error(run_cli("score", "--task", "focused", "--assessments", "/dev/zero", fifo), "/dev/zero",
                     "is a device, not a regular file")
        runs = tmp_path / "runs"
        runs.mkdir()
        os.mkfifo(runs / "r.txt")
        (runs / "loop.txt").symlink_to(runs / "loop.txt")
        mine = write(tmp_path / "mine.yaml", yaml.safe_dump({"campaign": "x", "assessments": {"path": str(q)},
                                                             "runs": [{"path": f"{runs}/*", "task": "focused"}]}))
        monkeypatch.chdir(tmp_path)
        with pytest.raises(ConfigError) as e:
            load_config([mine], default=tmp_path / "none.yaml")
        assert "loop.txt: cannot read run file: Too many levels of symbolic links" in str(e.value)
        assert "r.txt: is a FIFO (named pipe), not a regular file" in str(e.value)
    finally:
        signal.alarm(0)


@pytest.mark.parametrize("option,value,expected", [
    ("--max-list-length", "0", "expected a positive whole number, not '0'"),
    ("-n", "0", "expected a number above 0, not '0'"), ("--beta", "-1", "expected a number above 0, not '-1'"),
    ("--alpha", "1.5", "expected a number from 0 to 1, not '1.5'"), ("--beta", "inf", "expected a number above 0"),
])
def test_numeric_options_out_of_range_are_refused(tmp_path, option, value, expected):
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n", extra=(option, value))
    assert p.returncode == 2 and expected in p.stderr, p.stderr


@pytest.mark.parametrize("score_text", ["inf", "1e400", "-inf"])
def test_a_score_that_is_not_a_finite_number_is_named(tmp_path, score_text):
    p = score(tmp_path, f"1 Q0 A 1 1.0 r 0 10\n1 Q0 A 2 {score_text} r 20 10\n")
    assert_error(p, "r.run:line 2: score", "is not a finite number (1 in the run)")


def test_a_negative_rank_is_a_warning(tmp_path):
    p = score(tmp_path, "1 Q0 A -1 1.0 r 0 10\n1 Q0 A 2 0.5 r 20 10\n")
    assert p.returncode == 0 and "r.run:line 1: negative rank -1 (1 in the run; ranks count from 1)" in p.stderr


def test_fol_qrels_odd_but_legal_lines_are_warnings(tmp_path):
    qrels = ("1 Q0 A 100 500 -5 0:100\n"  # a negative best entry point
             "2 Q0 A 10 400 0 0:10\n3 Q0 A 10 300 0 0:10\n")  # one document, three lengths: one warning
    p = score(tmp_path, "1 Q0 A 1 1.0 r 0 10\n", qrels=qrels)
    assert p.returncode == 0, p.stderr
    assert "q.fol:line 1: best entry point -5 of document A is negative: the document has none" in p.stderr
    assert ("q.fol:line 2: document A has 400 characters here and 500 on line 1 (topic 1): the lines of one "
            "document should agree on its length") in p.stderr
    assert "line 3: document A" not in p.stderr


def test_a_passage_of_length_0_is_a_warning_in_xml_and_text_runs(tmp_path):
    xml = ('<inex-submission participant-id="1" run-id="x" task="Focused"><topic topic-id="1">'
           '<result><file>A</file><fol offset="5" length="0"/><rank>1</rank></result>'
           '<result><file>A</file><fol offset="20" length="5"/><rank>2</rank></result></topic></inex-submission>\n')
    for name, text in (("r.xml", xml), ("r.run", "1 Q0 A 1 1.0 r 5 0\n1 Q0 A 2 0.5 r 20 5\n")):
        p = score(tmp_path, text, name=name)
        assert p.returncode == 0 and f"{name}:line 1: passage of length 0 (1 in the run): it retrieves nothing" \
            in p.stderr, p.stderr


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs (root only; skipped where mounting is not allowed)."""
    d = tmp_path / "small"
    mount_small_tmpfs(d, "64k")
    try:
        yield d
    finally:
        subprocess.run(["umount", str(d)], capture_output=True)


def test_a_full_disk_names_the_output_and_leaves_nothing(tmp_path, full_disk):
    """Writing an output to a full disk: one line naming the output and the cause, exit 2, and
    no file (not even the temporary one) left on the disk; a cached table alike."""
    run = write(tmp_path / "r.run", "".join(f"1 Q0 d{i} {i} {3000 - i} r\n" for i in range(1, 3000)))
    q = write(tmp_path / "q.fol", "".join(f"1 Q0 d{i} 100 500 0 0:100\n" for i in range(1, 3000)))  # 90 KB out
    p = run_cli_process("convert", run, "--assessments", q, "-o", full_disk / "out.fol")
    assert_error(p, str(full_disk / "out.fol"), "the disk is full")
    assert list(full_disk.iterdir()) == []
    from inexflow.errors import InputError
    from inexflow.io.tables import write_parquet

    big = pd.DataFrame({"x": [os.urandom(16).hex() for _ in range(20000)]})  # 640 KB, incompressible
    with pytest.raises(InputError, match="tables/t.parquet: cannot write this output: the disk is full"):
        write_parquet(big, full_disk / "tables" / "t.parquet")
    assert list((full_disk / "tables").iterdir()) == []


def test_counts_are_said_in_the_singular_for_one():
    """Every count a message gives goes through counted: `1 file`, `2 files`, `0 files`."""
    from inexflow.errors import counted

    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert counted(1, "such result") == "1 such result" and counted(3, "such result") == "3 such results"
    assert counted(2, "entry", "entries") == "2 entries" and counted(1, "entry", "entries") == "1 entry"


def test_a_run_given_for_the_fol_qrels_is_named_as_a_likely_cause(tmp_path):
    """A FOL run passed as the qrels: its rank and score stand in rel_chars and doc_chars; the
    one line says which columns FOL qrels have and asks whether a run was given."""
    r = write(tmp_path / "r.run", "1 Q0 A 1 0.75 r 0 10\n")
    got = run_cli("score", "--task", "focused", "--assessments", r, r, check=2)
    assert got.stderr.strip() == (f"inexflow: error: {r}:line 1: doc_chars '0.75' is not an integer (expected an "
                                  "integer: FOL qrels are topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]; "
                                  "a run file given for the qrels?)")
