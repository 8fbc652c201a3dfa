"""Glue shared by the ``score`` stage and ``inexflow score``: which family scores a task,
resolving element results to character ranges, building recall-bases, printing scores.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from inexflow.errors import InputError, UsageError
from inexflow.io.collection import index_collection
from inexflow.measures.catalogue import NO_QUANT, is_count
from inexflow.model.assessments import Assessments, topic_sort_key
from inexflow.model.recallbase import assessed_gains, element_relevance, ideal_recallbase
from inexflow.model.runs import Run

log = logging.getLogger("inexflow")

# Default measure families per task and kind of assessments (passage = FOL qrels).
DEFAULT_FAMILIES = {
    ("thorough", "element"): ["xcg"], ("thorough", "passage"): ["passage_thorough"],
    ("focused", "element"): ["xcg"], ("fetch-browse", "element"): ["fetchbrowse"],
    ("focused", "passage"): ["passage"],
    ("relevant-in-context", "passage"): ["ric"], ("best-in-context", "passage"): ["bic"],
    ("best-in-context", "element"): ["bepd"], ("relevant-in-context", "element"): ["hixeval"],
}


def assessment_kind(a: Assessments) -> str:
    return {"fol": "passage", "trec": "document"}.get(a.scale, "element")


def families_for(task: str, a: Assessments, override: list[str] | None = None) -> list[str]:
    if override:
        from inexflow.measures import get_family
        for f in override:
            get_family(f)
        return list(override)
    fams = ["trec"] if assessment_kind(a) == "document" else DEFAULT_FAMILIES.get((task, assessment_kind(a)))
    if not fams:
        raise UsageError(f"no measure family scores task {task!r} on {a.scale} assessments yet "
                         f"(available: {', '.join(f'{t} on {k}' for t, k in sorted(DEFAULT_FAMILIES))})")
    return fams


def resolve_extents(run: Run, collection, index: pd.DataFrame | None = None) -> Run:
    """Fill offset/length of element results (and of whole-document results, length -1)
    with the character range from the collection.

    Documents found in ``index`` are taken from it; the others are indexed from
    ``collection`` (a document missing there is an error naming it).
    """
    if collection is None:
        return run
    res = run.results
    el = (res["xpath"] != "").to_numpy()
    whole = ((res["xpath"] == "") & (res["length"] < 0)).to_numpy()
    if not (el.any() or whole.any()):
        return run
    need = list(dict.fromkeys(res.loc[el | whole, "doc"]))
    have = set(index["doc"].unique()) if index is not None and len(index) else set()
    extra = index_collection(collection, [d for d in need if d not in have])
    ix = pd.concat([index, extra], ignore_index=True) if index is not None and len(index) else extra
    res = res.copy()
    if el.any():
        m = res.loc[el, ["doc", "xpath", "line", "topic"]].merge(
            ix[["doc", "xpath", "start", "end"]], on=["doc", "xpath"], how="left")
        bad = m["start"].isna().to_numpy()
        if bad.any():
            r = m[bad].iloc[0]
            raise InputError(run.source, f"line {r.line}", f"element {r.doc}{r.xpath} (topic {r.topic}) does not "
                             f"exist in the collection document ({int(bad.sum())} unresolvable results)",
                             "the xpath of an element of that document")
        res.loc[el, "offset"] = m["start"].to_numpy(np.int64)
        res.loc[el, "length"] = (m["end"] - m["start"]).to_numpy(np.int64)
    if whole.any():
        roots = ix[ix["depth"] == 1].set_index("doc")["end"]
        res.loc[whole, "offset"] = 0
        res.loc[whole, "length"] = res.loc[whole, "doc"].map(roots).to_numpy(np.int64)
    run.results = res
    return run


def index_assessed(collection, a, log=None) -> pd.DataFrame:
    """The collection index of every document assessed in ``a`` (an :class:`Assessments`
    or a list of them: a campaign's assessment sets). An assessed element that the
    collection document does not have is an error naming it: assessments and collection
    do not belong together, and scoring would silently lose the element's extent."""
    sets = a if isinstance(a, (list, tuple)) else [a]
    docs = sorted(set().union(*(set(s.documents["doc"]) | set(s.elements["doc"]) | set(s.passages["doc"])
                                for s in sets)))
    index = index_collection(collection, docs, log=log)
    for s in sets:
        els = s.elements[["topic", "doc", "xpath"]]
        if len(els):
            m = els.merge(index[["doc", "xpath"]].drop_duplicates(), on=["doc", "xpath"], how="left", indicator=True)
            bad = m[m["_merge"] == "left_only"]
            if len(bad):
                r = bad.iloc[0]
                raise InputError(s.source, f"topic {r.topic}", f"assessed element {r.doc}{r.xpath} does not exist in "
                                 f"the collection document ({len(bad)} such elements)",
                                 f"assessments made on the collection {collection}")
    return index


def build_recallbases(a: Assessments, index: pd.DataFrame | None, quants, tie="ancestor") -> dict[str, pd.DataFrame]:
    """Every assessed element with its gain and the ``ideal`` flag, for every quantisation in
    ``quants`` (the full recall-base is the rows with gain > 0)."""
    els = element_relevance(a, index)
    return {q: ideal_recallbase(assessed_gains(els, a.scale, q), tie) for q in quants}


def format_value(measure: str, v: float) -> str:
    """A value as the official tool prints it: counts as integers, other values as Java's
    ``Double.toString`` (shortest round-trip digits; ``7.119099690176781E-4`` below 10^-3,
    ``NaN``), so that the output can be compared with the tool's byte for byte."""
    if is_count(measure) and float(v).is_integer():
        return str(int(v))
    return java_double(float(v))


def java_double(v: float) -> str:
    """Java's ``Double.toString(v)``: decimal notation for 10^-3 <= |v| < 10^7, else
    ``d.ddddE±n``; digits are the shortest that round-trip (Python's ``repr``)."""
    import math
    from decimal import Decimal

    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        s = repr(v)
        return s if "e" not in s else format(Decimal(s), "f")
    sign, digits, exp = Decimal(repr(v)).as_tuple()
    d = "".join(map(str, digits)).rstrip("0") or "0"
    return f"{'-' if sign else ''}{d[0]}.{d[1:] or '0'}E{exp + len(digits) - 1}"


def _in_output_order(df: pd.DataFrame, per_topic: bool) -> pd.DataFrame:
    """The rows printed: per-topic ones (if ``per_topic``) in topic order, then the means."""
    rows = df if per_topic else df[df["topic"] == "all"]
    rows = rows.assign(_k=rows["topic"].map(lambda t: (1, 0, "") if t == "all" else (0,) + topic_sort_key(t)[1:]))
    return rows.sort_values("_k", kind="stable")


def json_lines(df: pd.DataFrame, per_topic: bool, run: str) -> str:
    """One JSON object per score (``--format json``): run, measure, topic, quant (null for a
    quantisation-free measure) and value (an integer for a count, NaN as null), in the order
    of :func:`format_scores`."""
    import json
    import math

    out = []
    for r in _in_output_order(df, per_topic).itertuples():
        v = float(r.value)
        value = None if math.isnan(v) else (int(v) if is_count(r.measure) and v.is_integer() else v)
        out.append(json.dumps({"run": run, "measure": r.measure, "topic": r.topic,
                               "quant": None if r.quant in NO_QUANT else r.quant, "value": value}) + "\n")
    return "".join(out)


def format_scores(df: pd.DataFrame, per_topic: bool, align: bool = False) -> str:
    """``measure<TAB>topic<TAB>value`` lines, topics in order, then the ``all`` lines.

    With several quantisations, measure names get the quantisation as suffix (``MAep.strict``).
    ``align``: a name shorter than 8 characters is followed by two tabs, as inex_eval prints it
    (its output is then byte-identical to the tool's, the ``<eval>`` line aside).
    """
    rows = _in_output_order(df, per_topic)
    quants = [q for q in rows["quant"].unique() if q not in NO_QUANT]
    out = []
    for r in rows.itertuples():
        name = r.measure if len(quants) <= 1 or r.quant in NO_QUANT else f"{r.measure}.{r.quant}"
        tab = "\t\t" if align and len(name) < 8 else "\t"
        out.append(f"{name}{tab}{r.topic}\t{format_value(r.measure, r.value)}\n")
    return "".join(out)
