"""Glue shared by the ``score`` stage and ``inexflow score``: which family scores a task,
resolving element results to character ranges, building recall-bases, printing scores.
"""

from __future__ import annotations

import json
import logging
import math
from decimal import Decimal

import pandas as pd

from inexflow.io.canonical import topic_sort_key
from inexflow.measures.catalogue import NO_QUANT, is_count
from inexflow.measures.registry import MEANS

log = logging.getLogger("inexflow")


def select_scores(df: pd.DataFrame, names) -> pd.DataFrame:
    """The rows of the measures ``names`` (:func:`inexflow.measures.registry.select_measures`),
    in that order, as ir_measures gives AP per topic for AP: a mean's per-topic rows come with
    it (``MAiP``: ``AiP`` per topic, ``MAiP`` over all) and a per-topic name brings its mean."""
    position: dict[tuple[str, bool], int] = {}  # (measure, is the all row) -> position in names
    for i, n in enumerate(names):
        per_topic = MEANS.get(n, n)
        means = [m for m, t in MEANS.items() if t == n] or [n]
        for key in [(n, False), (n, True), (per_topic, False), *((m, True) for m in means)]:
            position.setdefault(key, i)
    key = pd.Series(list(zip(df["measure"], df["topic"] == "all")), index=df.index, dtype=object).map(position)
    keep = key.notna().to_numpy()
    return df[keep].iloc[key[keep].to_numpy().argsort(kind="stable")]


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
