"""Element extents resolved over the runs of one call (``ParsedDocuments``: each document parsed
once, within a bound on the rows kept) against a plain lookup in the collection's index."""
import random

import pyarrow as pa
import pytest

from inexflow.errors import InputError
from inexflow.io.collection import index_collection
from inexflow.model import runs as runs_module
from inexflow.model.runs import ParsedDocuments, read_run, resolve_extents
from inexflow.simulate.simulate import SimulationConfig, simulate


def text_runs(tmp_path, collection, docs, seed, n_runs=4, lines=60):
    """Seeded text runs of elements of ``docs`` (any element of the index), every other one of whole documents."""
    rows = index_collection(collection, docs)
    elements = list(zip(rows["doc"], rows["xpath"]))
    rng, paths = random.Random(seed), []
    for r in range(n_runs):
        out = []
        for rank in range(1, lines + 1):
            if r % 2:
                out.append(f"1 Q0 {rng.choice(docs)} {rank} {lines - rank} run{r}\n")
            else:
                doc, xpath = rng.choice(elements)
                out.append(f"1 Q0 {doc} {rank} {lines - rank} run{r} {xpath}\n")
        path = tmp_path / f"run{r}.txt"
        path.write_text("".join(out))
        paths.append(path)
    return paths


def plainly(run, collection):
    """(offset, length) of each result from a dict of the index rows of the run's documents."""
    rows = index_collection(collection, run.results["doc"].unique())
    extent = {(d, x): (s, e - s) for d, x, s, e in zip(rows["doc"], rows["xpath"], rows["start"], rows["end"])}
    root = {d: e for d, e, depth in zip(rows["doc"], rows["end"], rows["depth"]) if depth == 1}
    return [extent[d, x] if x else (0, root[d]) for d, x in zip(run.results["doc"], run.results["xpath"])]


@pytest.mark.slow
@pytest.mark.parametrize("seed,structure", [(1, "demo"), (2, "inex2005"), (3, "demo")])
@pytest.mark.parametrize("max_rows", [0, 50, 10**9])
def test_runs_resolve_through_parsed_documents_as_through_the_index(tmp_path, monkeypatch, seed, structure, max_rows):
    simulate(tmp_path / "c", SimulationConfig(seed=seed, n_docs=12, n_topics=2, n_groups=1, results_per_topic=10,
                                               pool_target=4, structure=structure))
    collection = tmp_path / "c" / "collection"
    docs = sorted(str(p.relative_to(collection).with_suffix("")) for p in collection.rglob("*.xml"))
    assessed = index_collection(collection, docs[:3])  # as a session's index of the assessed documents
    files = sorted((tmp_path / "c" / "runs").glob("*.xml")) + text_runs(tmp_path, collection, docs, seed)
    parsed_docs = []
    real = runs_module.index_table
    monkeypatch.setattr(runs_module, "index_table", lambda c, d: parsed_docs.extend(d) or real(c, d))
    shared = ParsedDocuments(collection, assessed, max_rows=max_rows)
    for path in files * 2:
        run = read_run(path, task="focused")
        want = plainly(run, collection)
        got = resolve_extents(run, collection, parsed=shared).results
        assert list(zip(got["offset"], got["length"])) == want
        alone = resolve_extents(read_run(path, task="focused"), collection, assessed).results
        assert alone.equals(got)
    assert not set(parsed_docs) & set(docs[:3])
    assert shared.rows <= max_rows


def test_each_document_is_parsed_once_while_kept(tmp_path, monkeypatch):
    simulate(tmp_path / "c", SimulationConfig(seed=5, n_docs=10, n_topics=2, n_groups=1, results_per_topic=10,
                                               pool_target=4, structure="demo"))
    collection = tmp_path / "c" / "collection"
    docs = sorted(p.stem for p in collection.glob("*.xml"))
    files = text_runs(tmp_path, collection, docs, 5)
    parsed_docs = []
    real = runs_module.index_table
    monkeypatch.setattr(runs_module, "index_table", lambda c, d: parsed_docs.extend(d) or real(c, d))
    shared = ParsedDocuments(collection)
    for path in files * 3:
        resolve_extents(read_run(path, task="focused"), collection, parsed=shared)
    assert sorted(parsed_docs) == sorted(set(parsed_docs))
    bounded, parsed_docs[:] = ParsedDocuments(collection, max_rows=1), []
    for path in files * 3:
        resolve_extents(read_run(path, task="focused"), collection, parsed=bounded)
        assert len(bounded.parts) <= 1
    assert len(parsed_docs) > len(set(parsed_docs))  # dropped past the bound, parsed again


