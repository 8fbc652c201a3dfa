"""The element families' lookups prepared once per session against the joins they replace, on
seeded recall-bases and runs: the same gains, the same score tables."""
import numpy as np
import pandas as pd
import pytest

from inexflow.measures import xcg
from inexflow.measures.cutoff import any_overlapping, overlapping_flags
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
    table = xcg.gain_table(rb)
    assert table is not None
    looked_up = xcg.thorough_gains(results, rb, table)
    assert looked_up.dtype == joined.dtype and np.array_equal(looked_up, joined)
    assert (joined > 0).any() and (joined == 0).any()
    assert xcg.gain_table(pd.concat([rb, rb.iloc[:1]])) is None  # an element listed twice: joined


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    out = tmp_path_factory.mktemp("elements")
    simulate(out, SimulationConfig(seed=8, n_docs=30, n_topics=4, n_groups=2, results_per_topic=40, pool_target=12))
    return out


@pytest.mark.parametrize("task,families", [("thorough", ["xcg", "cutoff", "precall"]), ("focused", ["xcg"]),
                                           ("fetch-browse", ["fetchbrowse"])])
def test_families_score_as_with_the_joins(campaign, monkeypatch, task, families):
    assessed = read_assessments([campaign / "assessments" / "inex2006"])
    options = Options(quantisations=("gen", "spec"))
    runs = sorted((campaign / "runs").glob(f"*-{task}-*.xml"))
    assert runs
    new = Session.build(assessed, task, families, options, str(campaign / "collection"))
    got = [new.score(read_run(r, task=task)) for r in runs * 2]
    monkeypatch.setattr(xcg, "gain_table", lambda rb: None)
    old = Session.build(assessed, task, families, options, str(campaign / "collection"))
    for r, table in zip(runs * 2, got):
        pd.testing.assert_frame_equal(table, old.score(read_run(r, task=task)))


def brute_overlap(groups, docs, xpaths) -> bool:
    n = len(docs)
    return any(groups[i] == groups[j] and docs[i] == docs[j]
               and (xpaths[i] == xpaths[j] or xpaths[j].startswith(xpaths[i] + "/") or xpaths[i].startswith(xpaths[j] + "/"))
               for i in range(n) for j in range(n) if i != j)


@pytest.mark.parametrize("seed", range(200))
def test_any_overlapping_as_pairwise_and_as_the_flags(seed):
    rng = np.random.default_rng(seed)
    steps = ["a", "a", "ab", "a-b", "a.b", "a[1]", "a[10]"]  # the traps: a is a prefix of ab, a-b, a.b
    n = int(rng.integers(1, 12))
    xpaths = np.array(["/" + "/".join(rng.choice(steps, int(rng.integers(1, 4)))) for _ in range(n)], dtype=object)
    docs = rng.choice(["d1", "d2", "d1-x"], n).astype(object)
    groups = rng.choice(["1", "2"], n).astype(object)
    want = brute_overlap(groups, docs, xpaths)
    assert any_overlapping(groups, docs, xpaths) == want
    assert want == any(overlapping_flags(docs[groups == g], xpaths[groups == g]).any() for g in set(groups))
