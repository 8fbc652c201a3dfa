"""Fuzzing every reader and the scoring behind ``inexflow score``: random mutations of valid
files (bytes deleted, repeated or inserted from a hostile alphabet: external entities, NUL,
non-UTF-8 bytes, huge and negative numbers, stray tags) either read fine or give an
:class:`InputError`/``UsageError`` -- never another exception -- and nothing from a file the
input merely references reaches an output or a message."""
import contextlib
import io
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write
from inexflow.errors import InputError, UsageError

MARKER = "SECRET-FUZZ-4417"
CHUNKS = ["<!DOCTYPE x [<!ENTITY e SYSTEM \"file://SECRET\">]>", "&e;", "\x00", "\xe9", "\ufeff", "-1", "inf",
          "nan", "99999999999999999999999", "2147483648", " ", "\t", "\n", "\r\n", "<", ">", "</result>",
          "<result>", "<file>", "<elemnt/>", ":", "/article[1]", "/p[0]", "Q0", "0:0", "'", '"', "&amp;", "]]>"]

VALID = {
    "qrels": ("q.fol", "1 Q0 A 100 500 20 0:60 70:40\n1 Q0 B 0 300\n2 Q0 A 50 500 -1 10:50\n"),
    "text run": ("r.run", "1 Q0 A 1 2.5 r 0 100\n1 Q0 B 2 1.5 r 10 20\n2 Q0 A 1 1.0 r 5 30\n"),
    "element text run": ("r.txt", "1 Q0 A 1 2 r /article[1]/p[1]\n1 Q0 B 2 1 r /article[1]\n"),
    "xml run": ("r.xml", '<inex-submission participant-id="p" run-id="r" task="Focused"><topic topic-id="1">'
                "<result><file>A</file><fol offset=\"0\" length=\"40\"/><rank>1</rank><rsv>2</rsv></result>"
                "<result><file>B</file><path>/article[1]/p[1]</path><rank>2</rank></result>"
                "</topic></inex-submission>\n"),
    "2005 assessments": ("a.xml", '<assessments topic="1"><file name="A"><best-entry-point path="/article[1]/p[1]"/>'
                         '<passage start="/article[1]/p[1]/text()[1].0" end="/article[1]/p[1]/text()[1].40" '
                         'size="40"/><element path="/article[1]" exhaustivity="2" size="60" rsize="40"/>'
                         '<element path="/article[1]/p[1]" exhaustivity="1" size="40" rsize="40"/></file>'
                         "</assessments>\n"),
    "2002 assessments": ("a2.xml", '<assessments topic="1"><file file="A"><path path="/article[1]" '
                         'exhaustiveness="3" specificity="2"/></file></assessments>\n'),
    "topics": ("t.xml", '<topics><topic id="1" ct_no="3"><title>xml retrieval</title>'
                        "<description>d</description></topic></topics>\n"),
    "collection document": ("A.xml", "<article><p>" + "x" * 40 + "</p><p>" + "y" * 20 + "</p></article>\n"),
}


@st.composite
def mutated(draw, text: str, secret: str) -> str:
    s = text
    if text.startswith("<") and draw(st.booleans()):  # an external entity declared and used in the text
        ends = [k + 1 for k, c in enumerate(s) if c == ">"][:-1]
        k = draw(st.sampled_from(ends))
        s = f'<!DOCTYPE x [<!ENTITY e SYSTEM "file://{secret}">]>\n' + s[:k] + "&e;" + s[k:]
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(s)))
        j = draw(st.integers(i, min(len(s), i + 12)))
        op = draw(st.sampled_from(["insert", "delete", "repeat", "replace"]))
        chunk = draw(st.sampled_from(CHUNKS) | st.text(max_size=4)).replace("SECRET", secret)
        if op == "insert":
            s = s[:i] + chunk + s[i:]
        elif op == "delete":
            s = s[:i] + s[j:]
        elif op == "repeat":
            s = s[:j] + s[i:j] + s[j:]
        else:
            s = s[:i] + chunk + s[j:]
    return s


def read(kind, path, tmp_path):
    from inexflow.io.collection import index_collection
    from inexflow.io.topics import read_topics
    from inexflow.model.assessments import read_assessments
    from inexflow.model.runs import read_run

    if kind == "qrels":
        return read_assessments(path, "fol").documents
    if kind == "2005 assessments":
        return read_assessments(path, "inex2005").elements
    if kind == "2002 assessments":
        return read_assessments(path, "inex2002").elements
    if kind == "topics":
        return read_topics(path)
    if kind == "collection document":
        return index_collection(path.parent, ["A"])
    return read_run(path, task="focused").results


def score(kind, path, tmp_path):
    """``inexflow score`` in process on the mutated file (the other side valid): 0 or 2."""
    from inexflow.front.cli import main

    q = write(tmp_path / "valid.fol", VALID["qrels"][1]) if kind != "qrels" else path
    args = ["score", "--task", "focused", "-q", "-j", "1", "--assessments", str(q)]
    if kind in ("xml run", "element text run"):
        write(tmp_path / "coll" / "A.xml", VALID["collection document"][1])
        write(tmp_path / "coll" / "B.xml", VALID["collection document"][1])
        args += ["--collection", str(tmp_path / "coll")]
    run = path if kind.endswith("run") else write(tmp_path / "valid.run", VALID["text run"][1])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args + [str(run)])
    return code, out.getvalue() + err.getvalue()


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(VALID))
def test_mutations_never_crash_or_leak(tmp_path, kind, caplog):
    secret = write(tmp_path / "secret.txt", MARKER + "\n")
    name, text = VALID[kind]
    path = tmp_path / "in" / name
    path.parent.mkdir(exist_ok=True)
    assert len(read(kind, write(path, text), tmp_path))  # the valid file reads

    @settings(max_examples=60, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(mutated(text, str(secret)))
    def check(s):
        caplog.clear()
        path.write_bytes(s.encode("utf-8", "surrogatepass"))
        try:
            out = read(kind, path, tmp_path)
            assert MARKER not in out.to_csv()
        except (InputError, UsageError) as e:
            assert MARKER not in str(e) and str(e)
        if kind in ("qrels", "text run", "xml run", "element text run"):
            code, text_out = score(kind, path, tmp_path)
            assert code in (0, 2), text_out
            assert MARKER not in text_out and "internal error" not in text_out
        assert MARKER not in caplog.text

    with caplog.at_level(logging.WARNING, logger="inexflow"):
        if text.startswith("<"):  # the plain attack, whatever the random draws: declared, used in the first text
            k = text.index(">") + 1
            check.hypothesis.inner_test(f'<!DOCTYPE x [<!ENTITY e SYSTEM "file://{secret}">]>\n{text[:k]}&e;{text[k:]}')
        check()
