"""Pooling by hand; the simulator's determinism and campaign structure."""
import filecmp
import json

import numpy as np
import pandas as pd
import pytest

from inexflow.model.assessments import read_assessments
from inexflow.model.pool import build_pool
from inexflow.model.runs import read_run
from inexflow.simulate.simconfig import SimulationConfig
from inexflow.simulate.simulate import simulate


def test_pool_depth_by_hand():
    r1 = pd.DataFrame({"topic": ["t"] * 3, "doc": ["a", "b", "c"]})
    r2 = pd.DataFrame({"topic": ["t"] * 3, "doc": ["b", "d", "e"]})
    # entry positions: a 1, b 1, d 2, c 3, e 3
    pool, depths = build_pool({"r1": r1, "r2": r2}, target=3)
    assert depths.iloc[0].depth == 2 and set(pool["doc"]) == {"a", "b", "d"}
    pool, depths = build_pool({"r1": r1, "r2": r2}, target=4)  # depth 3 brings in both c and e
    assert depths.iloc[0].depth == 3 and len(pool) == 5
    pool, depths = build_pool({"r1": r1, "r2": r2}, depth=1)
    assert set(pool["doc"]) == {"a", "b"}


@pytest.mark.slow
def test_simulator_is_deterministic_and_complete(tmp_path):
    cfg = SimulationConfig(seed=7, n_docs=40, n_topics=3, n_groups=2, results_per_topic=20, pool_target=10)
    s1 = simulate(tmp_path / "a", cfg)
    simulate(tmp_path / "b", cfg)
    cmp = filecmp.dircmp(tmp_path / "a", tmp_path / "b")

    def same(c):
        assert not c.diff_files and not c.left_only and not c.right_only, c.diff_files
        for sub in c.subdirs.values():
            same(sub)
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        assert not mismatch and not errors
    same(cmp)
    assert s1["runs"] == 2 * 6 and s1["topics"] == 3
    runs = sorted((tmp_path / "a" / "runs").iterdir())
    tasks = {}
    for r in runs:
        run = read_run(r, task="focused" if r.suffix == ".txt" else None)
        tasks.setdefault(run.scoring_type, []).append(run)
        assert set(run.results["topic"]) == {"2009001", "2009002", "2009003"}
    assert set(tasks) == {"thorough", "focused", "relevant-in-context", "best-in-context", "fetch-browse"}
    for run in tasks["best-in-context"]:
        assert not run.results.duplicated(["topic", "doc"]).any()  # one result per article
    for run in tasks["relevant-in-context"]:
        for _, g in run.results.groupby("topic"):  # articles not interleaved
            docs = list(g["doc"])
            assert docs == sorted(docs, key=docs.index)
    # assessments cover pooled documents only, in three formats
    fol = read_assessments(tmp_path / "a" / "assessments" / "qrels.fol")
    a05 = read_assessments(sorted((tmp_path / "a" / "assessments" / "inex2005").iterdir()))
    a02 = read_assessments(sorted((tmp_path / "a" / "assessments" / "inex2002").iterdir()))
    a06 = read_assessments(sorted((tmp_path / "a" / "assessments" / "inex2006").iterdir()))
    assert (fol.scale, a05.scale, a06.scale, a02.scale) == ("fol", "inex2005", "inex2006", "inex2002")
    assert set(fol.documents["doc"]) <= set(a05.documents["doc"])
    meta = json.loads((tmp_path / "a" / "campaign.json").read_text())
    assert len(a05.documents) == meta["pool_size"]
    assert set(zip(fol.documents.topic, fol.documents.doc)) <= set(zip(a05.documents.topic, a05.documents.doc))


