"""The XML run reader's fast scan (inexflow.io.run_xml._scan) against its tree reader: the
same table, warnings and errors on runs of varied shapes, and every shape the scan does not
read exactly left to the tree reader."""
import logging

import numpy as np
import pandas.testing as pdt
import pytest

from inexflow.errors import InputError
from inexflow.io import run_xml


def both(path, caplog):
    """(scan result or None, run read with the scan, run read by the tree reader, warnings of each)."""
    scanned = run_xml._scan(path.read_bytes())
    out = []
    for use_scan in (True, False):
        caplog.clear()
        saved = run_xml._scan
        if not use_scan:
            run_xml._scan = lambda data: None
        try:
            with caplog.at_level(logging.WARNING, logger="inexflow"):
                try:
                    out.append(run_xml.read_xml_run(path))
                except InputError as e:
                    out.append(str(e))
        finally:
            run_xml._scan = saved
        out.append([r.getMessage() for r in caplog.records])
    return scanned, out[0], out[2], out[1], out[3]


def read_alike(path, caplog):
    """The scan's result on ``path``, after checking that the reader with the scan and the tree
    reader give the same table (or error) and warnings."""
    scanned, fast, slow, fast_warn, slow_warn = both(path, caplog)
    assert fast_warn == slow_warn
    if isinstance(slow, str):
        assert fast == slow
    else:
        pdt.assert_frame_equal(fast.results, slow.results)
    return scanned


def result(doc, xpath, rank=None, rsv=None, sep="", ind=""):
    parts = [f"<file>{doc}</file>", f"<path>{xpath}</path>"]
    if rank is not None:
        parts.append(f"<rank>{rank}</rank>")
    if rsv is not None:
        parts.append(f"<rsv>{rsv}</rsv>")
    return f"{ind}<result>{sep}" + sep.join(parts) + f"{sep}</result>"


def submission(topics, header="", decl='<?xml version="1.0" encoding="UTF-8"?>\n', nl="\n"):
    body = nl.join(f'<topic topic-id="{t}">{nl}' + nl.join(rs) + f"{nl}</topic>" for t, rs in topics)
    return (f'{decl}<inex-submission participant-id="7" run-id="r1" task="CO.Thorough" query="automatic">{nl}'
            f"{header}{body}{nl}</inex-submission>{nl}")


def random_run(rng, one_per_line: bool = False) -> str:
    """A run in a random one of the shapes the scan reads: layout, line ends, ranks and rsvs,
    document names with .xml, xpaths that need canonical form, a header, repeated results;
    ``one_per_line``: a result a line, with blank lines and varied indentation here and there."""
    sep = "" if one_per_line else rng.choice(["", "\n", "\n    ", " "])
    nl = "\n" if one_per_line else rng.choice(["\n", "\r\n", ""])
    has_rank, has_rsv = rng.random() < 0.7, rng.random() < 0.7
    xps = ["/article[1]/bdy[1]/sec[2]", "/article/bdy/sec[3]/p[2]/", " /article[1] ", "/article[1]/fm[1]"]
    topics = []
    for t in range(int(rng.integers(1, 5))):
        rs = []
        for k in range(int(rng.integers(0, 12))):
            doc = f"{rng.integers(1, 6)}{'.xml' if rng.random() < 0.2 else ''}"
            rsv = rng.choice(["1.0", "0.5", "-2.5e-3", ".25", "7", "1E5", " 3.0 "])
            rs.append(result(doc, rng.choice(xps), (rng.choice([k + 1, 1, 0, -3]) if has_rank else None),
                             rsv if has_rsv else None, sep, rng.choice(["  ", "\t", ""]) if one_per_line else "  "))
            if one_per_line and rng.random() < 0.1:
                rs.append(rng.choice(["", "   ", "\t"]))
        topics.append((str(rng.choice([2009001 + t, 5, "a1"])), rs))
    header = rng.choice(["", '<topic-fields title="yes" castitle="no"/>\n<description>vsm, &amp; more</description>\n'
                             "<collections><collection>ieee</collection></collections>\n"])
    return submission(topics, header, rng.choice(['<?xml version="1.0" encoding="UTF-8"?>\n', "",
                                                  "\ufeff<?xml version='1.0'?>"]), nl)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_scan_equals_the_tree_reader_on_random_shapes(tmp_path, caplog, seed):
    p = tmp_path / "r.xml"
    p.write_bytes(random_run(np.random.default_rng(seed)).encode())
    scanned, fast, slow, fast_warn, slow_warn = both(p, caplog)
    assert fast_warn == slow_warn
    if isinstance(slow, str):  # no results at all: both say so
        assert fast == slow and scanned is None
        return
    assert scanned is not None  # every generated shape is one the scan reads
    pdt.assert_frame_equal(fast.results, slow.results)
    assert (fast.run_id, fast.participant, fast.scoring_type, fast.task_label) == \
        (slow.run_id, slow.participant, slow.scoring_type, slow.task_label)


