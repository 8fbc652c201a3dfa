"""The collection index: xpaths and character ranges, checked by hand."""
import pandas as pd
import pytest

from conftest import write
from inexflow.errors import InputError
from inexflow.io.collection import elements_covering, index_collection
from inexflow.model.runs import read_run, resolve_extents

DOC = "<article><fm>ab</fm><bdy><p>cde</p>x<p>fg</p></bdy></article>"
# text = "ab" + "cde" + "x" + "fg" = "abcdexfg"


def test_index_by_hand(tmp_path):
    write(tmp_path / "c" / "d1.xml", DOC)
    ix = index_collection(tmp_path / "c", ["d1"])
    got = {r.xpath: (r.start, r.end, r.depth) for r in ix.itertuples()}
    assert got == {"/article[1]": (0, 8, 1), "/article[1]/fm[1]": (0, 2, 2), "/article[1]/bdy[1]": (2, 8, 2),
                   "/article[1]/bdy[1]/p[1]": (2, 5, 3), "/article[1]/bdy[1]/p[2]": (6, 8, 3)}
    parents = dict(zip(ix["xpath"], ix["parent"]))
    assert parents["/article[1]/bdy[1]/p[2]"] == list(ix["xpath"]).index("/article[1]/bdy[1]")
    # character range -> elements inside it
    inside = elements_covering(ix, "d1", 2, 8)
    assert set(inside["xpath"]) == {"/article[1]/bdy[1]", "/article[1]/bdy[1]/p[1]", "/article[1]/bdy[1]/p[2]"}


def test_missing_document_is_an_error(tmp_path):
    write(tmp_path / "c" / "d1.xml", DOC)
    with pytest.raises(InputError, match="document d9.*not found in the collection"):
        index_collection(tmp_path / "c", ["d1", "d9"])


def test_resolve_element_run(tmp_path):
    write(tmp_path / "c" / "d1.xml", DOC)
    run = read_run(write(tmp_path / "r.txt", "1 Q0 d1 1 1 x /article[1]/bdy[1]/p[2]\n"), task="focused")
    run = resolve_extents(run, tmp_path / "c")
    assert (run.results.offset.iloc[0], run.results.length.iloc[0]) == (6, 2)
    bad = read_run(write(tmp_path / "b.txt", "1 Q0 d1 1 1 x /article[1]/bdy[1]/p[3]\n"), task="focused")
    with pytest.raises(InputError, match=r"b.txt:line 1: element d1/article\[1\]/bdy\[1\]/p\[3\]"):
        resolve_extents(bad, tmp_path / "c", pd.DataFrame(columns=["doc", "xpath", "start", "end"]))


def test_whole_document_run_gets_the_document_length(tmp_path):
    write(tmp_path / "c" / "d1.xml", DOC)
    run = read_run(write(tmp_path / "r.txt", "1 Q0 d1 1 1.0 x\n"), task="focused")
    assert (run.results.offset.iloc[0], run.results.length.iloc[0]) == (0, -1)
    run = resolve_extents(run, tmp_path / "c")
    assert (run.results.offset.iloc[0], run.results.length.iloc[0]) == (0, 8)


def test_a_bare_document_id_finds_its_file_in_a_subdirectory(tmp_path):
    from inexflow.io.collection import index_collection, index_document

    (tmp_path / "part-000").mkdir()
    doc = tmp_path / "part-000" / "1000.xml"
    doc.write_text("<article><name>A</name><body><p>text</p></body></article>")
    got = index_collection(tmp_path, ["1000"])
    assert list(got["doc"].unique()) == ["1000"] and len(got) == len(index_document(doc, "1000"))
    assert index_collection(tmp_path, ["part-000/1000"])["xpath"].tolist() == got["xpath"].tolist()
    (tmp_path / "part-001").mkdir()
    (tmp_path / "part-001" / "1000.xml").write_text("<article/>")  # two files of one name: neither is guessed
    import pytest

    from inexflow.errors import InputError
    with pytest.raises(InputError, match="document 1000: not found in the collection"):
        index_collection(tmp_path, ["1000"])
