"""What a measure name means, declared once and read by every consumer (aggregation, output
formatting, plots, analyses, config checks).

- Which names a family emits: its declaration in :mod:`inexflow.measures.registry`;
  :func:`inexflow.measures.registry.measure_names`.
- Mean name -> per-topic name, where they differ (``MAiP`` is the mean of ``AiP``): declared
  by the family (``Family(..., means={"MAiP": "AiP"})``); :func:`per_topic_name`.
- Counts: summed over topics, not averaged (``num_rel``, ``ret_size``, ...), printed as
  integers: :data:`COUNTS`, :func:`is_count`.
- Curve points: ``ep[x]`` (ep/gr, x = gain recall), ``nxCG@[k]`` (x = rank),
  ``ircl_prn.x`` (interpolated precision, x = recall), ``EPRUM[A]@r[x]`` (EPRUM precision at
  recall x): :func:`curve_point`, :func:`curve_title`.
- Quantisation labels of measures that use none (the passage measures count characters,
  BEPD distances): :data:`NO_QUANT`.
- How a mean is aggregated from the per-topic values: :data:`AGGREGATORS` (``mean``,
  ``tool_mean``, ``sum``, ``topics``, ``qrels_sum``); a family declares its default
  (``Family(..., aggregate="tool_mean")``) and exceptions (``aggregates=``),
  counts are summed and ``num_q`` counts the topics; :func:`aggregator`,
  :func:`mean_rows`. The families' ``all`` rows, ``inexflow.irmeasures`` (ir_measures) and
  the catalogue test all aggregate through these.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable

import numpy as np

from inexflow.measures.registry import FAMILIES, MEANS  # noqa: F401  (MEANS: read from here too)

COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "ret_size", "rel_size",
                    "rel_ret_size"})
NO_QUANT = frozenset({"-", "chars", "bep"})
# curve prefix -> (title, x axis); the x value follows the prefix, up to a closing "]"
CURVES = {"ep[": ("ep/gr curve", "gain recall"), "nxCG@[": ("nxCG curve", "rank"),
          "ircl_prn.": ("interpolated precision", "recall")}


def tool_mean(values) -> float:
    """inex_eval's mean: the values summed left to right in topic order, then divided by their
    number (numpy's pairwise sum can differ in the last bit)."""
    v = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(v)[-1] / len(v)) if len(v) else 0.0


MIN_GEO_MEAN = 1e-5  # trec_eval's floor of a value in a geometric mean


def geometric_mean(values) -> float:
    """trec_eval's geometric mean over topics (``te_calc_avg_meas_s_gm``): the logarithms of
    the values, each at least :data:`MIN_GEO_MEAN`, summed in topic order, averaged,
    exponentiated."""
    total = 0.0
    for v in values:
        total += math.log(max(v, MIN_GEO_MEAN))
    return math.exp(total / len(values)) if len(values) else 0.0


# aggregator -> function(per-topic values in topic order) -> the ``all`` value.
# ``qrels_sum`` sums over every topic of the qrels, not only the scored ones (the official
# tool's num_rel and rel_size in Relevant/Best in Context): its values are the qrels topics'.
AGGREGATORS: dict[str, Callable[[list], float]] = {
    "mean": lambda v: float(np.mean(v)),  # arithmetic mean, numpy's pairwise summation
    "tool_mean": tool_mean,  # inex_eval's summation order (left to right)
    "sum": lambda v: float(sum(v)),  # counts, left to right
    "topics": lambda v: float(len(v)),  # num_q: the number of scored topics
    "qrels_sum": lambda v: float(sum(v)),  # counts over every qrels topic
    "geometric": geometric_mean,  # trec_eval's gm_map, gm_bpref
}
for _family in FAMILIES.values():
    for _how in [_family.aggregate, *_family.aggregates.values()]:
        if _how not in AGGREGATORS:
            raise ValueError(f"family {_family.name}: unknown aggregator {_how!r}")


def aggregator(family: str, measure: str) -> str:
    """How ``family`` aggregates ``measure`` (a mean or per-topic name) over topics: a key of
    :data:`AGGREGATORS`. ``num_q`` counts topics, the other counts are summed, the rest take the
    family's declared aggregator (``mean`` unless it declares another)."""
    declared = FAMILIES.get(family)
    over = declared.aggregates if declared else {}
    if measure in over:
        return over[measure]
    if measure == "num_q":
        return "topics"
    if is_count(measure):
        return "sum"
    return declared.aggregate if declared else "mean"


