"""The collection index (inexflow.io.collection, array operations over lxml's serialisation)
equals its definition computed another way: a visit of lxml's tree, one element at a time,
on generated documents with every construct XML allows in a collection document, on the demo
collection and on Wikipedia-shaped articles (exact)."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from inexflow.io import collection as coll
from inexflow.io.xmlutil import local, parse_xml


def reference(path, doc):
    """Rows (doc, xpath, tag, start, end, depth, parent) by the definition in
    inexflow.io.collection: text is every text node in document order (tails of comments and
    processing instructions included), an element covers [start, end) of it."""
    root = parse_xml(path, "document")
    rows, pos = [], 0

    def visit(el, xpath, name, depth, parent):
        nonlocal pos
        me = len(rows)
        row = [doc, xpath, name, pos, 0, depth, parent]
        rows.append(row)
        pos += len(el.text or "")
        counts = {}
        for ch in el:
            if isinstance(ch.tag, str):
                n = local(ch.tag)
                counts[n] = counts.get(n, 0) + 1
                visit(ch, f"{xpath}/{n}[{counts[n]}]", n, depth + 1, me)
            pos += len(ch.tail or "")
        row[4] = pos

    name = local(root.tag)
    visit(root, f"/{name}[1]", name, 1, -1)
    return [tuple(r) for r in rows]


TEXTS = ["", " ", "a", "word and more", "&amp;", "&lt;&gt;", "&#233;t&#xE9;", "&#x1F600;", "\u00e9\u4e2d\U0001F600",
         "&#13;", "line\nbreak", "\t", "a;b&amp;c;", "]]&gt;", '"quoted\'', "x/y", "a > b", "\u00a0"]
ODD_TEXTS = ["&e;", "<![CDATA[<c>&amp;]]>", "<!-- comment <p> -->", "<?pi data <> ?>", "<!---->", "<?target?>",
             "line\r\nbreak"]
TAGS = ["a", "p", "sec", "x:b", "y:p", "long-name.1", "\u00e9l\u00e9ment", "_u", "a-very-long-element-name-indeed"]
VALUES = ["v", "a&gt;b", "x/", "/>", "&amp;&quot;", "\u00e9", "&lt;p&gt;", "a b", "&#10;", "a>b"]
SPACES = [" ", "  ", "\n", "\t", "\n  "]


def build(rnd: random.Random, depth: int, plain: bool) -> str:
    tag = rnd.choice(TAGS)
    attrs = "".join(f'{rnd.choice(SPACES)}a{i}="{rnd.choice(VALUES)}"' for i in range(rnd.randint(0, 2)))
    close = f"</{tag}{rnd.choice(['', ' ', chr(10)])}>"
    if rnd.random() < 0.2:
        return f"<{tag}{attrs}{rnd.choice(['', ' '])}/>" if rnd.random() < 0.5 else f"<{tag}{attrs}>{close}"
    texts = TEXTS if plain else TEXTS + ODD_TEXTS
    parts = [rnd.choice(texts)]
    if rnd.random() < 0.05:  # a deep chain
        parts.append("<s>" * 40 + rnd.choice(texts) + "</s>" * 40)
    for _ in range(rnd.randint(0, 3) if depth < 6 else 0):
        parts.append(build(rnd, depth + 1, plain))
        parts.append(rnd.choice(texts))
    return f"<{tag}{attrs}>{''.join(parts)}{close}"


def document(seed: int) -> str:
    """A random document: "plain" ones (UTF-8, no DTD, comment, processing instruction, CDATA
    or carriage return), which the indexer scans as they are unless they hold a raw '>', and
    others, which it has lxml write out first."""
    rnd = random.Random(seed)
    plain = rnd.random() < 0.6
    body = build(rnd, 0, plain)
    while body.endswith("/>") or not body.startswith("<"):
        body = build(rnd, 0, plain)
    tag = body[1:body.index(">")].split()[0].rstrip("/")
    ns = ' xmlns:x="urn:x" xmlns:y="urn:y"'
    body = body.replace(f"<{tag}", f"<{tag}{ns}", 1)
    if rnd.random() < 0.3:
        body = body.replace(f"<{tag}{ns}", f'<{tag}{ns} xmlns="urn:default"', 1)
    if plain:
        return rnd.choice(["", "\ufeff", '<?xml version="1.0" encoding="utf-8"?>\n']) + body + rnd.choice(["", "\n"])
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE d [<!ENTITY e "ent&#233;">]>\n'
    return head + rnd.choice(["", "<!-- top -->", "<?top pi?>"]) + body + rnd.choice(["", "\n", "<!-- end -->"])


def test_both_forms_are_generated(tmp_path, monkeypatch):
    """The generator reaches both of the indexer's paths: documents scanned as they are, and
    documents lxml writes out first."""
    written = []
    monkeypatch.setattr(coll, "_written_out", lambda path, data=None: written.append(path) or WRITTEN_OUT(path, data))
    files = []
    for seed in range(40):
        p = tmp_path / f"d{seed}.xml"
        p.write_bytes(document(seed).encode())
        files.append((str(seed), p))
    coll.index_files(files)
    assert 0 < len(set(written)) < len(files)


WRITTEN_OUT = coll._written_out


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seeds=st.lists(st.integers(0, 10**9), min_size=1, max_size=6))
def test_generated_documents_index_as_defined(tmp_path, seeds):
    files = []
    for i, seed in enumerate(seeds):
        p = tmp_path / f"d{i}.xml"
        p.write_bytes(document(seed).encode())
        etree.parse(str(p))  # the generator writes well-formed XML
        files.append((f"d{i}", p))
    got = coll.index_files(files)
    want = [r for d, p in files for r in reference(p, d)]
    assert list(zip(*(got[c].to_pylist() for c in coll.INDEX_COLUMNS))) == want


def test_batches_split_anywhere_give_the_same_rows(tmp_path, monkeypatch):
    files = []
    for i in range(40):
        p = tmp_path / f"d{i}.xml"
        p.write_bytes(document(i).encode())
        files.append((f"d{i}", p))
    whole = coll.index_files(files).to_pylist()
    monkeypatch.setattr(coll, "BATCH_BYTES", 1)  # one document a batch
    assert coll.index_files(files).to_pylist() == whole
    assert len(whole) == sum(len(reference(p, d)) for d, p in files)


@pytest.mark.parametrize("structure", ["demo", "wikipedia"])
def test_simulated_collections_index_as_defined(tmp_path, structure):
    if structure == "wikipedia":
        from inexflow.simulate.wikipedia import write_collection

        write_collection(tmp_path / "c", 60, seed=5, processes=1)
    else:
        from inexflow.simulate.simulate import SimulationConfig, simulate

        simulate(tmp_path / "s", SimulationConfig(seed=3, n_docs=30, n_topics=2, n_groups=2, results_per_topic=5,
                                                  pool_target=5))
        (tmp_path / "s" / "collection").rename(tmp_path / "c")
    files = [(str(p.relative_to(tmp_path / "c"))[:-4], p) for p in sorted((tmp_path / "c").rglob("*.xml"))]
    got = coll.index_files(files)
    want = [r for d, p in files for r in reference(p, d)]
    assert len(want) > 30 * len(files) / 10
    assert list(zip(*(got[c].to_pylist() for c in coll.INDEX_COLUMNS))) == want
