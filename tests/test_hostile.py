"""Hostile XML: external entities, external DTDs and entity-expansion bombs in every XML
reader. Nothing from a file the input merely references may reach an output or a message;
an expansion bomb is a located error."""
import pytest

from conftest import write
from inexflow.errors import InputError
from inexflow.io.collection import index_document
from inexflow.io.topics import read_topics
from inexflow.model.assessments import read_assessments
from inexflow.model.runs import read_run

MARKER = "SECRET-MARKER-7731"

# (reader, document body with the hostile reference where PAYLOAD stands)
READERS = {
    "xml run": (lambda p: read_run(p).results,
                '<inex-submission participant-id="1" run-id="r" task="Focused"><topic topic-id="1"><result>'
                "<file>d1PAYLOAD</file><path>/article[1]</path><rank>1</rank><rsv>1</rsv></result></topic>"
                "</inex-submission>"),
    "topics": (lambda p: read_topics(p),
               '<topics><topic id="1" ct_no="1"><title>find PAYLOAD</title></topic></topics>'),
    "2005 assessments": (lambda p: read_assessments(p, "inex2005").elements,
                         '<assessments topic="1"><file name="dPAYLOAD"><element path="/article[1]" '
                         'exhaustivity="2" size="10" rsize="10"/></file></assessments>'),
    "2002 assessments": (lambda p: read_assessments(p, "inex2002").elements,
                         '<assessments topic="1"><file file="dPAYLOAD"><path path="/article[1]" '
                         'exhaustiveness="3" specificity="3"/></file></assessments>'),
    "collection document": (lambda p: index_document(p, "d"), "<article><p>text PAYLOAD</p></article>"),
}
BOMB = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(8)) + "]>")


def hostile(kind: str, secret) -> tuple[str, str]:
    """(DOCTYPE prologue, payload) of one attack."""
    if kind == "external entity":
        return f'<!DOCTYPE x [<!ENTITY e SYSTEM "file://{secret}">]>', "&e;"
    if kind == "parameter entity":
        return f'<!DOCTYPE x [<!ENTITY % p SYSTEM "file://{secret}"> %p;]>', ""
    if kind == "external dtd":
        return f'<!DOCTYPE x SYSTEM "file://{secret}">', ""
    return BOMB, "&i;"


