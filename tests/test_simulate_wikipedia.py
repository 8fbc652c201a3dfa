"""The Wikipedia-shaped simulated collection (``structure: wikipedia``): its shape, its
layout, its determinism whatever the number of processes, and that the workflow's collection
index reads it."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from inexflow.simulate.wikipedia import doc_ids, write_collection

N = 200


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    root = tmp_path_factory.mktemp("wiki") / "collection"
    stats = write_collection(root, N, seed=7, processes=1)
    return root, stats


def _files(root):
    return sorted(Path(root).rglob("*.xml"))


def test_articles_are_numbered_files_in_a_directory_tree(wiki):
    root, stats = wiki
    files = _files(root)
    assert stats["documents"] == len(files) == N
    assert {p.parent.name for p in files} == {"part-000"}
    assert [str(p.relative_to(root))[:-4] for p in files] == sorted(doc_ids(N))
    assert doc_ids(2001)[-1] == "part-002/3000"


def test_the_shape_is_the_wikipedia_collections(wiki):
    root, stats = wiki
    sizes, counts, depths, tags = [], [], [], Counter()
    for p in _files(root):
        sizes.append(p.stat().st_size)
        els = list(etree.parse(str(p)).getroot().iter())
        counts.append(len(els))
        depths.append(max(sum(1 for _ in e.iterancestors()) for e in els) + 1)
        tags.update(etree.QName(e).localname for e in els)
    sizes, counts = np.array(sizes), np.array(counts)
    assert stats["bytes"] == sizes.sum() and stats["elements"] == counts.sum()
    assert 5000 < sizes.mean() < 10000            # about 7 KB per article, markup included
    assert 110 < counts.mean() < 220              # on the order of 160 elements
    assert np.median(counts) < 0.8 * counts.mean()  # long-tailed: the mean well above the median
    assert counts.max() > 4 * counts.mean()
    assert 5 <= np.mean(depths) <= 9 and max(depths) >= 8   # nested sections
    assert {"article", "name", "body", "section", "title", "p", "collectionlink", "unknownlink", "outsidelink",
            "emph2", "emph3", "normallist", "item", "table", "row", "cell", "template"} <= set(tags)
    assert tags["collectionlink"] > tags["p"] > tags["section"] > tags["article"] == N


def test_the_bytes_do_not_depend_on_the_processes(tmp_path):
    a = write_collection(tmp_path / "a", 50, seed=3, processes=1, per_dir=12)
    b = write_collection(tmp_path / "b", 50, seed=3, processes=3, per_dir=12)
    assert a == b
    fa, fb = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert [p.relative_to(tmp_path / "a") for p in fa] == [p.relative_to(tmp_path / "b") for p in fb]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(fa, fb))
    assert len({p.parent.name for p in fa}) == 5
    c = write_collection(tmp_path / "c", 50, seed=4, processes=1, per_dir=12)
    assert c != a


def test_the_collection_index_reads_the_articles(wiki, tmp_path):
    from inexflow.io.collection import index_collection
    from inexflow.model.collection_index import build_shard, read_documents
    from inexflow.model.shard_plan import list_documents, plan_shards, write_members

    root, stats = wiki
    docs = list_documents(root)
    assert docs == sorted(doc_ids(N))
    cache = tmp_path / "cache"
    shards = plan_shards(root, cache)
    write_members(cache, shards)
    files = [build_shard(root, cache, s.key) for s in shards]
    some = docs[::37]
    got = read_documents(files, some, collection=root)
    assert got.equals(index_collection(root, some))
    assert got.groupby("doc").size().sum() == len(got)
    assert got["xpath"].str.startswith("/article[1]/").sum() == len(got) - len(some)
    assert set(got["tag"]) >= {"article", "body", "section", "p"}