R = result("d1", "/article[1]", 1, "0.5")
LEFT_TO_THE_TREE = {
    "fol": submission([("1", ['<result><file>d1</file><fol offset="0" length="5"/></result>'])]),
    "comment": submission([("1", [R, "<!-- x -->"])]),
    "entity in a value": submission([("1", [result("d&amp;1", "/article[1]", 1, "0.5")])]),
    "namespace prefix": submission([("1", [R])]).replace("<result>", "<x:result xmlns:x='u'>").replace(
        "</result>", "</x:result>"),
    "rank in some results only": submission([("1", [R, result("d2", "/article[1]", None, "0.4")])]),
    "empty rank": submission([("1", [result("d1", "/article[1]", "", "0.5")])]),
    "plus sign in rank": submission([("1", [result("d1", "/article[1]", "+1", "0.5")])]),
    "NaN rsv": submission([("1", [result("d1", "/article[1]", 1, "nan")])]),
    "value over two lines": submission([("1", [result("d\n1", "/article[1]", 1, "0.5")])]),
    "result outside a topic": submission([("1", [R])]).replace("</inex-submission>", R + "</inex-submission>"),
    "unknown child": submission([("1", [R.replace("</result>", "<note>x</note></result>")])]),
    "non-ASCII document": submission([("1", [result("d\u00e91", "/article[1]", 1, "0.5")])]),
    "bad xpath": submission([("1", [result("d1", "article[x]", 1, "0.5")])]),
    "topic with another attribute": submission([("1", [R])]).replace('topic-id="1"', 'topic-id="1" n="2"'),
    "latin-1 declared": submission([("1", [R])], decl='<?xml version="1.0" encoding="ISO-8859-1"?>'),
    "unclosed root": submission([("1", [R])]).replace("</inex-submission>", ""),
    "nested topics": submission([("1", [R])]).replace("</topic>", '<topic topic-id="2"></topic></topic>'),
    # what the line reader checks in each field instead of searching the whole file
    "control character in a document": submission([("1", [result("d\x0b1", "/article[1]", 1, "0.5")])]),
    "]]> in a document": submission([("1", [result("d]]>1", "/article[1]", 1, "0.5")])]),
    "control character in a rank": submission([("1", [result("d1", "/article[1]", "\x0c1", "0.5")])]),
    "control character in an xpath": submission([("1", [result("d1", "/article[1]\x1f", 1, "0.5")])]),
    "control character in the indentation": submission([("1", [R, "\x0b" + R.replace("d1", "d2")])]),
    "control character in a topic tag": submission([("1", [R])]).replace("<topic topic-id", "<topic\x0btopic-id"),
    "control character on a blank line": submission([("1", [R, "\x1c", R.replace("d1", "d2")])]),
    "control character after the root": submission([("1", [R])]) + "\x0c",
    "processing instruction in a topic": submission([("1", [R, "<?pi x?>"])]),
    "CDATA in a value": submission([("1", [result("<![CDATA[d1]]>", "/article[1]", 1, "0.5")])]),
    "non-ASCII topic": submission([("t\u00e91", [R])]),
    "non-ASCII xpath": submission([("1", [result("d1", "/article[1]/s\u00e9c[1]", 1, "0.5")])]),
    "non-breaking space around a document": submission([("1", [result("\u00a0d1", "/article[1]", 1, "0.5")])]),
}