@pytest.mark.slow
@pytest.mark.parametrize("histogram", [True, False])
@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_leave_group_out_entries_equal_pools_built_without_the_group(seed, histogram, monkeypatch):
    """The pools without each group equal those built from the other groups' runs, whether the
    per-topic depths come from a (topic, depth) histogram or from sorting."""
    from inexflow.model.pool import LeftOutEntries, entry_depths, leave_group_out_entries, pool_from_entries

    if not histogram:
        monkeypatch.setattr(LeftOutEntries, "_histogram_fits", lambda self, cells: False)

    rng = np.random.default_rng(seed)
    runs = {f"r{i}": pd.DataFrame({"topic": ["t"] * 6 + ["u"] * 6,
                                   "doc": list(rng.choice(list("abcdefgh"), 6)) + list(rng.choice(list("abcdefgh"), 6))})
            for i in range(5)}
    groups = {"r0": "A", "r1": "A", "r2": "B", "r3": "C", "r4": "C"}
    loo = leave_group_out_entries(runs, groups)
    for g in "ABC":
        want = entry_depths({r: x for r, x in runs.items() if groups[r] != g})
        got = loo[g]
        key = ["topic", "doc"]
        assert got.sort_values(key).reset_index(drop=True)[key + ["entry"]].equals(
            want.sort_values(key).reset_index(drop=True)[key + ["entry"]].astype({"entry": "int64"}))
        # the integer pools (what leave-one-group-out uses) hold what pool_from_entries keeps
        for kw in ({"target": 1}, {"target": 3}, {"target": 50}, {"depth": 2}, {"depth": 4}):
            pool, _ = pool_from_entries(want, **kw)
            held = {(t, d) for t, d, h in zip(loo.topics_of_pairs(), loo.docs_of_pairs(), loo.pooled(g, **kw)) if h}
            assert held == set(zip(pool["topic"], pool["doc"]))
            rel = ["a", "c", "h", "zz"]
            ix = loo.pair_index("t", rel)
            assert [bool(i >= 0 and loo.pooled(g, **kw)[i]) for i in ix] == [("t", d) in held for d in rel]


@pytest.mark.slow
@pytest.mark.parametrize("structure", ["demo", "inex2005", "wikipedia"])
def test_planned_files_are_the_files_simulate_writes(tmp_path, structure):
    """The workflow builds its DAG on a fresh clone from the plan: it must name exactly the
    files (runs with what the config reads in them, topics, assessments) that simulate then
    writes."""
    from pathlib import Path

    from inexflow.campaign.config import sniff_run
    from inexflow.simulate.simconfig import simulation_config
    from inexflow.simulate.simulate import planned_files

    cfg = simulation_config({"seed": 5, "docs": 30, "topics": 3, "groups": 2, "results": 10, "pool_target": 8,
                             "structure": structure})
    plan = planned_files(tmp_path, cfg)
    simulate(tmp_path, cfg)
    written = {str(p) for p in Path(tmp_path).rglob("*")
               if p.is_file() and "collection" not in p.relative_to(tmp_path).parts}
    assert written == {plan["marker"], plan["topics"], *plan["assessments"], *plan["runs"]}
    for path, sniffed in plan["runs"].items():
        assert sniff_run(path) == sniffed
        if sniffed:
            run = read_run(path)
            assert (run.task_label, run.participant) == (sniffed["task_label"], sniffed["participant"])


def _selection_by_definition(task, neg, k, doc, start, xpath):
    """The simulator's selections written out plainly: a full stable ranking, then Python loops
    (the simulator's first version, before it was vectorised)."""
    order = list(np.argsort(neg, kind="stable"))
    if task == "thorough":
        return order[:k]
    if task == "fetch-browse":
        sel = order[:k]
        first = {}
        for pos, i in enumerate(sel):
            first.setdefault(doc[i], pos)
        return sorted(sel, key=lambda i: first[doc[i]])
    if task == "best-in-context":
        seen, sel = set(), []
        for i in order:
            if doc[i] not in seen:
                seen.add(doc[i])
                sel.append(i)
        return sel[:k]
    taken, sel = {}, []
    for i in order:
        if any(xpath[i] == y or xpath[i].startswith(y + "/") or y.startswith(xpath[i] + "/")
               for y in taken.get(doc[i], ())):
            continue
        taken.setdefault(doc[i], []).append(xpath[i])
        sel.append(i)
        if len(sel) >= k:
            break
    if task == "relevant-in-context":
        first = {}
        for pos, i in enumerate(sel):
            first.setdefault(doc[i], pos)
        sel.sort(key=lambda i: (first[doc[i]], start[i]))
    return sel


