"""The element families' array core (inexflow.measures.element_arrays: lookups by the results'
codes, prepared once per session; the nesting test) against the joins and walks they replace,
on seeded recall-bases and runs: the same gains, the same score tables."""
import numpy as np
import pandas as pd
import pytest

from inexflow.measures import bepd, hixeval, xcg
from inexflow.measures.cutoff import overlapping_flags
from inexflow.measures.element_arrays import ELEMENT_KEYS, any_nested, frame_codes, row_index
from inexflow.measures.overlap import AssessedDocuments, DocumentState, focused_gains
from inexflow.measures.session import Session
from inexflow.model.assessments import read_assessments
from inexflow.model.options import Options
from inexflow.model.runs import read_run
from inexflow.simulate.simulate import SimulationConfig, simulate


def seeded_gains(seed, n=400):
    rng = np.random.default_rng(seed)
    topics, docs, xpaths = [f"{t}" for t in range(1, 5)], [f"d{d}" for d in range(12)], \
        [f"/article[1]/sec[{i}]" for i in range(1, 6)] + ["/article[1]"]
    def pick(k):
        return pd.DataFrame({"topic": rng.choice(topics, k), "doc": rng.choice(docs, k), "xpath": rng.choice(xpaths, k)})
    rb = pick(n // 2).drop_duplicates().reset_index(drop=True)
    gain = rng.choice([0.0, 0.25, 0.5, 1.0, np.nan], len(rb))
    return pick(n), rb.assign(gain=gain, size=1, ideal=True)


@pytest.mark.parametrize("seed", range(6))
def test_gains_looked_up_as_joined(seed):
    results, rb = seeded_gains(seed)
    joined = xcg.thorough_gains(results, rb)
    index = row_index(rb, ELEMENT_KEYS)
    assert index is not None
    looked_up = xcg.thorough_gains(results, rb, index)
    assert looked_up.dtype == joined.dtype and np.array_equal(looked_up, joined)
    # by codes numbered otherwise than the recall-base's (the run's own, values it lacks included)
    shuffled = results.sample(frac=1, random_state=seed).reset_index(drop=True)
    assert np.array_equal(xcg.thorough_gains(shuffled, rb, index, frame_codes(shuffled)), xcg.thorough_gains(shuffled, rb))
    assert (joined > 0).any() and (joined == 0).any()
    assert row_index(pd.concat([rb, rb.iloc[:1]]), ELEMENT_KEYS) is None  # an element listed twice: joined
    assert not xcg.thorough_gains(results, rb.iloc[:0], row_index(rb.iloc[:0], ELEMENT_KEYS)).any()


def walked_gains(results, rb, alpha):
    """rv_norm as every result is walked in rank order, each (topic, doc) found by its strings."""
    states, out = {}, np.zeros(len(results))
    groups = rb.groupby(["topic", "doc"], sort=False).indices
    for i, (t, d, x) in enumerate(zip(*(results[c].tolist() for c in ELEMENT_KEYS))):
        if (t, d) in groups:
            rows = groups[(t, d)]
            st = states.setdefault((t, d), DocumentState(*(rb[c].to_numpy()[rows].tolist()
                                                          for c in ("xpath", "gain", "size", "ideal"))))
            out[i] = st.take(x, alpha)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_focused_gains_walk_only_assessed_documents(seed):
    rng = np.random.default_rng(100 + seed)
    results, rb = seeded_gains(seed, 600)
    rb = rb.assign(gain=rb["gain"].fillna(0.5), size=rng.integers(5, 50, len(rb)), ideal=rng.random(len(rb)) < 0.5)
    alpha = float(rng.choice([0.0, 0.5, 1.0]))
    want = walked_gains(results, rb, alpha)
    documents = AssessedDocuments(rb)
    for _ in range(2):  # the documents' states kept from one run to the next start unseen
        assert np.array_equal(focused_gains(results, rb, alpha, documents=documents, codes=frame_codes(results)), want)
    assert np.array_equal(focused_gains(results, rb, alpha), want)
    assert (want > 0).any()


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("elements")
    simulate(out, SimulationConfig(seed=8, n_docs=30, n_topics=4, n_groups=2, results_per_topic=40, pool_target=12))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("task,families", [("thorough", ["xcg", "cutoff", "precall"]), ("focused", ["xcg"]),
                                           ("fetch-browse", ["fetchbrowse"]), ("relevant-in-context", ["hixeval"]),
                                           ("best-in-context", ["bepd"])])
def test_families_score_as_with_the_joins(campaign, monkeypatch, task, families):
    assessed = read_assessments([campaign / "assessments" / "inex2006"])
    options = Options(quantisations=("gen", "spec"))
    runs = sorted((campaign / "runs").glob(f"*-{task}-*.xml"))
    assert runs
    new = Session.build(assessed, task, families, options, str(campaign / "collection"))
    got = [new.score(read_run(r, task=task)) for r in runs * 2]
    for module in (xcg, hixeval, bepd):  # every lookup joined, as before
        monkeypatch.setattr(module, "row_index", lambda frame, keys: None)
    monkeypatch.setattr(hixeval, "any_nested", lambda codes: True)  # every run's elements walked
    old = Session.build(assessed, task, families, options, str(campaign / "collection"))
    for r, table in zip(runs * 2, got):
        pd.testing.assert_frame_equal(table, old.score(read_run(r, task=task)))


def brute_overlap(groups, docs, xpaths) -> bool:
    n = len(docs)
    return any(groups[i] == groups[j] and docs[i] == docs[j]
               and (xpaths[i] == xpaths[j] or xpaths[j].startswith(xpaths[i] + "/") or xpaths[i].startswith(xpaths[j] + "/"))
               for i in range(n) for j in range(n) if i != j)


@pytest.mark.parametrize("seed", range(200))
def test_any_nested_as_pairwise_and_as_the_flags(seed, monkeypatch):
    from inexflow.measures import element_arrays

    rng = np.random.default_rng(seed)
    steps = ["a", "a", "ab", "a-b", "a.b", "a[1]", "a[10]"]  # the traps: a is a prefix of ab, a-b, a.b
    n = int(rng.integers(1, 12))
    xpaths = np.array(["/" + "/".join(rng.choice(steps, int(rng.integers(1, 4)))) for _ in range(n)], dtype=object)
    docs = rng.choice(["d1", "d2", "d1-x"], n).astype(object)
    groups = rng.choice(["1", "2"], n).astype(object)
    want = brute_overlap(groups, docs, xpaths)
    codes = frame_codes(pd.DataFrame({"topic": groups, "doc": docs, "xpath": xpaths}))
    assert any_nested(codes) == want  # the pairs in a table of them all
    monkeypatch.setattr(element_arrays, "DENSE_XPATHS", 0)
    assert any_nested(codes) == want  # the pairs searched
    assert want == any(overlapping_flags(docs[groups == g], xpaths[groups == g]).any() for g in set(groups))


@pytest.mark.parametrize("seed", range(8))
def test_article_sums_as_the_groupby(seed):
    rng = np.random.default_rng(seed)
    n = 300
    m = pd.DataFrame({"topic": rng.choice(["1", "2", "3"], n).astype(object), "doc": rng.choice(["a", "b", "c", "d"], n).astype(object),
                      "rsize": rng.integers(0, 500, n).astype(np.float64), "size": rng.integers(1, 900, n).astype(np.float64),
                      "trel": rng.integers(0, 3, n).astype(np.float64)})
    if seed % 2:  # sums of fractions: as pandas sums them
        m["rsize"] = m["rsize"] / 7
    arts = m.groupby(["topic", "doc"], sort=False).agg(rel=("rsize", "sum"), ret=("size", "sum"),
                                                        trel=("trel", "first")).reset_index()
    codes = frame_codes(m, ["topic", "doc"])
    topic, rel, ret, trel = hixeval.article_sums(codes["topic"][0], codes["doc"][0],
                                                 *(m[c].to_numpy() for c in ("rsize", "size", "trel")))
    assert list(codes["topic"][1][topic]) == list(arts["topic"])
    for got, want in ((rel, arts["rel"]), (ret, arts["ret"]), (trel, arts["trel"])):
        assert np.array_equal(got, want.to_numpy(np.float64))


def test_article_sums_of_no_results():
    none, no_values = np.array([], dtype=np.int64), np.array([], dtype=np.float64)
    assert all(len(a) == 0 for a in hixeval.article_sums(none, none, no_values, no_values, no_values))


@pytest.mark.parametrize("seed", range(10))
def test_means_batched_as_one_measure_at_a_time(seed):
    """catalogue.mean_rows on columns (the mean measures as rows of one matrix) gives the bits of
    each measure's mean taken alone, as on one dict per topic."""
    from inexflow.measures.catalogue import mean_rows

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    names = ["MAep", "iMAep", "Q", "nxCG[5]"]
    per = [{m: float(v) for m, v in zip(names, rng.random(4) * rng.choice([1e-3, 1.0, 1e5]))} for _ in range(n)]
    columns = {m: np.asarray([p[m] for p in per]) for m in names}
    assert mean_rows("xcg", "gen", columns, [*names, "num_q"]) == mean_rows("xcg", "gen", per, [*names, "num_q"])


@pytest.mark.parametrize("seed", range(6))
def test_topic_rows_as_the_groupby(seed):
    from inexflow.measures.element_arrays import topic_rows

    results, _ = seeded_gains(seed)
    want = results.groupby("topic", sort=False).indices
    got = topic_rows(frame_codes(results))
    assert list(got) == list(want) and all(np.array_equal(got[t], want[t]) for t in want)


@pytest.mark.parametrize("a_values", [(0.01, 1.0, 100.0), (2.0, 0.5)])
def test_bepd_per_topic_as_the_one_topic_functions(campaign, a_values):
    """BEPD/EPRUM of every topic and A at once (rows of one matrix) gives the bits of the one-topic,
    one-A functions applied to each topic's results, looked up by their strings."""
    from inexflow.measures.bepd import bep_offsets, eprum_at_ranks, eprum_curve
    from inexflow.model.runs import resolve_extents

    assessed = read_assessments([campaign / "assessments" / "inex2006"])
    session = Session.build(assessed, "best-in-context", ["bepd"], Options(bepd_a=a_values),
                            str(campaign / "collection"))
    run = sorted((campaign / "runs").glob("*-best-in-context-*.xml"))[0]
    got = session.score(read_run(run, task="best-in-context"))
    got = {(r.topic, r.measure): r.value for r in got.itertuples() if r.topic != "all"}
    ctx = session.context
    beps = bep_offsets(ctx).to_dict()
    docs = ctx.assessments.documents
    L = docs.drop_duplicates("doc")["doc_chars"].replace(-1, np.nan).mean()
    res = resolve_extents(read_run(run, task="best-in-context"), session.collection).results
    n_bep = pd.Series(beps).groupby(level=0).size().to_dict()
    checked = 0
    for t, rows in res.groupby("topic", sort=False):
        if t not in n_bep:
            continue
        bep = np.array([beps.get((t, d), np.nan) for d in rows["doc"]], dtype=np.float64)
        dist = np.abs(rows["offset"].to_numpy(np.float64) - bep)
        for a in a_values:
            s = np.where(np.isnan(dist), 0.0, a * L / (a * L + np.nan_to_num(dist)))
            assert got[(t, f"BEPD[{a:g}]")] == float(s.sum() / n_bep[t])
            assert got[(t, f"EPRUM[{a:g}]")] == float(eprum_curve(s, n_bep[t]).mean())
            for k, v in zip((5, 10, 25, 50), eprum_at_ranks(s, n_bep[t], (5, 10, 25, 50))):
                assert got[(t, f"EPRUM[{a:g}]@[{k}]")] == v
            checked += 1
    assert checked


@pytest.mark.parametrize("seed", range(6))
def test_eprum_rows_as_one_row_at_a_time(seed):
    """EPRUM's graphs and precisions at the cut-offs of several values of A at once (a row per A)
    give the bits of a plain loop over one row, one recall level and one cut-off at a time."""
    rng = np.random.default_rng(seed)
    rows, n = int(rng.integers(1, 6)), int(rng.integers(0, 60))
    probs = np.where(rng.random((rows, n)) < 0.4, 0.0, rng.random((rows, n)))
    found, n_targets = np.cumsum(probs, axis=1), int(rng.integers(0, 12))
    ks = [1, 3, 10, 75][: int(rng.integers(0, 5))]
    curves, at_ranks = bepd._curves_of_found(found, n_targets), bepd._at_ranks_of_found(found, n_targets, ks)
    for i in range(rows):
        for j, level in enumerate(bepd.RECALL_LEVELS):
            need = level / 100 * n_targets
            k = next((r for r in range(n) if found[i, r] >= need - 1e-12), None)
            expected = float(np.ceil(need - 1e-12)) / (k + 1) if n_targets and k is not None else 0.0
            assert curves[i, j] == expected
        for j, k in enumerate(ks):
            f = min(float(found[i, min(k, n) - 1]) if n else 0.0, float(n_targets))
            assert at_ranks[i, j] == (float(np.ceil(f - 1e-12)) / k if f > 0 else 0.0)