@pytest.mark.parametrize("name", sorted(LEFT_TO_THE_TREE))
def test_shapes_the_scan_leaves_to_the_tree_reader(tmp_path, caplog, name):
    p = tmp_path / "r.xml"
    p.write_bytes(LEFT_TO_THE_TREE[name].encode("latin-1" if "latin" in name else "utf-8"))
    assert read_alike(p, caplog) is None


# the line reader reads its fields as bytes: what is not UTF-8 text, or a wrong tag of the right
# length, is found in the field it falls in
R2 = result("d2", "/article[1]/sec[1]", 2, "0.25", ind="  ").encode()
NOT_READ_AS_BYTES = {
    "latin-1 byte in a document": R2.replace(b"d2", b"d\xe92"),
    "latin-1 byte in an xpath": R2.replace(b"sec[1]", b"s\xe9c[1]"),
    "latin-1 byte in a rank": R2.replace(b"<rank>2", b"<rank>2\xe9"),
    "latin-1 byte in an rsv": R2.replace(b"0.25", b"0.2\xe95"),
    "latin-1 byte in the indentation": b"\xa0" + R2,
    "latin-1 byte in a tag": R2.replace(b"</path>", b"</p\xe9th>"),
    "a truncated UTF-8 character in a document": R2.replace(b"d2", b"d\xc32"),
    "another end tag of the same length": R2.replace(b"</file>", b"</path>"),
    "end tags swapped": R2.replace(b"</file>", b"</rank>").replace(b"</rank><rsv>", b"</file><rsv>"),
    "start tag of another name": R2.replace(b"<rsv>", b"<rsx>").replace(b"</rsv>", b"</rsx>"),
    "a result end tag misspelt": R2.replace(b"</result>", b"</resulx>"),
}


@pytest.mark.parametrize("name", sorted(NOT_READ_AS_BYTES))
def test_fields_the_line_reader_leaves_to_the_others(tmp_path, caplog, name):
    data = submission([("1", [result("d1", "/article[1]", 1, "0.5", ind="  "), "@@"])]).encode()
    data = data.replace(b"@@", NOT_READ_AS_BYTES[name])
    assert run_xml._scan_lines(data, data.find(b"<topic"), data.rfind(b"</topic>") + len(b"</topic>")) is None
    p = tmp_path / "r.xml"
    p.write_bytes(data)
    read_alike(p, caplog)


def test_text_between_results_is_ignored_by_both(tmp_path, caplog):
    p = tmp_path / "r.xml"
    p.write_text(submission([("1", [R, "stray text", result("d2", "/article[1]", 2, "0.4")])]))
    scanned, fast, slow, fast_warn, slow_warn = both(p, caplog)
    assert scanned is not None and fast_warn == slow_warn
    pdt.assert_frame_equal(fast.results, slow.results)
    assert list(fast.results["doc"]) == ["d1", "d2"] and list(fast.results["line"]) == [4, 6]  # line 5: the text


def tag_scan_only(monkeypatch, data):
    """_scan with the line reader off: every body read from its tags' byte positions."""
    with monkeypatch.context() as m:
        m.setattr(run_xml, "_scan_lines", lambda *a: None)
        return run_xml._scan(data)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_the_line_reader_equals_the_tag_scan_and_the_tree(tmp_path, caplog, monkeypatch, seed):
    rng = np.random.default_rng(1000 + seed)
    data = random_run(rng, one_per_line=seed % 4 != 0).encode()
    p = tmp_path / "r.xml"
    p.write_bytes(data)
    read_alike(p, caplog)
    used = []
    real = run_xml._scan_lines
    monkeypatch.setattr(run_xml, "_scan_lines", lambda *a: used.append(real(*a)) or used[-1])
    by_lines = run_xml._scan(data)
    by_tags = tag_scan_only(monkeypatch, data)
    assert (by_lines is None) == (by_tags is None)
    if by_tags is not None:
        pdt.assert_frame_equal(by_lines[1], by_tags[1])
        assert by_lines[2] == by_tags[2]
    one_per_line = b"\r" not in data and all(line.strip().startswith((b"<result>", b"<topic", b"</topic>"))
                                             and line.count(b"<result>") <= 1
                                             for line in data.split(b"\n")[data.count(b"\n", 0, data.find(b"<topic")):-2])
    if by_tags is not None and one_per_line and b"<result><file>" in data:
        assert used and used[0] is not None  # the usual layout is read line by line


