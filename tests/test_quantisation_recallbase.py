"""Quantisations (spec note values) and the ideal recall-base procedure, by hand and by property."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inexflow.model.quantisation import get_quantisation, quantise
from inexflow.model.recallbase import ideal_elements, ideal_recallbase


def q(scale, name, e, s):
    return float(quantise(scale, name, [e], [s])[0])


def test_2005_quantisations():
    assert q("inex2005", "gen", 2, 0.5) == 2 * 0.5 / 2
    assert q("inex2005", "gen", -1, 1.0) == 0.0              # '?' counts as e = 0
    assert q("inex2005", "genLifted", -1, 1.0) == pytest.approx((0 + 1) * 1.0 / 3)
    assert q("inex2005", "genLifted", 2, 0.6) == pytest.approx((2 + 1) * 0.6 / 3)
    assert q("inex2005", "genLifted", 0, 0.0) == 0.0
    assert q("inex2005", "strict", 2, 1.0) == 1.0 and q("inex2005", "strict", 2, 0.99) == 0.0
    assert q("inex2005", "binexh", -1, 0.3) == 0.3 and q("inex2005", "binexh_nosmall", -1, 0.3) == 0.0
    assert q("inex2005", "fullyspec", 1, 1.0) == 1.0 and q("inex2005", "fullyspec", 2, 0.5) == 0.0


def test_2006_and_fol_spec():
    assert q("inex2006", "spec", np.nan, 0.25) == 0.25
    assert q("fol", "gen", np.nan, 0.4) == 0.4  # gen on 2006/FOL data means spec


def test_2002_quantisations():
    assert q("inex2002", "gen", 1, 2) == 0.25 and q("inex2002", "gen", 3, 1) == 0.75
    assert q("inex2002", "sog", 2, 3) == 0.9 and q("inex2002", "sog", 3, 1) == 0.25
    assert q("inex2002", "strict", 3, 3) == 1.0 and q("inex2002", "strict", 3, 2) == 0.0
    assert q("inex2002", "e3s32", 3, 1) == 0.0 and q("inex2002", "s3e32", 2, 3) == 1.0
    assert q("inex2002", "liberal", 1, 2) == 1.0 and q("inex2002", "liberal", 1, 1) == 0.0
    assert q("inex2002", "anyrel", 1, 1) == 1.0 and q("inex2002", "anyrel", 0, 0) == 0.0


def test_reduced_2004_scales_by_hand():
    """Ogilvie & Lalmas 4.1.3: on 0, 1, 2 marginally (1) and fairly (2) merge into somewhat,
    read as fairly (2); on 0, 1 every relevant grade merges, read as highly (3)."""
    assert q("inex2002", "gen_e012", 1, 3) == 0.75 and q("inex2002", "gen", 1, 3) == 0.5   # Gen(2, 3)
    assert q("inex2002", "gen_e012", 3, 1) == 0.75 and q("inex2002", "gen_e012", 2, 2) == 0.5
    assert q("inex2002", "sog_e012", 1, 1) == 0.1 and q("inex2002", "sog_e012", 1, 3) == 0.9  # SOG(2, 1), SOG(2, 3)
    assert q("inex2002", "sog_es012", 2, 1) == 0.5 and q("inex2002", "sog", 2, 1) == 0.1     # SOG(2, 2)
    assert q("inex2002", "sog_es012", 3, 2) == 0.75 and q("inex2002", "sog_es012", 3, 3) == 1.0
    assert q("inex2002", "strict_e012", 2, 3) == 0.0 and q("inex2002", "strict_es012", 3, 3) == 1.0
    assert q("inex2002", "strict_es012", 3, 2) == 0.0  # fairly specific stays below highly
    assert q("inex2002", "gen_e01", 1, 1) == 0.75 and q("inex2002", "sog_e01", 1, 2) == 0.75  # Gen(3, 1), SOG(3, 2)
    for name in ("strict", "gen", "sog", "strict_e012", "gen_e01", "sog_es012"):
        assert q("inex2002", name, 0, 0) == 0.0
    # strict on a 0, 1 exhaustivity scale asks only for highly specific: Hiemstra's s3e321
    e, s = np.array([1, 1, 2, 3, 3, 0]), np.array([1, 3, 3, 2, 3, 0])
    assert list(quantise("inex2002", "strict_e01", e, s)) == list(quantise("inex2002", "s3e321", e, s))


def test_wrong_scale_is_a_clear_error():
    with pytest.raises(ValueError, match="not defined for assessments on the inex2002 scale"):
        get_quantisation("inex2002", "binexh")


def test_ideal_by_hand():
    gains = {"/a[1]": 0.2, "/a[1]/b[1]": 0.8, "/a[1]/b[1]/c[1]": 0.8, "/a[1]/b[2]": 0.3}
    # path a-b1-c1: max .8 shared by b1 and c1; path a-b2: b2 (.3) beats a (.2)
    assert ideal_elements(gains, "ancestor") == ["/a[1]/b[1]", "/a[1]/b[2]"]
    assert ideal_elements(gains, "descendant") == ["/a[1]/b[1]/c[1]", "/a[1]/b[2]"]
    # an ancestor that wins one path removes the descendants other paths chose (final filter)
    assert ideal_elements({"/a[1]": 0.5, "/a[1]/b[1]": 0.9, "/a[1]/d[1]": 0.1}) == ["/a[1]"]


paths = st.lists(st.lists(st.integers(1, 3), min_size=1, max_size=4), min_size=1, max_size=15)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(paths, st.lists(st.floats(0, 1), min_size=15, max_size=15), st.sampled_from(["ancestor", "descendant"]))
def test_ideal_never_overlaps_nor_has_zero_gain(steps, gains, tie):
    xps = sorted({"/a[1]" + "".join(f"/s[{i}]" for i in s) for s in steps})
    full = pd.DataFrame({"topic": "1", "doc": "d", "xpath": xps, "size": 10, "gain": gains[:len(xps)]})
    full = full[full["gain"] > 0]
    ideal = ideal_recallbase(full, tie)
    chosen = list(ideal.loc[ideal["ideal"], "xpath"])
    assert (ideal.loc[ideal["ideal"], "gain"] > 0).all()
    for x in chosen:
        for y in chosen:
            assert x == y or not (y.startswith(x + "/") or x.startswith(y + "/"))
    if len(full):
        assert chosen, "a non-empty recall-base has at least one ideal element"


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.integers(0, 50), st.integers(1, 20)), min_size=1, max_size=25))
def test_merge_ranges_grouped_equals_character_sets(items):
    from inexflow.model.recallbase import merge_ranges_grouped

    df = pd.DataFrame([(d, s, s + n) for d, s, n in items], columns=["doc", "start", "end"])
    out = merge_ranges_grouped(df, ["doc"])
    for d in "ab":
        want = set()
        for dd, s, n in items:
            if dd == d:
                want |= set(range(s, s + n))
        got_ranges = out[out["doc"] == d]
        got = set()
        for s, e in zip(got_ranges["start"], got_ranges["end"]):
            assert not (got & set(range(s, e))), "merged ranges are disjoint"
            got |= set(range(s, e))
        assert got == want
        starts = list(got_ranges["start"])
        ends = list(got_ranges["end"])
        assert all(ends[i] < starts[i + 1] for i in range(len(starts) - 1)), "touching ranges are merged"


@pytest.mark.parametrize("seed,dense", [(s, s % 2 == 0) for s in range(6)])
def test_passage_overlap_equals_character_counting(seed, dense, monkeypatch):
    """overlap_with_passages (one binary search per item, the cumulative cover for items over
    several passages) equals counting highlighted characters one by one: items inside,
    across, between and over several passages, empty items, elements without a range, and
    keys with no passages."""
    from inexflow.model import passage_spans
    from inexflow.model.recallbase import overlap_with_passages

    monkeypatch.setattr(passage_spans, "DENSE_KEYS", 1 << 23 if dense else 0)  # the lookup table or the search
    rng = np.random.default_rng(seed)
    rows = []
    for t in ("1", "2"):
        for d in ("a", "b", "c"):
            pos = 0
            for _ in range(rng.integers(0, 5)):
                s = pos + int(rng.integers(0, 20))
                e = s + int(rng.integers(1, 15))
                rows.append((t, d, s, e))
                pos = e + int(rng.integers(0, 3))  # touching passages too
    passages = pd.DataFrame(rows, columns=["topic", "doc", "start", "end"])
    n = 300
    start = rng.integers(-1, 90, n)
    items = pd.DataFrame({"topic": rng.choice(["1", "2", "3"], n), "doc": rng.choice(["a", "b", "c", "z"], n),
                          "start": start, "end": np.maximum(start, 0) + rng.integers(0, 40, n)})
    lit = {}
    for r in passages.itertuples():
        lit.setdefault((r.topic, r.doc), set()).update(range(r.start, r.end))
    want = [0 if r.start < 0 else len(lit.get((r.topic, r.doc), set()) & set(range(r.start, r.end)))
            for r in items.itertuples()]
    assert (overlap_with_passages(items, passages) == want).all()
    assert sum(want) > 0


def test_an_offset_beyond_four_billion_never_reaches_the_next_documents_passages():
    """Positions are searched as key << 32 | position: an item of document a starting past 2**32
    (a run's absurd offset) overlaps none of document b's highlighted passages, which the next key
    holds; within its own document it still meets the passages it spans."""
    from inexflow.model.recallbase import overlap_with_passages

    passages = pd.DataFrame({"topic": ["1", "1"], "doc": ["a", "b"], "start": [0, 0], "end": [100, 100]})
    big = 2 ** 32
    items = pd.DataFrame({"topic": ["1", "1", "1"], "doc": ["a", "a", "b"],
                          "start": [big + 10, 50, 0], "end": [big + 50, big + 50, 10]})
    assert list(overlap_with_passages(items, passages)) == [0, 50, 10]
