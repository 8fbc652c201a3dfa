"""The collection indexed once, in shards keyed by content (inexflow.model.collection_index):
every shard's rows equal the per-document index, only changed shards change key, hashing is
cached, and runs resolve through the shards as through the collection."""
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import write
from inexflow.errors import InputError
from inexflow.io.collection import index_collection
from inexflow.io.content_keys import content_key
from inexflow.model import collection_index as ci
from inexflow.model import shard_plan as sp
from inexflow.model.runs import read_run, resolve_extents
from inexflow.simulate.simulate import SimulationConfig, simulate

ODD = [  # comments, processing instructions, entities, CDATA, mixed content, deep nesting
    '<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY e "ent">]>\n<a>x<!-- c --><b>&e;&#233;</b><?pi y?>z'
    "<c><![CDATA[<not markup>]]><d><e><f><g>deep</g></f></e></d>tail</c></a>",
    "<article><p>one<b>two</b>three</p><p/><p>four</p></article>",
]


def shard_rows(cache, shard):
    return ci.read_arrow(shard.path(cache)).select(list(ci.INDEX_COLUMNS)).to_pandas().astype(ci.INDEX_COLUMNS)


@pytest.fixture(scope="module")
def simulated_collection(tmp_path_factory):
    """The demo collection of a small simulated campaign with odd documents added, made once per module."""
    base = tmp_path_factory.mktemp("demo")
    simulate(base / "demo", SimulationConfig(seed=3, n_docs=12, n_topics=2, n_groups=2, results_per_topic=10,
                                             pool_target=5))
    coll = base / "demo" / "collection"
    for i, text in enumerate(ODD):
        write(coll / "odd" / f"x{i}.xml", text)
    return coll


@pytest.fixture
def collection(simulated_collection, tmp_path, monkeypatch):
    """A copy of :func:`simulated_collection` (and its campaign's runs beside it) of the test's own, in
    several shards of 4 documents."""
    monkeypatch.setattr(sp, "DOCS_PER_SHARD", 4)  # several shards from a few documents
    shutil.copytree(simulated_collection.parent / "runs", tmp_path / "demo" / "runs")
    return Path(shutil.copytree(simulated_collection, tmp_path / "demo" / "collection"))


def build_all(coll, cache):
    shards = sp.plan_shards(coll, cache)
    sp.write_members(cache, shards)  # as the workflow's main process does
    for s in shards:
        ci.build_shard(coll, cache, s.key)
    return shards


def test_every_shard_holds_the_per_document_index_of_its_documents(collection, tmp_path):
    cache = tmp_path / "cache"
    shards = build_all(collection, cache)
    docs = sp.list_documents(collection)
    assert len(shards) == 4 and sorted(d for s in shards for d in s.docs) == docs
    assert {"odd/x0", "odd/x1"} <= set(docs)
    for s in shards:
        assert all(sp.shard_of(d, len(shards)) == s.number for d in s.docs)
        assert list(s.docs) == sorted(s.docs)
        pd.testing.assert_frame_equal(shard_rows(cache, s), index_collection(collection, list(s.docs)))
    # any documents, in any order, read back exactly as indexing them gives
    want = [docs[5], "odd/x0", docs[0], docs[9], "odd/x1"]
    pd.testing.assert_frame_equal(ci.read_documents([s.path(cache) for s in shards], want, collection),
                                  index_collection(collection, want))


def test_a_shards_recorded_members_are_the_planned_shard(collection, tmp_path):
    cache = tmp_path / "cache"
    every = sp.plan_shards(collection, cache)
    sp.write_members(cache, every)
    assert [sp.read_members(cache, s.key) for s in every] == every