LAID_OUT_OTHERWISE = {  # read by the tag scan, not line by line; the same results
    "two results on a line": submission([("1", [R + R.replace("d1", "d2")])]),
    "result over lines": submission([("1", [result("d1", "/article[1]", 1, "0.5", sep="\n")])]),
    "text before a result": submission([("1", ["x " + R])]),
    "text after a topic tag": submission([("1", [R])]).replace('<topic topic-id="1">', '<topic topic-id="1"> x'),
    "spaces after a result": submission([("1", [R + "  "])]),
    "a rank-only result among full ones": submission([("1", [R, result("d2", "/article[1]", 2)])]),
}


@pytest.mark.parametrize("name", sorted(LAID_OUT_OTHERWISE))
def test_layouts_the_line_reader_leaves_to_the_tag_scan(monkeypatch, name):
    data = LAID_OUT_OTHERWISE[name].encode()
    first = data.find(b"<topic")
    assert run_xml._scan_lines(data, first, data.rfind(b"</topic>") + len(b"</topic>")) is None
    by_tags = tag_scan_only(monkeypatch, data)
    scanned = run_xml._scan(data)
    assert (scanned is None) == (by_tags is None)
    if by_tags is not None:
        pdt.assert_frame_equal(scanned[1], by_tags[1])


def test_the_line_reader_numbers_lines_and_topics(monkeypatch):
    data = submission([("7", [R, "", result("d2", "/article[1]/sec[1]", 2, "0.25")]), ("8", [R])]).encode()
    first = data.find(b"<topic")
    df, ranked, codes = run_xml._scan_lines(data, first, data.rfind(b"</topic>") + len(b"</topic>"))
    # line 1 the declaration, 2 the root, 3 topic 7, 4 a result, 5 blank, 6 a result, 7 </topic>, 8 topic 8
    assert list(df["line"]) == [4, 6, 9] and list(df["topic"]) == ["7", "7", "8"] and ranked
    assert list(df["xpath"]) == ["/article[1]", "/article[1]/sec[1]"] + ["/article[1]"]
    assert all(list(codes[k][1][codes[k][0]]) == list(df[k]) for k in ("topic", "doc", "xpath"))


@pytest.mark.parametrize("seed", range(20))
def test_the_scans_codes_are_the_tables_strings(tmp_path, monkeypatch, seed):
    """Both scans' codes give back the table's strings, numbered in order of first appearance
    (documents and xpaths that differ only by ".xml" or canonical form share one code), and the
    reader attaches them to the run where no result moved."""
    import pandas as pd

    from inexflow.io.topic_order import topic_sort_key

    rng = np.random.default_rng(2000 + seed)
    if seed % 3:  # random shapes (mostly reordered by rank), or results ranked in file order
        data = random_run(rng, one_per_line=seed % 2 == 0).encode()
    else:
        xps = ["/article[1]/bdy[1]/sec[2]", "/article/bdy/sec[2]", "/article[1]", "/article[1]/fm[1]"]
        data = submission([(t, [result(f"{rng.integers(1, 6)}{rng.choice(['', '.xml'])}", rng.choice(xps), k + 1, "0.5",
                                       ind="  ") for k in range(int(rng.integers(1, 9)))])
                           for t in sorted(["3", "1", "a2"], key=topic_sort_key)]).encode()
    for scanned in (run_xml._scan(data), tag_scan_only(monkeypatch, data)):
        if scanned is None:
            continue
        df, codes = scanned[1], scanned[3]
        for k in ("topic", "doc", "xpath"):
            expected, uniques = pd.factorize(df[k])
            assert np.array_equal(codes[k][0], expected) and list(codes[k][1]) == list(uniques)
    p = tmp_path / "r.xml"
    p.write_bytes(data)
    try:
        run = run_xml.read_xml_run(p)
    except InputError:
        return
    lines = run.results["line"].to_numpy()
    if run_xml._scan(data) is not None and (np.diff(lines) > 0).all() and \
            list(lines) == sorted(run_xml._scan(data)[1]["line"]):
        for k in ("topic", "doc", "xpath"):
            c, u = run.codes(k)
            assert list(u[c]) == list(run.results[k])
    else:
        assert seed % 3  # an ordered run always gets them
        assert run.codes("topic") is None


