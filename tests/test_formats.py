"""Readers for every input format, on inline samples and on the real INEX 2009/2010 files."""
import re

import numpy as np
import pandas as pd
import pytest

from conftest import write
from inexflow.errors import InputError
from inexflow.io.topics import read_topics
from inexflow.io.xpath import canonical_xpath, is_ancestor
from inexflow.model.assessments import read_assessments
from inexflow.model.runs import read_run


def test_canonical_xpath():
    assert canonical_xpath(" /article/bdy[1]/sec[2]/ ") == "/article[1]/bdy[1]/sec[2]"
    assert is_ancestor("/a[1]/b[1]", "/a[1]/b[1]/c[2]")
    assert not is_ancestor("/a[1]/b[1]", "/a[1]/b[10]")
    with pytest.raises(ValueError):
        canonical_xpath("article[1]")
    with pytest.raises(ValueError):
        canonical_xpath("/article[0]")


def test_real_fol_qrels(shared_data):
    path = shared_data / "qrels-2009-2010.fol"
    lines = [l.split() for l in path.read_text().splitlines() if l.strip()]
    a = read_assessments(path)
    assert a.scale == "fol"
    assert len(a.documents) == len(lines)
    assert len(a.topics) == len({l[0] for l in lines}) == 120
    # every offset:length item with a positive length becomes one passage
    items = [x for l in lines for x in l[6:] if int(x.split(":")[1]) > 0]
    assert len(a.passages) == len(items)
    assert int(a.documents["rel_chars"].sum()) == sum(int(l[3]) for l in lines)
    first = a.passages.iloc[0]
    assert (first.topic, first.doc, first.start, first.length) == ("2009001", "851", 1205, 3431)


def test_real_text_run(shared_data):
    path = shared_data / "runs" / "bert-focused.run"
    lines = [l.split() for l in path.read_text().splitlines() if l.strip()]
    run = read_run(path, task="focused")
    assert run.run_id == "TREC2INEX" and run.scoring_type == "focused" and run.format == "fol-text"
    assert len(run.results) == len(lines)
    assert run.results["topic"].nunique() == len({l[0] for l in lines}) == 118
    r = run.results.iloc[0]
    assert (r.topic, r.doc, r.offset, r.length, r["rank"]) == ("2009001", "1528075", 9760, 1848, 1)


def test_fields_split_at_ascii_white_space_as_the_official_tools(tmp_path):
    """A vertical tab or a form feed between fields separates them, as in trec_eval (C's isspace)
    and inex_eval.jar (Java's \\s, checked against the jar: the same scores as with spaces); a
    lone carriage return ends a qrels line (Java's readLine); a no-break space is part of a field."""
    qrels = "1 Q0 a 100 500 5 5:60 80:40\n1 Q0 b 0 300\n2 Q0 a 20 500 0 0:20\n"
    run = "1 Q0 a 1 3.0 r 0 100\n1 Q0 b 2 2.0 r 0 50\n2 Q0 a 1 1.0 r 10 30\n"
    spaced_q, spaced_r = read_assessments(write(tmp_path / "q.fol", qrels)), read_run(write(tmp_path / "r.txt", run),
                                                                                      task="focused")
    for sep in ("\x0b", "\x0c", " \x0c\t", "\x0b "):
        q = read_assessments(write(tmp_path / "q2.fol", qrels.replace(" 500 5 ", f"{sep}500{sep}5 ")
                                   .replace("\n1 Q0 b", "\r1 Q0 b")))
        r = read_run(write(tmp_path / "r2.txt", run.replace(" 2.0 r ", f" 2.0{sep}r{sep}")), task="focused")
        # beside a space after a document id: a file the Arrow reader would read whole
        r3 = read_run(write(tmp_path / "r3.txt", run.replace("Q0 a 1 1.0", f"Q0 a{sep} 1 1.0")), task="focused")
        for table in ("documents", "passages"):
            pd.testing.assert_frame_equal(getattr(q, table), getattr(spaced_q, table))
        pd.testing.assert_frame_equal(r.results, spaced_r.results)
        pd.testing.assert_frame_equal(r3.results, spaced_r.results)
    # in TREC qrels a carriage return is white space, as trec_eval reads them (recognised as TREC qrels too)
    tq = "1 0 a 1\n1 0 b 0\n2 0 a 2\n"
    spaced_t = read_assessments(write(tmp_path / "t.qrels", tq))
    cr_t = read_assessments(write(tmp_path / "t2.qrels", tq.replace("1 0 a", "1\r0 a\r").replace(" 0 b ", "\r0\rb \r")
                                                              .replace("2 0 a", "2\x0b0\x0ca")))
    assert cr_t.scale == spaced_t.scale == "trec"
    pd.testing.assert_frame_equal(cr_t.documents, spaced_t.documents)
    trec = read_run(write(tmp_path / "t.run", "1 Q0 a 1 3.0 r\x0c\n1 Q0 b\x0b 2 2.0 r\n"))
    assert trec.run_id == "r" and list(trec.results["doc"]) == ["a", "b"]
    cr = read_run(write(tmp_path / "t2.run", "1\rQ0 a 1 3.0 r\r\n1 Q0 b\r2 2.0 r\n"))  # trec_eval's isspace
    pd.testing.assert_frame_equal(cr.results, trec.results.assign(line=cr.results["line"]))
    assert list(cr.results["line"]) == [1, 2]
    with pytest.raises(InputError, match=r"q3.fol:line 1: best entry point '5:60' is not an integer"):
        read_assessments(write(tmp_path / "q3.fol", qrels.replace("a 100", "a\u00a0100")))
    with pytest.raises(InputError, match=r"r4.txt:line 2: 7 columns"):
        read_run(write(tmp_path / "r4.txt", run.replace("b 2", "b\u00a02")), task="focused")