@functools.lru_cache(maxsize=64)
def _aggregation(family: str, names: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(each name's aggregator, each name's per-topic name) of ``family``'s mean ``names``, once
    per family and list of names (a call's runs share them)."""
    return [aggregator(family, n) for n in names], [per_topic_name(n) for n in names]


def aggregate(family: str, measure: str, values) -> float:
    """The ``all`` value of ``measure`` from its per-topic ``values`` in topic order."""
    return AGGREGATORS[aggregator(family, measure)](list(values))


def mean_rows(family: str, quant: str, per: list[dict[str, float]] | dict[str, np.ndarray], names: Iterable[str],
              qrels_values: dict[str, list] | None = None, topics: int | None = None) -> list[tuple]:
    """The ``all`` rows ``(all, quant, name, value)`` of ``names`` (mean names, in output order)
    from ``per``: one dict of per-topic values per scored topic in topic order, or one array of
    values in topic order per per-topic name (a mean name reads its per-topic name,
    :func:`per_topic_name`). ``qrels_values`` holds the values over every qrels topic of the
    measures aggregated by ``qrels_sum``; ``topics``, the number of topics, where ``per`` may
    hold no per-topic column (``num_q`` alone). No topic, no rows."""
    names = list(names)
    hows, keys = _aggregation(family, tuple(names))
    batched = {"tool_mean": {}, "mean": {}}
    if isinstance(per, dict):
        def column(key):
            return per[key].tolist()
        count = len(next(iter(per.values()), [])) if topics is None else topics
        # the tool_mean columns summed at once, each left to right as tool_mean sums it
        tool = [k for k, how in zip(keys, hows) if how == "tool_mean"]
        if tool and count:
            sums = np.cumsum(np.column_stack([np.asarray(per[k], np.float64) for k in tool]), axis=0)[-1] / count
            batched["tool_mean"] = dict(zip(tool, sums.tolist()))
        # the mean columns at once: each a row of one C-ordered matrix, whose means along the rows
        # are numpy's pairwise sums of each row, as np.mean sums one column alone
        means = list(dict.fromkeys(k for k, how in zip(keys, hows) if how == "mean"))
        if means and count:
            batched["mean"] = dict(zip(means, np.vstack([np.asarray(per[k], np.float64) for k in means])
                                       .mean(axis=1).tolist()))
    else:
        def column(key):
            return [v[key] for v in per]
        count = len(per)
    if not count:
        return []
    rows = []
    for name, how, key in zip(names, hows, keys):
        if key in batched.get(how, ()):
            rows.append(("all", quant, name, batched[how][key]))
            continue
        if how == "topics":
            values = [None] * count
        elif how == "qrels_sum":
            values = (qrels_values or {})[name]
        else:
            values = column(key)
        rows.append(("all", quant, name, AGGREGATORS[how](values)))
    return rows

_CURVE = re.compile("^(" + "|".join(re.escape(p) for p in CURVES) + r")([0-9.]+)\]?$")
# curves with a parameter in their prefix: prefix pattern -> (title with {0} for the parameter, x axis)
PARAM_CURVES = {r"EPRUM\[([0-9.e+-]+)\]@r\[": ("EPRUM precision-recall, A = {0}", "recall")}
_PARAM_CURVE = re.compile("^(" + "|".join(f"(?:{p})" for p in PARAM_CURVES) + r")([0-9.]+)\]$")


def per_topic_name(measure: str) -> str:
    """The per-topic name of a mean (``MAiP`` -> ``AiP``); other names are their own."""
    return MEANS.get(measure, measure)


def is_count(measure: str) -> bool:
    return measure in COUNTS


def curve_point(measure: str) -> tuple[str, float] | None:
    """(curve prefix, x) of a curve point such as ``ep[0.25]``, ``nxCG@[15]`` or
    ``EPRUM[1]@r[0.5]`` (prefix ``EPRUM[1]@r[``), else None."""
    m = _CURVE.match(measure) or _PARAM_CURVE.match(measure)
    return (m.group(1), float(m.group(m.lastindex))) if m else None


def curve_title(prefix: str) -> tuple[str, str]:
    """(title, x axis) of the curve of a prefix :func:`curve_point` gives."""
    if prefix in CURVES:
        return CURVES[prefix]
    for pattern, (title, axis) in PARAM_CURVES.items():
        m = re.fullmatch(pattern, prefix)
        if m:
            return title.format(*m.groups()), axis
    raise KeyError(prefix)