@pytest.mark.parametrize("kind", ["external entity", "parameter entity", "external dtd", "expansion bomb"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_leak_no_bomb(tmp_path, reader, kind):
    secret = write(tmp_path / "secret.txt", f"{MARKER}\n")
    if kind == "external dtd":
        secret = write(tmp_path / "secret.dtd", f'<!ENTITY e "{MARKER}">')
    read, body = READERS[reader]
    prologue, payload = hostile(kind, secret)
    if kind == "external dtd":
        payload = "&e;"
    path = write(tmp_path / "input.xml", '<?xml version="1.0"?>\n' + prologue + "\n" + body.replace("PAYLOAD", payload))
    try:
        out = read(path)
    except InputError as e:
        assert MARKER not in str(e)
        assert str(path) in str(e) and "line" in str(e)
        if kind == "expansion bomb":
            assert "amplification" in str(e) or "loop" in str(e) or "entity" in str(e).lower()
        return
    assert kind == "parameter entity", f"{kind} accepted by the {reader} reader"
    assert MARKER not in repr(out)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_an_external_dtd_is_named_in_a_warning_and_never_read(tmp_path, reader, caplog):
    # the DTD would give every element an attribute holding the marker, were it read
    dtd = write(tmp_path / "secret.dtd", f'<!ATTLIST result leak CDATA "{MARKER}">\n'
                f'<!ATTLIST p leak CDATA "{MARKER}">\n<!ENTITY e "{MARKER}">')
    read, body = READERS[reader]
    text = f'<?xml version="1.0"?>\n<!DOCTYPE x SYSTEM "{dtd}">\n' + body.replace("PAYLOAD", "")
    paths = [write(tmp_path / f"input{i}.xml", text) for i in (1, 2)]
    with caplog.at_level("WARNING", logger="inexflow"):
        out = [read(p) for p in paths]
    assert MARKER not in repr(out) and MARKER not in caplog.text
    said = [r.getMessage() for r in caplog.records if "external DTD" in r.getMessage()]
    first = f"{paths[0]}:line 2: the DOCTYPE refers to the external DTD '{dtd}', which is never read"
    assert said[0].startswith(first)
    if reader == "collection document":  # a collection's documents often share one DTD: named once
        assert len(said) == 1 and said[0].endswith("(said once for all the documents that refer to it)")
    else:
        assert said[1].startswith(first.replace("input1", "input2")) and len(said) == 2


def test_internal_entities_and_character_references_still_resolve(tmp_path):
    path = write(tmp_path / "d.xml", '<?xml version="1.0"?>\n<!DOCTYPE article [<!ENTITY co "Company">]>\n'
                 "<article><p>&co; &#233;&amp;</p></article>")
    rows = index_document(path, "d")
    # text "Company é&" = 10 characters: the article and its p cover all of them
    assert [(r[1], r[3], r[4]) for r in rows] == [("/article[1]", 0, 10), ("/article[1]/p[1]", 0, 10)]


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_outputs_respect_the_umask(tmp_path, umask):
    import os

    import pandas as pd

    from inexflow.io.atomic import write_text
    from inexflow.io.tables import write_parquet

    old = os.umask(umask)
    try:
        write_parquet(pd.DataFrame({"a": [1]}), tmp_path / "t.parquet")
        write_text("x\n", tmp_path / "t.tsv")
    finally:
        os.umask(old)
    for name in ("t.parquet", "t.tsv"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_decompression_bomb_is_refused(tmp_path, monkeypatch):
    import gzip

    from inexflow.io import compressed

    monkeypatch.setattr(compressed, "MAX_INFLATED", 1 << 20)
    bomb = tmp_path / "bomb.run.gz"
    bomb.write_bytes(gzip.compress(b"1 Q0 d 1 1.0 x\n" * 200_000))  # 3 MB from 10 kB
    with pytest.raises(InputError, match="decompresses to more than 1 MiB .*decompression bomb"):
        compressed.read_bytes(bomb)


def test_a_nul_byte_in_a_run_is_an_error_on_every_path(tmp_path):
    from conftest import run_cli

    q = write(tmp_path / "q.trec", "1 0 a 1\n1 0 c 0\n")
    for name, text in [("r6", "1 Q0 a\x00b 1 1.0 x\n"), ("r8", "1 Q0 c 1 1.0 x 0 1\n1 Q0 a\x00 2 0.5 x 0 1\n")]:
        r = write(tmp_path / name, text)
        p = run_cli("score", q, r)
        assert p.returncode == 2 and p.stdout == "" and f"{r}:line {text.count(chr(10), 0, text.index(chr(0))) + 1}: " \
            "NUL byte" in p.stderr


def test_option_ranges_are_checked_once_for_every_door():
    import math

    from inexflow.errors import UsageError
    from inexflow.model.options import Options

    for bad in [dict(cutoffs=(-1,)), dict(beta=math.nan), dict(bep_distance=0), dict(alpha=5),
                dict(max_list_length=-3), dict(relevance_level=1.5), dict(bepd_a=(math.nan,)),
                dict(quantisations="gen"), dict(topic_subset="2009001"), dict(judged_only="no")]:
        with pytest.raises(UsageError, match=f"option {next(iter(bad))}: "):
            Options(**bad)


def test_a_bad_run_among_good_ones_leaves_no_partial_output(tmp_path):
    from conftest import run_cli

    q = write(tmp_path / "q.trec", "1 0 a 1\n1 0 c 0\n")
    good = write(tmp_path / "good.run", "1 Q0 a 1 1.0 x\n")
    bad = write(tmp_path / "bad.run", "1 Q0 a 1 x x\n")
    for fmt in ("trec_eval", "tsv", "json", "inex"):
        p = run_cli("score", "--format", fmt, "--assessments", q, good, good, bad)
        assert p.returncode == 2 and p.stdout == "" and "bad.run:line 1" in p.stderr


def test_two_run_files_with_one_run_id_are_named_where_the_output_shows_only_the_id(tmp_path):
    """trec_eval's runid line (and the run column of tsv and json) is all that tells two runs'
    scores apart: two files with one run id get a warning naming both, on the Arrow path and the
    general one, in one process or several; inex's blocks name their file, trec_eval's layout
    without the runid line names no run: no warning there."""
    from conftest import run_cli

    q = write(tmp_path / "q.trec", "1 0 a 1\n1 0 c 0\n")
    a = write(tmp_path / "a.run", "1 Q0 a 1 1.0 same\n")
    b = write(tmp_path / "b.run", "1 Q0 c 1 1.0 same\n\n")  # a blank line: read by the general path
    c = write(tmp_path / "c.run", "1 Q0 c 1 1.0 other\n")
    said = f"inexflow: warning: {b}: run id 'same' is the run id of {a} too"
    for extra in ([], ["--format", "tsv"], ["--format", "json"], ["-m", "runid", "-m", "map"], ["-j", "1"]):
        p = run_cli("score", *extra, q, a, c, b)
        assert [line for line in p.stderr.splitlines() if "run id" in line] == [
            f"{said}: the output tells their scores apart only by their order"], p.stderr
        if "--format" not in extra:  # both blocks, in the order of the files, as trec_eval prints them
            assert [line.split()[2] for line in p.stdout.splitlines() if line.startswith("runid")] == [
                "same", "other", "same"]
    for extra in (["--format", "inex"], ["-m", "map"], []):
        p = run_cli("score", *extra, q, a, c, *([a] if not extra else [b]))  # the same file twice: one run
        assert "run id" not in p.stderr, p.stderr


def test_an_output_that_cannot_be_written_is_one_line(tmp_path):
    from conftest import run_cli

    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "r.trec", "1 Q0 A 1 2.5 myrun\n")
    p = run_cli("convert", "--assessments", q, "-o", tmp_path, r)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and str(tmp_path) in p.stderr


def test_fol_qrels_skip_comments_and_sum_up_odd_passages(tmp_path):
    from conftest import parse_out, run_cli

    q = write(tmp_path / "q.fol", "# judged by hand\n1 Q0 A 30 10 0 0:10 10:10 20:10\n")
    r = write(tmp_path / "r.run", "1 Q0 A 1 1 x 0 10\n")
    p = run_cli("score", "--task", "focused", "--format", "trec", "--assessments", q, r, check=0)
    warned = [line for line in p.stderr.splitlines() if "ends after the document" in line]
    assert warned == [f"inexflow: warning: {q}:line 2: passage 10:10 ends after the document's 10 characters "
                      "(2 such passages in the file)"]
    assert parse_out(p.stdout)[("num_rel", "all")] == 1


def test_element_families_refuse_a_run_without_elements():
    import pandas as pd

    from inexflow.front.frames import run_from_frame
    from inexflow.measures.context import element_results

    passages = run_from_frame(pd.DataFrame({"query_id": ["1"], "doc_id": ["A"], "score": [1.0], "offset": [0],
                                            "length": [10]}))
    with pytest.raises(InputError, match="holds no element results .* the xcg family scores elements"):
        element_results(passages, "xcg")


def test_utf16_text_is_named_as_such(tmp_path):
    from conftest import run_cli

    q = write(tmp_path / "q.trec", "1 0 a 1\n")
    r = tmp_path / "r.run"
    r.write_bytes("1 Q0 a 1 1.0 x\n".encode("utf-16"))
    p = run_cli("score", q, r)
    assert p.returncode == 2 and f"{r}: is UTF-16 text (expected UTF-8 text" in p.stderr


def test_validate_topics_that_name_a_missing_file_are_not_topic_ids(tmp_path):
    from conftest import run_cli

    r = write(tmp_path / "r.run", "1 Q0 a 1 1.0 x\n")
    p = run_cli("validate", "--topics", "nosuch-topics.xml", r)
    assert p.returncode == 2 and "nosuch-topics.xml: cannot read XML file" in p.stderr


def test_a_command_line_mistake_is_one_line():
    from conftest import run_cli

    p = run_cli("score", "-l", "x", "q", "r")
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        "inexflow score: error: argument -l: expected a whole number, 0 or more, not 'x' (usage: inexflow score --help)"]


def test_a_task_named_for_trec_qrels_is_scored_by_trec_eval_with_a_warning(tmp_path, caplog):
    """TREC qrels hold document grades only: a passage or element task named with them is
    scored with the trec family (docs/cli.md, TREC interoperability), saying so on every door."""
    import pandas as pd

    import inexflow
    from conftest import run_cli

    q = write(tmp_path / "q.trec", "1 0 A 1\n1 0 B 0\n2 0 A 2\n")
    r = write(tmp_path / "r.run", "1 Q0 B 1 2.0 x\n1 Q0 A 2 1.0 x\n2 Q0 A 1 1.0 x\n")
    said = f"{q}: TREC qrels (document grades only): task focused is scored with the trec family"
    blank = write(tmp_path / "blank.run", "1 Q0 B 1 2.0 x\n\n1 Q0 A 2 1.0 x\n")  # read by the general path
    # the Arrow path, the general one, and both in one command: said once each time
    for extra in (["--assessments", q, r], ["--format", "json", "--assessments", q, r], ["--assessments", q, r, blank]):
        p = run_cli("score", "--task", "focused", "-j", "1", *extra, check=0)
        assert [line for line in p.stderr.splitlines() if "TREC qrels" in line] == [
            f"inexflow: warning: {said} (trec_eval's measures), not with its own measures, which need FOL qrels "
            "or INEX element assessments; leave --task out to score documents without this warning"]
    def map_all(p):
        return float(next(line.split()[2] for line in p.stdout.splitlines() if line.split()[:2] == ["map", "all"]))

    p = run_cli("score", "--task", "focused", q, r, check=0)
    # topic 1: its one relevant document at rank 2 (AP 1/2); topic 2 at rank 1 (AP 1)
    assert map_all(p) == 0.75
    p = run_cli("score", q, r, check=0)  # no task named: document scoring, no warning
    assert "TREC qrels" not in p.stderr and map_all(p) == 0.75
    frame = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["A", "B", "A"], "relevance": [1, 0, 2]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["B", "A", "A"], "score": [2.0, 1.0, 1.0]})
    with caplog.at_level("WARNING", logger="inexflow"):
        assert inexflow.evaluate(frame, run, "map", task="focused")["value"].tolist() == [0.75]
    assert "task focused is scored with the trec family" in caplog.text and "leave task out" in caplog.text