@pytest.mark.slow
@pytest.mark.parametrize("task", ["thorough", "fetch-browse", "best-in-context", "focused", "relevant-in-context"])
def test_vectorised_selection_equals_its_definition(tmp_path, task):
    from inexflow.io.collection import index_document
    from inexflow.simulate.simulate import _related, _selection, make_document

    rng = np.random.default_rng(3)
    rows = []
    for d in range(30):
        p = tmp_path / f"{d}.xml"
        p.write_text(make_document(rng, str(d)))
        rows.extend(index_document(p, str(d)))
    idx = pd.DataFrame.from_records(rows, columns=["doc", "xpath", "tag", "start", "end", "depth", "parent"])
    idx = idx[idx["tag"].isin(["article", "bdy", "sec", "ss1", "p"])].reset_index(drop=True)
    doc = idx["doc"].astype(int).to_numpy()
    start, end, xpath = idx["start"].to_numpy(), idx["end"].to_numpy(), idx["xpath"].tolist()
    related = _related(doc, start, end)
    for k, scale in [(5, 1e6), (40, 3.0), (10_000, 2.0)]:  # coarse scores: many ties
        neg = -np.round(rng.random(len(idx)) * scale) / scale
        got = _selection(task, neg, k, doc, start, related).tolist()
        assert got == [int(i) for i in _selection_by_definition(task, neg, k, doc, start, xpath)], (k, scale)


def test_simulator_reports_progress(tmp_path):
    cfg = SimulationConfig(seed=7, n_docs=12, n_topics=2, n_groups=2, results_per_topic=10, pool_target=5)
    calls = []
    s = simulate(tmp_path, cfg, progress=lambda what, done, total: calls.append((what, done, total)))
    last = {}
    for what, done, total in calls:
        assert done == last.get(what, 0) + 1 and done <= total  # one step at a time
        last[what] = done
    assert last == {"documents written": 12, "runs simulated": s["runs"], "runs written": s["runs"],
                    "assessment sets written": 1}


def test_simulate_command_defaults_are_the_simulation_configs():
    from inexflow.front.cli import build_parser
    from inexflow.simulate.simconfig import SETTINGS, simulation_config

    args = build_parser().parse_args(["simulate", "--out", "x"])
    assert simulation_config({k: getattr(args, k) for k in SETTINGS}) == SimulationConfig()
    args = build_parser().parse_args(["simulate", "--out", "x", "--docs", "7", "--max-runs", "3"])
    cfg = simulation_config({k: getattr(args, k) for k in SETTINGS})
    assert (cfg.n_docs, cfg.max_runs, cfg.n_topics) == (7, 3, SimulationConfig().n_topics)


