"""Full and ideal recall-bases (INEX 2005 paper, section 5; docs/measures.md, "Ideal recall-base").

- :func:`element_relevance` gives one table of assessed elements for every assessment
  scale; for FOL qrels (passages only) it derives, through the collection index, every
  element containing highlighted text, ancestors included, with rsize = highlighted
  characters inside it and spec = rsize / size (the 2006 scale).
- :func:`full_recallbase` keeps the elements with quant > 0 and their gain.
- :func:`ideal_recallbase` applies the relevant-path procedure: a relevant path runs from
  the article root to a relevant element with no relevant descendants; on each path the
  element with the highest gain is kept, equal gains going to the ancestor
  (``tie='ancestor'``, default) or the descendant (``tie='descendant'``); where two
  selected elements overlap, the ancestor is kept. The result never overlaps.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import InputError, UsageError
from inexflow.io.canonical import ELEMENT_COLUMNS, make_table
from inexflow.io.xpath import ancestors
from inexflow.model.assessments import Assessments
from inexflow.model.passage_spans import PassageSpans
from inexflow.model.quantisation import quantise

RECALLBASE_COLUMNS = ["topic", "doc", "xpath", "size", "gain", "ideal"]


def overlap_with_passages(items: pd.DataFrame, passages: pd.DataFrame, keys=("topic", "doc")) -> np.ndarray:
    """Characters of each item's [start, end) inside the (non-overlapping) passages of its keys.

    ``items`` needs ``start``/``end`` and ``keys``; ``passages`` needs ``start``/``end`` and
    ``keys``. Items with a negative start (elements without a range) get 0.
    """
    keys = list(keys)
    if len(items) == 0 or len(passages) == 0:
        return np.zeros(len(items), dtype=np.int64)
    index = PassageIndex(passages, keys)
    codes = [pd.factorize(items[k]) for k in keys]
    return index.overlap([u for _, u in codes], [c for c, _ in codes], items["start"].to_numpy(np.int64),
                         items["end"].to_numpy(np.int64))


class PassageIndex(PassageSpans):
    """Non-overlapping highlighted passages of (topic, doc) keys (:class:`PassageSpans` of
    the keys' combined codes). Build once per assessments, query per run."""

    def __init__(self, passages: pd.DataFrame, keys=("topic", "doc")):
        self.keys = list(keys)
        combined = np.zeros(len(passages), dtype=np.int64)
        self.uniques = []
        for k in self.keys:
            codes, uniq = pd.factorize(passages[k])
            combined = combined * max(len(uniq), 1) + codes
            self.uniques.append(pd.Index(uniq))
        super().__init__(combined, passages["start"].to_numpy(np.int64), passages["end"].to_numpy(np.int64),
                         int(np.prod([max(len(u), 1) for u in self.uniques])))

    def overlap(self, uniques: list, codes: list, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        """Overlap of items given, per key, their codes into ``uniques`` (as pd.factorize
        returns them), and their [start, end)."""
        if len(self.ks) == 0:
            return np.zeros(len(start), dtype=np.int64)
        combined = np.zeros(len(start), dtype=np.int64)
        known = start >= 0
        for mine, u, c in zip(self.uniques, uniques, codes):
            m = mine.get_indexer(u)[c]
            known &= m >= 0
            combined = combined * max(len(mine), 1) + m
        return self.overlap_of_keys(combined, known, start, end)


def merge_ranges_grouped(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Union of the [start, end) ranges within each group of ``keys``, vectorised.

    A range starts a new merged range when it begins after every earlier range of its
    group has ended; ranges that touch (end == next start) are merged.
    """
    if df.empty:
        return df[keys + ["start", "end"]].copy()
    d = df[keys + ["start", "end"]].sort_values(keys + ["start", "end"], kind="stable").reset_index(drop=True)
    first = np.ones(len(d), dtype=bool)
    same = np.ones(len(d) - 1, dtype=bool)
    for k in keys:
        v = d[k].to_numpy()
        same &= v[1:] == v[:-1]
    first[1:] = ~same
    prev_end = d.groupby(keys, sort=False)["end"].cummax().to_numpy()
    new = first.copy()
    new[1:] |= d["start"].to_numpy()[1:] > prev_end[:-1]
    seg = np.cumsum(new) - 1
    out = d.groupby(seg, sort=True).agg({**{k: "first" for k in keys}, "start": "min", "end": "max"})
    return out.reset_index(drop=True)


def normalised_passages(assessments: Assessments) -> pd.DataFrame:
    """Highlighted passages as merged [start, end) ranges per (topic, doc)."""
    p = assessments.passages
    p = p[p["start"] >= 0]
    p = p.assign(end=p["start"] + p["length"])
    out = merge_ranges_grouped(p, ["topic", "doc"])
    return out.astype({"topic": object, "doc": object, "start": "int64", "end": "int64"})


def element_relevance(assessments: Assessments, index: pd.DataFrame | None = None) -> pd.DataFrame:
    """The assessed elements (``ELEMENT_COLUMNS``) on the assessments' own scale.

    FOL: derived from passages and the collection index (needs ``index``). 2002-2004:
    sizes filled in from the index where given (needed for overlap-aware measures).
    """
    if assessments.scale != "fol":
        els = assessments.elements
        if index is not None and (els["size"] < 0).any():
            ix = index.assign(isize=index["end"] - index["start"])[["doc", "xpath", "isize"]]
            m = els.merge(ix, on=["doc", "xpath"], how="left")
            fill = (m["size"] < 0) & m["isize"].notna()
            m.loc[fill, "size"] = m.loc[fill, "isize"]
            els = m.drop(columns="isize").astype(ELEMENT_COLUMNS)
        return els
    if index is None:
        raise InputError(assessments.source, None, "FOL qrels need the collection index to derive element "
                         "relevance", "a 'collection' directory in the config")
    passages = normalised_passages(assessments)
    docs = passages[["topic", "doc"]].drop_duplicates()
    known = set(index["doc"].unique())
    missing = sorted(set(docs["doc"]) - known)
    if missing:
        raise InputError(assessments.source, f"document {missing[0]}", f"assessed document not in the collection "
                         f"index ({len(missing)} missing)", "every assessed document in the collection")
    cand = docs.merge(index[["doc", "xpath", "start", "end"]], on="doc", how="inner")
    cand["rsize"] = overlap_with_passages(cand, passages)
    cand = cand[cand["rsize"] > 0]
    size = (cand["end"] - cand["start"]).to_numpy(np.int64)
    rows = pd.DataFrame({"topic": cand["topic"].to_numpy(), "doc": cand["doc"].to_numpy(),
                         "xpath": cand["xpath"].to_numpy(), "exh": np.nan,
                         "spec": cand["rsize"].to_numpy() / np.maximum(size, 1), "size": size,
                         "rsize": cand["rsize"].to_numpy(np.int64)})
    return make_table(list(rows.itertuples(index=False, name=None)), ELEMENT_COLUMNS)


def assessed_gains(elements: pd.DataFrame, scale: str, quant: str) -> pd.DataFrame:
    """Every assessed element (in assessment order) with its gain: topic, doc, xpath, size, gain.

    Elements with gain 0 are kept: overlap-aware scoring needs their sizes and children.
    """
    gain = quantise(scale, quant, elements["exh"].to_numpy(), elements["spec"].to_numpy())
    out = elements[["topic", "doc", "xpath", "size"]].copy()
    out["gain"] = gain
    return out.reset_index(drop=True)


def full_recallbase(elements: pd.DataFrame, scale: str, quant: str) -> pd.DataFrame:
    """Every assessed element with quant > 0: topic, doc, xpath, size, gain."""
    out = assessed_gains(elements, scale, quant)
    return out[out["gain"] > 0].reset_index(drop=True)




def ideal_elements(gains: dict[str, float], tie: str = "ancestor") -> list[str]:
    """The ideal elements among one document's relevant elements ``{xpath: gain > 0}``."""
    has_rel_desc = set()
    for xp in gains:
        for a in ancestors(xp):
            if a in has_rel_desc:
                break
            has_rel_desc.add(a)
    chosen = set()
    for leaf in gains:
        if leaf in has_rel_desc:
            continue
        best, best_gain = leaf, gains[leaf]
        for a in ancestors(leaf):  # walking up: ancestors come later
            g = gains.get(a)
            if g is None:
                continue
            if g > best_gain or (g == best_gain and tie == "ancestor"):
                best, best_gain = a, g
        chosen.add(best)
    # final filter: where two selected elements overlap, keep the ancestor
    return sorted(x for x in chosen if not any(a in chosen for a in ancestors(x)))


def ideal_recallbase(full: pd.DataFrame, tie: str = "ancestor") -> pd.DataFrame:
    """Mark the ideal elements (adds the boolean column ``ideal``); only elements with
    gain > 0 take part, rows with gain 0 are kept unmarked."""
    if tie not in ("ancestor", "descendant"):
        raise UsageError(f"ideal_tie must be 'ancestor' or 'descendant', not {tie!r}")
    ideal = np.zeros(len(full), dtype=bool)
    pos = {}
    for i, (t, d, x) in enumerate(zip(full["topic"], full["doc"], full["xpath"])):
        pos[(t, d, x)] = i
    for (t, d), g in full[full["gain"] > 0].groupby(["topic", "doc"], sort=False):
        for x in ideal_elements(dict(zip(g["xpath"], g["gain"])), tie):
            ideal[pos[(t, d, x)]] = True
    out = full.copy()
    out["ideal"] = ideal
    return out[RECALLBASE_COLUMNS]


def build_recallbases(a: Assessments, index: pd.DataFrame | None, quants, tie="ancestor") -> dict[str, pd.DataFrame]:
    """Every assessed element with its gain and the ``ideal`` flag, for every quantisation in
    ``quants`` (the full recall-base is the rows with gain > 0)."""
    els = element_relevance(a, index)
    return {q: ideal_recallbase(assessed_gains(els, a.scale, q), tie) for q in quants}