def test_real_topics(shared_data):
    path = shared_data / "topics-2009.xml"
    text = path.read_text()
    t = read_topics(path)
    assert len(t) == len(re.findall(r"<topic id=", text))
    row = t[t["topic"] == "2009001"].iloc[0]
    assert row.title == "Nobel prize" and row.ct_no == "186"
    assert row.castitle == "//article[about(., Nobel prize)]"


INEX2005 = """<?xml version="1.0"?>
<assessments topic="202" version="1">
  <file name="co/2001/r1050" collection="ieee">
    <best-entry-point path="/article[1]/bdy[1]/sec[1]"/>
    <passage start="/article[1]/bdy[1]/sec[1]/p[1]/text()[1].0" end="/article[1]/bdy[1]/sec[1]/p[2]/text()[1].20" size="120"/>
    <element path="/article[1]" exhaustivity="1" size="1000" rsize="120"/>
    <element path="/article[1]/bdy[1]/sec[1]" exhaustivity="2" size="200" rsize="120"/>
    <element path="/article/bdy/sec/p[2]" exhaustivity="?" size="20" rsize="20"/>
  </file>
</assessments>
"""


def test_inex2005_assessments(tmp_path):
    a = read_assessments(write(tmp_path / "a.xml", INEX2005))
    assert a.scale == "inex2005"
    els = a.elements.set_index("xpath")
    assert els.loc["/article[1]", "spec"] == 120 / 1000
    assert els.loc["/article[1]/bdy[1]/sec[1]", "exh"] == 2
    assert els.loc["/article[1]/bdy[1]/sec[1]/p[2]", "exh"] == -1  # '?' too small
    assert els.loc["/article[1]/bdy[1]/sec[1]/p[2]", "spec"] == 1.0
    d = a.documents.iloc[0]
    assert (d.doc, d.bep_xpath, d.doc_chars, d.rel_chars) == ("co/2001/r1050", "/article[1]/bdy[1]/sec[1]", 1000, 120)
    assert a.passages.iloc[0].start_point.endswith("text()[1].0")


def test_inex2006_scale_without_exhaustivity(tmp_path):
    text = INEX2005.replace(' exhaustivity="1"', "").replace(' exhaustivity="2"', "").replace(' exhaustivity="?"', "")
    assert read_assessments(write(tmp_path / "a.xml", text)).scale == "inex2006"


def test_inex2002_assessments_both_dialects(tmp_path):
    text = """<assessments topic='91'>
  <file file='tk/2000/k0001'>
    <path path='/article[1]' exhaustiveness='2' specificity='1'/>
    <path path="/article[1]/bdy[1]/sec[2]" exhaustiveness="3" specificity="3"/>
  </file>
  <file file='tk/2000/k0002'>
    <path path='/article[1]' relevance='3' coverage='L'/>
  </file>
</assessments>"""
    a = read_assessments(write(tmp_path / "a.xml", text))
    assert a.scale == "inex2002"
    got = {(r.doc, r.xpath): (r.exh, r.spec) for r in a.elements.itertuples()}
    assert got == {("tk/2000/k0001", "/article[1]"): (2, 1), ("tk/2000/k0001", "/article[1]/bdy[1]/sec[2]"): (3, 3),
                   ("tk/2000/k0002", "/article[1]"): (3, 2)}


def test_xml_run_without_ranks_orders_by_rsv_then_file(tmp_path):
    text = """<inex-submission participant-id="7" run-id="r1" task="Focused">
  <topic topic-id="5">
    <result><file>d1</file><path>/article[1]/sec[1]</path><rsv>0.5</rsv></result>
    <result><file>d2.xml</file><path>/article[1]</path><rsv>0.9</rsv></result>
    <result><file>d3</file><fol offset="10" length="5"/><rsv>0.5</rsv></result>
  </topic>
</inex-submission>"""
    run = read_run(write(tmp_path / "r.xml", text))
    assert (run.run_id, run.participant, run.scoring_type) == ("r1", "7", "focused")
    assert list(run.results["doc"]) == ["d2", "d1", "d3"]
    assert list(run.results["rank"]) == [1, 2, 3]
    assert list(run.results["offset"]) == [-1, -1, 10]