def test_depth_in_articles_is_the_rank_among_a_runs_distinct_documents(tmp_path, monkeypatch):
    """Pal et al. count pool depth "in terms of articles": a run's top d are its first d
    distinct documents. By hand, then against pandas on random runs, in every pooling path
    (entries in memory and from files, the pools without each group)."""
    from inexflow.io.tables import write_parquet
    from inexflow.model.pool import (
        LazyTables,
        article_ranks,
        entries_from_first_positions,
        first_positions,
        leave_group_out_entries,
        pool_from_entries,
    )

    # r1 returns A A B A C, r2 D D D B: first positions A 1, B 3, C 5 and D 1, B 4
    r1 = pd.DataFrame({"topic": ["1"] * 5, "doc": list("AABAC")})
    r2 = pd.DataFrame({"topic": ["1"] * 4, "doc": list("DDDB")})
    fp = {"r1": first_positions(r1), "r2": first_positions(r2)}
    assert article_ranks(np.zeros(3, np.int64), fp["r1"]["pos"].to_numpy()).tolist() == [1, 2, 3]
    by_pos = entries_from_first_positions(fp)
    by_art = entries_from_first_positions(fp, articles=True)
    assert dict(zip(by_pos["doc"], by_pos["entry"])) == {"A": 1, "B": 3, "C": 5, "D": 1}
    assert dict(zip(by_art["doc"], by_art["entry"])) == {"A": 1, "B": 2, "C": 3, "D": 1}
    # depth 2: each run's first two articles (A B, D B); two results reach only A and D
    assert set(pool_from_entries(by_art, depth=2)[0]["doc"]) == {"A", "B", "D"}
    assert set(pool_from_entries(by_pos, depth=2)[0]["doc"]) == {"A", "D"}
    rng = np.random.default_rng(3)
    runs = {f"r{i}": pd.DataFrame({"topic": rng.choice(["2", "10", "1"], 60), "doc": rng.choice(list("abcdefghij"), 60)})
            for i in range(4)}
    fp = {n: first_positions(r) for n, r in runs.items()}
    ranked = {n: t.assign(pos=t.groupby("topic", sort=False).cumcount() + 1) for n, t in fp.items()}
    want = entries_from_first_positions(ranked)
    assert entries_from_first_positions(fp, articles=True).equals(want)
    paths = {n: tmp_path / f"{n}.parquet" for n in fp}
    for n, t in fp.items():
        write_parquet(t, paths[n])
    assert entries_from_first_positions(LazyTables(paths), articles=True).equals(want)
    groups = {"r0": "A", "r1": "A", "r2": "B", "r3": "C"}
    loo = leave_group_out_entries(LazyTables(paths), groups, cached=True, articles=True)
    key = ["topic", "doc"]
    for g in "ABC":
        w = entries_from_first_positions({n: t for n, t in ranked.items() if groups[n] != g})
        assert loo[g].sort_values(key).reset_index(drop=True).equals(w.sort_values(key).reset_index(drop=True))
    # tables that keep their keys: read once for the regenerated pool and the pools without each group
    import inexflow.model.pool as pool_module

    read = []
    for reader in ("read_codes", "read_dictionary_table"):  # a table read one at a time, or all at once
        real = getattr(pool_module, reader)
        monkeypatch.setattr(pool_module, reader, lambda path, *a, real=real: read.append(path) or real(path, *a))
    kept = LazyTables(paths, keep_keys=True)
    assert pool_module.regenerated_entries(kept).equals(want)
    again = leave_group_out_entries(kept, groups, cached=True, articles=True)
    assert sorted(read) == sorted(paths.values())  # each file once
    for g in "ABC":
        assert again[g].equals(loo[g])
    # the campaign's pool first, over these runs and another: it hands what it reads of them on
    read.clear()
    other = tmp_path / "other.parquet"
    write_parquet(first_positions(pd.DataFrame({"topic": ["2", "1"], "doc": ["b", "z"]})), other)
    kept = LazyTables(paths, keep_keys=True)
    pooled = pool_module.pool_from_first_positions(LazyTables({**paths, "other": other}, hand_over=kept), target=3)
    everything = {n: pool_module.first_positions(r) for n, r in [*runs.items(), ("other", pd.DataFrame(
        {"topic": ["2", "1"], "doc": ["b", "z"]}))]}
    for got, w in zip(pooled, pool_from_entries(entries_from_first_positions(everything), target=3)):
        assert got.equals(w)
    assert pool_module.regenerated_entries(kept).equals(want)
    assert leave_group_out_entries(kept, groups, cached=True, articles=True)["A"].equals(loo["A"])
    assert sorted(read) == sorted([*paths.values(), other]) and not kept.handed  # each file once, all taken