def test_a_shard_job_reads_only_its_own_documents_and_keys(collection, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    every = sp.plan_shards(collection, cache)
    sp.write_members(cache, every)
    mine = every[1]
    want = index_collection(collection, list(mine.docs))
    # every other document gone, and neither the collection's listing nor its key cache at hand
    for s in every:
        if s is not mine:
            for d in s.docs:
                (collection / f"{d}.xml").unlink()
    for f in (cache / "keys").glob("*"):
        f.write_text("not a key cache")
    monkeypatch.setattr(sp, "list_documents", lambda *a: pytest.fail("the job listed the collection"))
    monkeypatch.setattr(sp, "document_keys", lambda *a: pytest.fail("the job read the key cache"))
    ci.build_shard(collection, cache, mine.key)
    pd.testing.assert_frame_equal(shard_rows(cache, mine), want)


def test_a_shard_whose_list_of_documents_is_missing_or_altered_is_refused(collection, tmp_path):
    cache = tmp_path / "cache"
    s = sp.plan_shards(collection, cache)[0]
    with pytest.raises(InputError, match="the shard's list of documents cannot be read"):
        ci.build_shard(collection, cache, s.key)
    sp.write_members(cache, [s])
    members = Path(sp.members_path(cache, s.key))
    members.write_text(members.read_text().replace(s.docs[0], s.docs[0] + "x"))
    with pytest.raises(InputError, match="does not match its key"):
        ci.build_shard(collection, cache, s.key)
    sp.write_members(cache, [s])  # a file already there is left alone
    assert s.docs[0] + "x" in members.read_text()
    assert not s.path(cache).exists()


def test_the_plan_recorded_for_the_jobs_reads_back_only_for_its_collection_and_size(collection, tmp_path):
    cache, plan = tmp_path / "cache", tmp_path / "plan" / "shards.json"
    every = sp.plan_shards(collection, cache)
    sp.write_plan(plan, collection, None, every)
    assert sp.read_plan(plan, collection, None) == {s.key: s.number for s in every}
    assert sp.read_plan(plan, collection, sp.DOCS_PER_SHARD) == {s.key: s.number for s in every}
    assert sp.read_plan(plan, collection, sp.DOCS_PER_SHARD + 1) is None  # planned for another size
    assert sp.read_plan(plan, tmp_path, None) is None  # for another collection
    assert sp.read_plan(tmp_path / "absent.json", collection, None) is None
    plan.write_text("{not json")
    assert sp.read_plan(plan, collection, None) is None


def test_a_plan_checked_by_folders_is_reused_until_a_folder_changes(collection, tmp_path):
    """collection_check: folders: the last plan stands while every folder is as it was and every
    shard's list is in the cache; a document added, removed or moved in, a folder added, a list
    missing, or a plan recorded without folders plans again. A document written in place is not
    seen (what the setting trades for one stat per folder)."""
    cache, plan = tmp_path / "cache", tmp_path / "plans" / "p.json"

    def record():
        folders = sp.folder_stamps(collection)
        every = sp.plan_shards(collection, cache)
        sp.write_plan(plan, collection, None, every, folders)
        sp.write_members(cache, every)
        return {s.key: s.number for s in every}

    want = record()
    assert set(sp.folder_stamps(collection)) == {"", "odd", *{str(Path(d).parent) for d in sp.list_documents(
        collection)} - {"."}}
    assert sp.unchanged_plan(plan, collection, None, cache) == want
    assert sp.unchanged_plan(plan, collection, sp.DOCS_PER_SHARD + 1, cache) is None  # another size
    doc = collection / "odd" / "x0.xml"
    doc.write_text(doc.read_text() + " ")  # edited in place: the folder's time stays
    assert sp.unchanged_plan(plan, collection, None, cache) == want
    want = record()
    for change in (lambda: write(collection / "odd" / "new.xml", "<a/>"),  # added
                   lambda: (collection / "odd" / "new.xml").unlink(),  # removed
                   lambda: write(collection / "sub" / "y.xml", "<a/>"),  # a new folder: its parent changes
                   lambda: os.replace(tmp_path / "moved.xml", collection / "odd" / "x1.xml")):  # replaced by a move
        write(tmp_path / "moved.xml", "<a>moved</a>")
        change()
        assert sp.unchanged_plan(plan, collection, None, cache) is None
        want = record()
        assert sp.unchanged_plan(plan, collection, None, cache) == want
    os.remove(sp.members_path(cache, next(iter(want))))  # a shard's list pruned
    assert sp.unchanged_plan(plan, collection, None, cache) is None
    sp.write_plan(plan, collection, None, sp.plan_shards(collection, cache))  # recorded without folders
    assert sp.unchanged_plan(plan, collection, None, cache) is None


def test_schema_s_collection_checks_are_the_planner_s():
    import yaml

    schema = yaml.safe_load((Path(__file__).parents[1] / "workflow" / "schemas" / "config.schema.yaml").read_text())
    check = schema["properties"]["collection_check"]
    assert tuple(check["enum"]) == sp.COLLECTION_CHECKS and check["default"] == sp.COLLECTION_CHECKS[0]


def test_a_changed_or_added_document_changes_only_its_shard(collection, tmp_path):
    cache = tmp_path / "cache"
    before = {s.number: s.key for s in sp.plan_shards(collection, cache)}
    doc = sp.list_documents(collection)[3]
    path = collection / f"{doc}.xml"
    text = path.read_text()
    path.write_text(text.replace(">", "> ", 1))
    after = {s.number: s.key for s in sp.plan_shards(collection, cache)}
    changed = {k for k in before if before[k] != after[k]}
    assert changed == {sp.shard_of(doc, len(before))}
    # written back with its old bytes (and an older date): the old key again
    path.write_text(text)
    os.utime(path, (1, 1))
    assert {s.number: s.key for s in sp.plan_shards(collection, cache)} == before
    write(collection / "new.xml", "<a>new</a>")  # 15 documents: still 4 shards
    added = {s.number: s.key for s in sp.plan_shards(collection, cache)}
    assert {k for k in before if before[k] != added[k]} == {sp.shard_of("new", 4)}


def test_documents_are_hashed_once_until_they_change(collection, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    sp.plan_shards(collection, cache)
    import inexflow.io.content_keys as ck

    hashed = []
    real = ck.content_key
    monkeypatch.setattr(ck, "content_key", lambda p: hashed.append(Path(p)) or real(p))
    sp.plan_shards(collection, cache)
    assert hashed == []
    doc = sp.list_documents(collection)[0]
    (collection / f"{doc}.xml").write_text("<article>changed</article>")
    sp.plan_shards(collection, cache)
    assert [p.name for p in hashed] == [f"{doc}.xml"]


def test_a_shard_whose_documents_changed_after_planning_is_refused(collection, tmp_path):
    cache = tmp_path / "cache"
    s = sp.plan_shards(collection, cache)[0]
    sp.write_members(cache, [s])
    (collection / f"{s.docs[0]}.xml").write_text("<article>changed</article>")
    with pytest.raises(InputError, match="documents changed while the workflow ran"):
        ci.build_shard(collection, cache, s.key)
    assert not s.path(cache).exists()


@pytest.mark.slow
def test_runs_resolve_through_the_shards_as_through_the_collection(collection, tmp_path):
    cache = tmp_path / "cache"
    files = [s.path(cache) for s in build_all(collection, cache)]
    for run_file in sorted((collection.parent / "runs").glob("*.xml")):
        direct = resolve_extents(read_run(run_file), collection)
        run = read_run(run_file)
        via = resolve_extents(run, collection, ci.read_documents(files, run.results["doc"].unique()))
        pd.testing.assert_frame_equal(via.results, direct.results)
        run = read_run(run_file)  # as evaluate_run does: one shard at a time
        via = resolve_extents(run, collection, tables=ci.iter_document_tables(files, run.results["doc"].unique()))
        pd.testing.assert_frame_equal(via.results, direct.results)
    with pytest.raises(InputError, match="document nope: not found in the collection"):
        ci.read_documents(files, ["nope"], collection)


@pytest.mark.slow
def test_runs_of_the_2005_structure_resolve_through_the_shards(tmp_path, monkeypatch):
    """The 2005-structure campaign (IEEE-like documents in nested folders, element runs): its
    runs resolve through the shards, one shard at a time, as through the collection."""
    monkeypatch.setattr(sp, "DOCS_PER_SHARD", 5)
    simulate(tmp_path / "c5", SimulationConfig(seed=4, n_docs=16, n_topics=3, n_groups=2, results_per_topic=12,
                                                pool_target=6, structure="inex2005"))
    coll, cache = tmp_path / "c5" / "collection", tmp_path / "cache"
    files = [s.path(cache) for s in build_all(coll, cache)]
    assert len(files) == 4
    runs = sorted((tmp_path / "c5" / "runs").glob("*.xml"))
    assert runs
    for run_file in runs:
        direct = resolve_extents(read_run(run_file), coll)
        run = read_run(run_file)
        via = resolve_extents(run, coll, tables=ci.iter_document_tables(files, run.results["doc"].unique()))
        pd.testing.assert_frame_equal(via.results, direct.results)


def test_runs_name_wikipedia_articles_by_number(tmp_path):
    """As in the INEX 2006-2010 runs and assessments, a bare article number names the one file
    of that name in the collection's directory tree; its rows carry the id it was asked by."""
    coll, cache = tmp_path / "c", tmp_path / "cache"
    write(coll / "part-000" / "1000.xml", "<article><p>one</p></article>")
    write(coll / "part-001" / "1001.xml", "<article><p>two</p><p>three</p></article>")
    write(coll / "part-000" / "7.xml", "<article>a</article>")
    write(coll / "part-001" / "7.xml", "<article>b</article>")
    files = [s.path(cache) for s in build_all(coll, cache)]
    got = ci.read_documents(files, ["1001", "part-000/1000", "1000"], coll)
    assert got["doc"].tolist() == ["1001"] * 3 + ["part-000/1000"] * 2 + ["1000"] * 2
    assert got["end"].tolist() == [8, 3, 8, 3, 3, 3, 3]
    assert ci.read_documents(files, ["part-001/7"], coll)["end"].tolist() == [1]
    with pytest.raises(InputError, match=r"document 7: 2 files have that name \(part-000/7.xml, part-001/7.xml\)"):
        ci.read_documents(files, ["7"], coll)
    with pytest.raises(InputError, match="document 1002: not found in the collection"):
        ci.read_documents(files, ["1000", "1002"], coll)
    assert ci.read_documents(files, ["1002"]).empty  # without a collection: left out


def test_the_workflows_shard_size_default_is_the_librarys():
    import yaml

    from conftest import ROOT

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert schema["properties"]["collection_shard_docs"]["default"] == sp.DOCS_PER_SHARD


def test_a_document_file_name_with_a_line_break_is_refused(collection, tmp_path):
    write(collection / "odd" / "a\nb.xml", "<a/>")
    with pytest.raises(InputError, match="a file name with a line break"):
        sp.plan_shards(collection, tmp_path / "cache")


def test_the_scan_lists_every_document_with_its_own_stat_whatever_the_threads(tmp_path, monkeypatch):
    """scan_documents reads each folder once (nested folders, names that sort across folders,
    files that are not documents, a folder symlink not followed) and stats each document
    relative to its folder: the ids and the (device, inode, size, mtime_ns, ctime_ns) of each are
    those of os.stat of its path, in id order, with 1 thread or several."""
    root = tmp_path / "c"
    for rel in ["a/1.xml", "a-b/2.xml", "a/b/3.xml", "a/b/c/4.xml", "z.xml", "a/notes.txt", "b/5.xml"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("<a>" + "x" * len(rel) + "</a>")
    (root / "link").symlink_to(root / "a", target_is_directory=True)
    want = ["a-b/2", "a/1", "a/b/3", "a/b/c/4", "b/5", "z"]
    for threads in (1, 3):
        monkeypatch.setattr(sp, "SCAN_THREADS", threads)
        docs, stamps = sp.scan_documents(root)
        assert docs == want == sp.list_documents(root)
        stats = [os.stat(root / f"{d}.xml") for d in docs]
        for field, values in stamps.items():
            assert values.tolist() == [getattr(s, f"st_{field}") for s in stats], field
    assert sp.document_keys(root, tmp_path / "cache") == {d: content_key(root / f"{d}.xml") for d in want}


def test_prune_cache_removes_only_the_shards_no_plan_names(collection, tmp_path, capsys):
    """A changed document leaves its shard's earlier file and list in the cache; `inexflow
    prune-cache` removes exactly those (named by no campaign's plan), keeps every shard a plan
    names, and refuses (one line, exit 2) when a plan cannot be read."""
    from inexflow.front.cli import main

    cache = tmp_path / "cache"
    old = build_all(collection, cache)
    sp.write_plan(sp.plan_path(cache, collection, "a"), collection, None, old)
    doc = sp.list_documents(collection)[3]
    (collection / f"{doc}.xml").write_text((collection / f"{doc}.xml").read_text().replace(">", "> ", 1))
    new = build_all(collection, cache)
    sp.write_plan(sp.plan_path(cache, collection, "a"), collection, None, new)  # campaign a planned again
    gone = {s.key for s in old} - {s.key for s in new}
    assert len(gone) == 1
    assert main(["prune-cache", str(cache), "--dry-run"]) == 0
    out = capsys.readouterr().out
    listed = set(out.splitlines()[:-1])
    assert listed == {str(sp.shard_path(cache, k)) for k in gone} | {sp.members_path(cache, k) for k in gone}
    kept = f"{len(new)} shard{'s' if len(new) != 1 else ''} kept"  # said in the singular for one (counted)
    assert "would remove 2 files" in out and f"{kept}, named by 1 plan\n" in out
    assert all(Path(p).exists() for p in listed)
    assert main(["prune-cache", str(cache)]) == 0 and "removed 2 files" in capsys.readouterr().out
    assert not any(Path(p).exists() for p in listed)
    assert all(s.path(cache).exists() and Path(sp.members_path(cache, s.key)).exists() for s in new)
    (cache / "plans" / "b-broken.json").write_text("{")
    assert main(["prune-cache", str(cache)]) == 2
    err = capsys.readouterr().err
    assert "b-broken.json" in err and "the plan cannot be read" in err and len(err.splitlines()) == 1


def test_a_collections_files_in_the_cache_are_its_own_only(collection, tmp_path):
    """collection_files: the plans of one collection (of every campaign), the shards and member
    lists they name and its digest table; another collection sharing the cache keeps its own."""
    cache = tmp_path / "cache"
    ours = build_all(collection, cache)
    for campaign in ("a", "b"):
        sp.write_plan(sp.plan_path(cache, collection, campaign), collection, None, ours)
    other = tmp_path / "other"
    write(other / "d1.xml", "<article><p>another collection</p></article>")
    theirs = build_all(other, cache)
    sp.write_plan(sp.plan_path(cache, other, "c"), other, None, theirs)
    expected = {Path(sp.plan_path(cache, collection, c)) for c in ("a", "b")}
    expected |= {Path(p) for s in ours for p in (sp.shard_path(cache, s.key), sp.members_path(cache, s.key))}
    expected.add(sp._cache_file(cache, collection))  # the digests of its documents, made by plan_shards
    assert all(p.exists() for p in expected)
    assert set(sp.collection_files(cache, collection)) == expected
    for f in sp.collection_files(cache, collection):
        f.unlink()
    assert sp.collection_files(cache, collection) == []
    assert {p for s in theirs for p in (s.path(cache), Path(sp.members_path(cache, s.key)))} <= set(cache.rglob("*"))
    assert Path(sp.plan_path(cache, other, "c")).exists() and sp._cache_file(cache, other).exists()