def test_a_frame_without_ranks_is_scored_in_score_order_whatever_its_row_order():
    """Without a rank column a run frame is ranked by descending score (docs/python-api.md), for
    the families that read runs in file order too: MAiP 67/101 whichever row comes first (A's
    100 relevant characters at rank 1 give precision 1 up to recall 100/150, as in api.py)."""
    import pandas as pd

    import inexflow

    q = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["A", "B"], "offset": [0, 10], "length": [100, 50],
                      "doc_length": [500, 300]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["C", "A"], "score": [1.0, 2.0], "offset": [0, 0],
                        "length": [40, 100]})
    for rows in (run, run.iloc[::-1]):
        assert inexflow.evaluate(q, rows, "MAiP", task="focused")["value"].tolist() == [pytest.approx(67 / 101)]


def test_topic_ids_that_differ_in_leading_zeros_are_named_as_the_likely_cause(tmp_path):
    from conftest import run_cli

    q = write(tmp_path / "q.fol", "1 Q0 A 100 500 0 0:100\n")
    r = write(tmp_path / "r.run", "01 Q0 A 1 2.5 x 0 100\n")
    p = run_cli("score", "--task", "focused", "--assessments", q, r)
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [
        f"inexflow: error: {r}: the run's 1 topic is not in the assessments (run topics 01...; assessed 1...; "
        "the ids differ only in leading zeros or case: write them as the assessments do) (expected a run for the "
        "assessed topics)"]
