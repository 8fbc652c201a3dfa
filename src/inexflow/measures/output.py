"""Glue shared by the ``score`` stage and ``inexflow score``: which family scores a task,
resolving element results to character ranges, building recall-bases, printing scores.
"""

from __future__ import annotations

import json
import logging
import math
from decimal import Decimal

import numpy as np

from inexflow.io.topic_order import trec_topic_order
from inexflow.measures.catalogue import NO_QUANT, is_count
from inexflow.measures.registry import MEANS, trec_sorted

log = logging.getLogger("inexflow")


def select_scores(df, names):
    """The rows of the measures ``names`` (:func:`inexflow.measures.registry.select_measures`),
    in that order (:func:`selected_rows`)."""
    return df.iloc[selected_rows(list(df["measure"]), list(df["topic"]), names)]


def selected_rows(measures: list[str], topics: list[str], names) -> np.ndarray:
    """The positions of the rows (each row's measure in ``measures``, its topic in ``topics``)
    of the measures ``names``, in that order, as ir_measures gives AP per topic for AP: a
    mean's per-topic rows come with it (``MAiP``: ``AiP`` per topic, ``MAiP`` over all) and a
    per-topic name brings its mean."""
    position: dict[tuple[str, bool], int] = {}  # (measure, is the all row) -> position in names
    has_all = {m for m, t in zip(measures, topics) if t == "all"}
    for i, n in enumerate(names):
        per_topic = MEANS.get(n, n)
        # a per-topic name without a mean of its own brings its mean (AiP: MAiP); map has its own
        means = [n] if n in has_all else [m for m, t in MEANS.items() if t == n] or [n]
        for key in [(n, False), (n, True), (per_topic, False), *((m, True) for m in means)]:
            position.setdefault(key, i)
    key = np.array([position.get((m, t == "all"), -1) for m, t in zip(measures, topics)], dtype=np.int64)
    keep = np.flatnonzero(key >= 0)
    return keep[key[keep].argsort(kind="stable")]


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


def rows_of(df) -> list[tuple]:
    """The rows ``(topic, quant, measure, value)`` of a score table, in its order."""
    return list(zip(df["topic"], df["quant"], df["measure"], df["value"]))


def _in_output_order(rows: list[tuple], per_topic: bool) -> list[tuple]:
    """The rows printed: per-topic ones (if ``per_topic``) topic by topic, in the order the
    rows give the topics (each family's: the official tool's string order for the passage and
    in-context families, trec_eval's for trec, :func:`~inexflow.io.topic_order.topic_sort_key`
    for the others), each topic's rows in their order; then the means."""
    if not per_topic:
        return [r for r in rows if r[0] == "all"]
    seen = {t: i for i, t in enumerate(dict.fromkeys(r[0] for r in rows if r[0] != "all"))}
    return sorted(rows, key=lambda r: seen.get(r[0], len(seen)))


def json_lines(df, per_topic: bool, run: str) -> str:
    """One JSON object per score (``--format json``): run, measure, topic, quant (as the score
    tables have it: ``chars`` for a passage measure, ``-`` for one without a quantisation) and
    value (an integer for a count, NaN as null), in the order of :func:`format_scores`."""
    out = []
    for topic, quant, measure, v in _in_output_order(rows_of(df), per_topic):
        v = float(v)
        value = None if math.isnan(v) else (int(v) if is_count(measure) and v.is_integer() else v)
        out.append(json.dumps({"run": run, "measure": measure, "topic": topic,
                               "quant": quant, "value": value}) + "\n")
    return "".join(out)


def format_scores(df, per_topic: bool, align: bool = False) -> str:
    """``measure<TAB>topic<TAB>value`` lines of a score table (:func:`format_rows`)."""
    return format_rows(rows_of(df), per_topic, align)


def trec_eval_lines(rows: list[tuple], per_topic: bool, run_id: str | None) -> str:
    """The rows ``(topic, quant, measure, value)`` as trec_eval 10.0 prints them: the name
    left-aligned in 22 columns, the topic, the value with 4 decimals (counts as integers);
    per-topic lines (if ``per_topic``) topic by topic in trec_eval's order (by their bytes:
    ``1``, ``10``, ``2``), then ``runid`` (unless None) and the ``all`` lines."""
    rows = rows if per_topic else [r for r in rows if r[0] == "all"]
    place = {n: i for i, n in enumerate(trec_sorted(dict.fromkeys(r[2] for r in rows)))}
    topic_of = {t: i for i, t in enumerate(trec_topic_order({r[0] for r in rows} - {"all"}))} | {"all": len(rows)}
    rows = sorted(rows, key=lambda r: (topic_of[r[0]], place[r[2]]))  # a topic's lines in trec_eval's order
    out, done = [], False
    for topic, _, measure, value in rows:
        if topic == "all" and not done and run_id is not None:
            out.append(f"{'runid':<22}\tall\t{run_id}\n")
            done = True
        if isinstance(value, str):  # relstring
            out.append(f"{measure:<22}\t{topic}\t'{value}'\n")
            continue
        v = float(value)
        # C's printf("%6.4f") of 0.0 / 0.0 (the sign bit set) is "  -nan"
        text = str(int(v)) if is_count(measure) and v.is_integer() else "  -nan" if math.isnan(v) else f"{v:6.4f}"
        out.append(f"{measure:<22}\t{topic}\t{text}\n")
    if not done and run_id is not None:  # -m runid alone
        out.append(f"{'runid':<22}\tall\t{run_id}\n")
    return "".join(out)


def format_rows(rows: list[tuple], per_topic: bool, align: bool = False) -> str:
    """``measure<TAB>topic<TAB>value`` lines of the rows ``(topic, quant, measure, value)``,
    topics in order, then the ``all`` lines.

    With several quantisations, measure names get the quantisation as suffix (``MAep.strict``).
    ``align``: a name shorter than 8 characters is followed by two tabs, as inex_eval prints it
    (its output is then byte-identical to the tool's, the ``<eval>`` line aside).
    """
    rows = _in_output_order(rows, per_topic)
    quants = list(dict.fromkeys(q for _, q, _, _ in rows if q not in NO_QUANT))
    out = []
    for topic, quant, measure, value in rows:
        name = measure if len(quants) <= 1 or quant in NO_QUANT else f"{measure}.{quant}"
        tab = "\t\t" if align and len(name) < 8 else "\t"
        out.append(f"{name}{tab}{topic}\t{format_value(measure, value)}\n")
    return "".join(out)