def test_entries_from_first_positions_equal_a_groupby_and_read_one_table_at_a_time(tmp_path):
    """Entry depths equal pandas' minimum over the concatenated first positions (rows in order
    of first appearance over the runs taken by name), also read lazily from parquet files."""
    from inexflow.io.tables import write_parquet
    from inexflow.model.pool import LazyTables, entries_from_first_positions, first_positions

    rng = np.random.default_rng(7)
    runs = {f"r{i}": pd.DataFrame({"topic": rng.choice(["2", "10", "1"], 40), "doc": rng.choice(list("abcdefghij"), 40)})
            for i in (3, 1, 2)}
    fp = {n: first_positions(r) for n, r in runs.items()}
    allr = pd.concat([fp[n] for n in sorted(fp)], ignore_index=True)
    want = allr.groupby(["topic", "doc"], sort=False)["pos"].min().rename("entry").reset_index()
    got = entries_from_first_positions(fp)
    assert got["topic"].tolist() == want["topic"].tolist() and got["doc"].tolist() == want["doc"].tolist()
    assert got["entry"].tolist() == want["entry"].tolist() and got["entry"].dtype == np.int64
    paths = {}
    for n, t in fp.items():
        paths[n] = tmp_path / f"{n}.parquet"
        write_parquet(t, paths[n])
    lazy = entries_from_first_positions(LazyTables(paths))
    assert lazy.equals(got)
    # a file whose dictionary pages hold names no row uses (written from categoricals)
    unused = fp["r2"].astype({"doc": pd.CategoricalDtype(["zz", *sorted(set(fp["r2"]["doc"])), "yy"]),
                              "topic": pd.CategoricalDtype(["99", *sorted(set(fp["r2"]["topic"]))])})
    write_parquet(unused, paths["r2"])
    assert entries_from_first_positions(LazyTables(paths)).equals(got)
    from inexflow.model.pool import leave_group_out_entries
    loo = leave_group_out_entries(LazyTables(paths), {}, cached=True)
    assert loo.docs == sorted(set(allr["doc"])) and loo.topics == sorted(set(allr["topic"]))
    # a run without results (its table has no rows, so its text columns have no type)
    paths["r0"] = tmp_path / "r0.parquet"
    write_parquet(first_positions(pd.DataFrame({"topic": pd.Series([], dtype=object),
                                                "doc": pd.Series([], dtype=object)})), paths["r0"])
    assert entries_from_first_positions(LazyTables(paths)).equals(got)
    assert leave_group_out_entries(LazyTables(paths), {}, cached=True).docs == loo.docs
    paths["r2"].unlink()
    from inexflow.io.tables import CachedTableError
    with pytest.raises(CachedTableError, match="r2.parquet: cached table is missing"):
        entries_from_first_positions(LazyTables(paths))


def test_positions_up_to_the_int32_limit_pool_and_longer_lists_are_an_error():
    """First positions are kept as int32 while pooling (memory): 2^31 - 1 still pools exactly,
    a larger one is an error naming the run, never a wrapped number."""
    from inexflow.errors import UsageError
    from inexflow.model.pool import entries_from_first_positions

    top = 2**31 - 1
    ok = entries_from_first_positions({"r": pd.DataFrame({"topic": ["1", "1"], "doc": ["d", "e"], "pos": [top, 3]})})
    assert ok["entry"].tolist() == [top, 3]
    from inexflow.model.pool import pool_from_first_positions

    pool, depths = pool_from_first_positions({"r": pd.DataFrame({"topic": ["1", "1"], "doc": ["d", "e"],
                                                                 "pos": [top, 3]})}, target=2)
    assert pool["entry"].tolist() == [3, top] and depths["pool_size"].tolist() == [2]
    with pytest.raises(UsageError, match="run r: a result position over 2147483647"):
        entries_from_first_positions({"r": pd.DataFrame({"topic": ["1"], "doc": ["d"], "pos": [top + 1]})})


@pytest.mark.parametrize("seed", range(6))
def test_pairs_numbered_by_their_grid_as_pandas_numbers_them(seed):
    """factorise_pairs numbers (topic, doc) keys in order of first appearance through an array
    of the grid where the grid is small, by pandas' hash table where it is not: the same codes
    and distinct keys as pd.factorize in both (the sizes below fall on either side)."""
    from inexflow.model.pool import factorise_pairs

    rng = np.random.default_rng(seed)
    for nt, nd, n in [(3, 40, 500), (1, 1, 7), (5, 200_000, 50), (2, 3, 0), (60, 2_000, 40_000)]:
        keys = (rng.integers(0, nt, n).astype(np.int64) << 32) | rng.integers(0, nd, n)
        codes, uniq = factorise_pairs(keys, nt, nd)
        want_codes, want_uniq = pd.factorize(keys)
        assert codes.dtype == want_codes.dtype and uniq.dtype == want_uniq.dtype
        assert np.array_equal(codes, want_codes) and np.array_equal(uniq, want_uniq)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_pool_from_first_positions_is_the_pool_of_their_entries(tmp_path, sparse):
    """pool_from_first_positions (the workflow's pool: each pair's entry depth taken as a
    minimum in the grid of topics x documents, or through a hash table when the grid is large
    next to the rows, as here with ``sparse``) gives the same tables as pool_from_entries over
    the entries in order of first appearance, by target and by depth, topics in topic order
    and documents by name."""
    from inexflow.io.tables import write_parquet
    from inexflow.model.pool import (
        LazyTables,
        entries_from_first_positions,
        first_positions,
        pool_from_entries,
        pool_from_first_positions,
    )

    rng = np.random.default_rng(int(sparse))
    topics = np.array(["2", "10", "1", "x"]) if not sparse else np.arange(400).astype(str)
    docs = np.arange(12).astype(str) if not sparse else np.arange(100_000, 100_400).astype(str)
    runs = {f"r{i}": pd.DataFrame({"topic": rng.choice(topics, 90), "doc": rng.choice(docs, 90)}) for i in range(5)}
    paths = {n: tmp_path / f"{n}.parquet" for n in runs}
    for n, r in runs.items():
        write_parquet(first_positions(r), paths[n])
    entries = entries_from_first_positions(LazyTables(paths))
    assert (len(entries["topic"].unique()) * len(entries["doc"].unique()) > 2 * len(entries) + (1 << 16)) == sparse
    for kw in ({"target": 5}, {"target": 1000}, {"depth": 3}):
        got = pool_from_first_positions(LazyTables(paths), **kw)
        want = pool_from_entries(entries, **kw)
        for g, w in zip(got, want):
            assert g.equals(w) and g.dtypes.tolist() == w.dtypes.tolist()
    if not sparse:
        assert list(got[1]["topic"]) == ["1", "2", "10", "x"]