# one change to a run laid out a result a line: each either kept by the line reader or left to
# the other readers, which must give the same table, warnings or error
MUTATIONS = {
    "blank line": lambda ls, i, rng: ls.insert(i, ""),
    "spaces-only line": lambda ls, i, rng: ls.insert(i, " \t "),
    "deep indentation": lambda ls, i, rng: ls.__setitem__(i, " " * 40 + ls[i].lstrip()),
    "tab indentation": lambda ls, i, rng: ls.__setitem__(i, "\t\t" + ls[i].lstrip()),
    "no indentation": lambda ls, i, rng: ls.__setitem__(i, ls[i].lstrip()),
    "CR LF line end": lambda ls, i, rng: ls.__setitem__(i, ls[i] + "\r"),
    "comment line": lambda ls, i, rng: ls.insert(i, "<!-- note -->"),
    "attribute on a result": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("<result>", '<result n="1">')),
    "quote in a document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", '"q</file>')),
    "> in a document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", "&gt;x</file>")),
    "DEL in a document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", "\x7f</file>")),
    "space inside a document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", " b</file>")),
    "padded rank": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("<rank>", "<rank> \t")),
    "non-ASCII document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", "\u00e9\u4e2d</file>")),
    "non-ASCII xpath": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</path>", "/s\u00e9c[1]</path>")),
    "very long xpath": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</path>", "/sec[1]" * 700 + "</path>")),
    "very long document": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</file>", "d" * 5000 + "</file>")),
    "result twice": lambda ls, i, rng: ls.insert(i, ls[i]),
    "empty topic": lambda ls, i, rng: ls.insert(i, '</topic>\n<topic topic-id="e1">\n</topic>\n<topic topic-id="e2">')
    if ls[i].lstrip().startswith("<result>") else None,
    "topic tag with spaces": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("<topic topic-id", "  <topic \t topic-id")),
    "misspelt end tag": lambda ls, i, rng: ls.__setitem__(i, ls[i].replace("</path>", "</pa_h>")),
    "two results on a line": lambda ls, i, rng: ls.__setitem__(i, ls[i] + ls[i].lstrip())
    if ls[i].lstrip().startswith("<result>") else None,
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(60))
def test_mutated_line_layouts_read_alike(tmp_path, caplog, monkeypatch, seed):
    """A run in the usual layout with one to three changes from :data:`MUTATIONS` (seeded): the
    scan and the tree reader give the same table, warnings or error, and where the scan reads
    it, its codes are the table's strings numbered in order of first appearance."""
    import pandas as pd

    rng = np.random.default_rng(3000 + seed)
    lines = random_run(rng, one_per_line=True).split("\n")
    body = [i for i, line in enumerate(lines) if line.lstrip().startswith(("<result>", "<topic", "</topic>"))]
    names = sorted(MUTATIONS)
    for name in rng.choice(names, size=int(rng.integers(1, 4))):
        MUTATIONS[name](lines, int(rng.choice(body)), rng)
    p = tmp_path / "r.xml"
    p.write_bytes("\n".join(lines).encode())
    scanned = read_alike(p, caplog)
    if scanned is not None:
        df, codes = scanned[1], scanned[3]
        for k in ("topic", "doc", "xpath"):
            expected, uniques = pd.factorize(df[k])
            assert np.array_equal(codes[k][0], expected) and list(codes[k][1]) == list(uniques)