def test_a_missing_document_is_an_error_and_keeps_nothing(tmp_path):
    simulate(tmp_path / "c", SimulationConfig(seed=6, n_docs=12, n_topics=2, n_groups=1, results_per_topic=10,
                                               pool_target=4, structure="demo"))
    collection = tmp_path / "c" / "collection"
    (tmp_path / "r.txt").write_text("1 Q0 nope 1 1 x /article[1]\n")
    shared = ParsedDocuments(collection)
    with pytest.raises(InputError, match="document nope: not found in the collection"):
        resolve_extents(read_run(tmp_path / "r.txt", task="focused"), collection, parsed=shared)
    assert not shared.parts and not shared.holding(pa.array(["nope"]))


def test_an_element_listed_twice_resolves_to_its_first_row(tmp_path):
    import pyarrow as pa
    import pyarrow.compute as pc

    from inexflow.io.collection import index_table
    simulate(tmp_path / "c", SimulationConfig(seed=7, n_docs=12, n_topics=2, n_groups=1, results_per_topic=10,
                                               pool_target=4, structure="demo"))
    collection = tmp_path / "c" / "collection"
    docs = sorted(p.stem for p in collection.glob("*.xml"))
    path = text_runs(tmp_path, collection, docs, 7, n_runs=1)[0]
    table = index_table(collection, docs)
    shifted = table.set_column(table.schema.get_field_index("start"), "start", pc.add(table["start"], 1))
    for first, second in ((table, shifted), (shifted, table)):
        got = resolve_extents(read_run(path, task="focused"), collection, tables=[pa.concat_tables([first, second])])
        want = resolve_extents(read_run(path, task="focused"), collection, tables=[first])
        assert got.results.equals(want.results)


@pytest.mark.parametrize("seed", [7, 8])
def test_a_run_of_elements_and_passages_resolves_its_elements_only(tmp_path, seed):
    """A run mixing element results with passages (<fol>): the elements get the extents a plain
    lookup gives, the passages keep their offset and length."""
    simulate(tmp_path / "c", SimulationConfig(seed=seed, n_docs=12, n_topics=2, n_groups=1, results_per_topic=10,
                                               pool_target=4, structure="demo"))
    collection = tmp_path / "c" / "collection"
    docs = sorted(p.stem for p in collection.glob("*.xml"))
    rows = index_collection(collection, docs)
    rng = random.Random(seed)
    lines, elements = [], list(zip(rows["doc"], rows["xpath"]))
    for rank in range(1, 41):
        doc, xpath = rng.choice(elements)
        where = f"<path>{xpath}</path>" if rng.random() < 0.6 else f'<fol offset="{rank * 3}" length="{rank}"/>'
        lines.append(f"<result><file>{doc}</file>{where}<rank>{rank}</rank><rsv>{41 - rank}</rsv></result>")
    path = tmp_path / "mixed.xml"
    path.write_text('<inex-submission participant-id="p" run-id="mixed" task="Focused">\n<topic topic-id="1">\n'
                    + "\n".join(lines) + "\n</topic>\n</inex-submission>\n")
    run = read_run(path, task="focused")
    passage = (run.results["xpath"] == "").to_numpy()
    assert passage.any() and not passage.all()
    before = run.results[["offset", "length"]].to_numpy()[passage].copy()
    got = resolve_extents(run, collection, parsed=ParsedDocuments(collection)).results
    extent = {(d, x): (s, e - s) for d, x, s, e in zip(rows["doc"], rows["xpath"], rows["start"], rows["end"])}
    assert [tuple(v) for v in got[["offset", "length"]].to_numpy()[~passage]] == \
        [extent[d, x] for d, x in zip(got["doc"][~passage], got["xpath"][~passage])]
    assert (got[["offset", "length"]].to_numpy()[passage] == before).all()