@pytest.mark.parametrize("seed", range(8))
def test_article_ranks_of_runs_listed_topic_by_topic_or_interleaved(seed):
    """article_ranks takes a run listed topic by topic, by position (as runs are) without
    sorting, any other order by sorting: the rank among the topic's documents by position
    either way, against pandas' rank."""
    from inexflow.model.pool import article_ranks

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    topics = np.sort(rng.integers(0, 6, n)) if seed % 2 else rng.integers(0, 6, n)
    if seed % 4 == 1:  # blocks in another order than their codes
        topics = (5 - topics) % 6
    positions = rng.permutation(n * 3)[:n] + 1
    if seed % 2:  # by position within each topic's block
        positions = np.concatenate([np.sort(positions[topics == t]) for t in pd.unique(topics)])
    want = pd.Series(positions).groupby(topics).rank(method="first").astype(np.int64).to_numpy()
    got = article_ranks(topics, positions)
    assert got.dtype == np.int64 and np.array_equal(got, want)


def test_the_pool_of_files_read_at_once_takes_empty_tables_unused_names_and_large_strings(tmp_path):
    """The campaign's pool from files (their names numbered by Arrow over all of them at once)
    equals the pool of their entries when a run is empty, a file's dictionary pages hold names
    no row uses (written from categoricals) and a file stores its strings as large_string."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from inexflow.io.tables import write_parquet
    from inexflow.model.pool import (
        LazyTables,
        entries_from_first_positions,
        first_positions,
        pool_from_entries,
        pool_from_first_positions,
    )

    rng = np.random.default_rng(3)
    runs = {f"r{i}": pd.DataFrame({"topic": rng.choice(["2", "10", "1"], 60), "doc": rng.choice(list("abcdefgh"), 60)})
            for i in range(4)}
    fp = {n: first_positions(r) for n, r in runs.items()}
    fp["r4"] = fp["r0"].iloc[:0]
    paths = {n: tmp_path / f"{n}.parquet" for n in fp}
    for n, t in fp.items():
        write_parquet(t, paths[n])
    unused = fp["r1"].astype({"doc": pd.CategoricalDtype(list("abcdefghxyz"))})
    pq.write_table(pa.Table.from_pandas(unused, preserve_index=False), paths["r1"])
    large = pa.Table.from_pandas(fp["r2"], preserve_index=False)
    pq.write_table(large.cast(pa.schema([pa.field("topic", pa.large_string()), pa.field("doc", pa.large_string()),
                                         pa.field("pos", pa.int64())])), paths["r2"])
    for kw in ({"target": 4}, {"depth": 2}):
        got = pool_from_first_positions(LazyTables(paths), **kw)
        want = pool_from_entries(entries_from_first_positions(fp), **kw)
        for g, w in zip(got, want):
            assert g.equals(w) and g.dtypes.tolist() == w.dtypes.tolist()