def test_text_element_run_canonicalises(tmp_path):
    run = read_run(write(tmp_path / "r.txt", "1 Q0 d1 2 0.5 x /article/sec[2]/\n1 Q0 d1 1 0.7 x /article[1]\n"),
                   task="thorough", participant="grp")
    assert list(run.results["xpath"]) == ["/article[1]", "/article[1]/sec[2]"]
    assert run.participant == "grp" and run.format == "xpath-text"
    assert np.isclose(run.results["rsv"].iloc[0], 0.7)


def test_unknown_task_is_an_error(tmp_path):
    with pytest.raises(InputError, match="unknown task"):
        read_run(write(tmp_path / "r.txt", "1 Q0 d 1 1 x 0 5\n"), task="fastest")


@pytest.mark.parametrize("label,scoring", [
    # 2005 (measures paper, section 6), any case, "Focussed" or "Focused"
    ("CO.Thorough", "thorough"), ("CO.Focussed", "focused"), ("COS.Thorough", "thorough"),
    ("cos.focussed", "focused"), ("CO.FetchBrowse", "fetch-browse"), ("COS.FetchBrowse", "fetch-browse"),
    ("SSCAS", "thorough"), ("SVCAS", "thorough"), ("vscas", "thorough"), ("VVCAS", "thorough"),
    ("CO.Focused", "focused"),
    # 2006 (paper footnote 6: the run DTD calls Relevant in Context "AllInContext")
    ("AllInContext", "relevant-in-context"), ("BestInContext", "best-in-context"), ("Focussed", "focused"),
    # 2007-2010
    ("Thorough", "thorough"), ("Focused", "focused"), ("RelevantInContext", "relevant-in-context"),
    ("RestrictedFocused", "focused"), ("Relevant in Context", "relevant-in-context")])
def test_every_years_task_labels(tmp_path, label, scoring):
    xml = (f'<inex-submission participant-id="7" run-id="r1" task="{label}"><topic topic-id="5"><result>'
           '<file>d1</file><path>/article[1]</path><rank>1</rank></result></topic></inex-submission>')
    run = read_run(write(tmp_path / "r.xml", xml))
    assert (run.scoring_type, run.task_label) == (scoring, label)
    text = read_run(write(tmp_path / "r.txt", "1 Q0 d 1 1 x 0 5\n"), task=label)
    assert (text.scoring_type, text.task_label) == (scoring, label)
    # the cached run table keeps both
    run.save(tmp_path / "r.parquet")
    back = type(run).load(tmp_path / "r.parquet")
    assert (back.scoring_type, back.task_label) == (scoring, label)


def test_a_2005_topic_without_relevant_elements_joins_the_campaign_scale(tmp_path):
    """A topic whose pool held nothing relevant has a file with no <element>: it says nothing of
    the scale, so it neither makes the campaign inex2006 nor decides the config check."""
    from inexflow.campaign.config import ConfigError, check_quantisations
    from inexflow.io.detect import sniff_scale

    empty = write(tmp_path / "1.xml", '<assessments topic="1"><file name="A"></file></assessments>')
    full = write(tmp_path / "2.xml", '<assessments topic="2"><file name="B"><element path="/article[1]" '
                                     'exhaustivity="2" size="100" rsize="100"/></file></assessments>')
    assert (sniff_scale(empty), sniff_scale(full)) == (None, "inex2005")
    a = read_assessments([empty, full])
    assert a.scale == "inex2005" and set(a.documents["topic"]) == {"1", "2"}
    aset = {"format": "auto", "files": [str(empty), str(full)]}
    check_quantisations(aset, ["strict", "genLifted"])  # 2005 quantisations: no error
    with pytest.raises(ConfigError, match="spec"):  # the 2006-only quantisation, judged by file 2
        check_quantisations(aset, ["spec"])


@pytest.mark.parametrize("seed", range(6))
def test_duplicate_mask_equals_pandas_duplicated(seed):
    """The packed-key duplicate search marks exactly the rows pandas' duplicated() marks on the
    five result columns: repeated passages, same start with another length, repeated
    elements (offset -1), with and without the reader's codes."""
    from inexflow.io.canonical import duplicate_mask

    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame({"topic": rng.choice(["1", "2", "10"], n), "doc": rng.choice([f"d{i}" for i in range(8)], n),
                       "xpath": rng.choice(["", "/article[1]", "/article[1]/sec[2]"], n),
                       "offset": rng.choice([-1, 0, 5, 100, 2**31 - 1], n), "length": rng.choice([-1, 1, 7], n)})
    want = df.duplicated(subset=["topic", "doc", "xpath", "offset", "length"]).to_numpy()
    assert want.any() and not want.all()
    assert (duplicate_mask(df) == want).all()
    codes = {k: pd.factorize(df[k]) for k in ("topic", "doc", "xpath")}
    assert (duplicate_mask(df, codes) == want).all()
