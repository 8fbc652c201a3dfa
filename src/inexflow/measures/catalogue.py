"""What a measure name means, declared once and read by every consumer (aggregation, output
formatting, plots, analyses, config checks).

- Which names a family emits: ``register_family(name, measures=...)`` in
  :mod:`inexflow.measures`; :func:`inexflow.measures.measure_names`.
- Mean name -> per-topic name, where they differ (``MAiP`` is the mean of ``AiP``): declared
  by the family (``register_family(..., means={"MAiP": "AiP"})``); :func:`per_topic_name`.
- Counts: summed over topics, not averaged (``num_rel``, ``ret_size``, ...), printed as
  integers: :data:`COUNTS`, :func:`is_count`.
- Curve points: ``ep[x]`` (ep/gr, x = gain recall), ``nxCG@[k]`` (x = rank),
  ``ircl_prn.x`` (interpolated precision, x = recall): :func:`curve_point`.
- Quantisation labels of measures that use none (the passage measures count characters,
  BEPD distances): :data:`NO_QUANT`.
"""

from __future__ import annotations

import re

COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size"})
NO_QUANT = frozenset({"-", "chars", "bep"})
# curve prefix -> (title, x axis); the x value follows the prefix, up to a closing "]"
CURVES = {"ep[": ("ep/gr curve", "gain recall"), "nxCG@[": ("nxCG curve", "rank"),
          "ircl_prn.": ("interpolated precision", "recall")}
MEANS: dict[str, str] = {}  # mean name -> per-topic name; filled by register_family(..., means=...)

_CURVE = re.compile("^(" + "|".join(re.escape(p) for p in CURVES) + r")([0-9.]+)\]?$")


def per_topic_name(measure: str) -> str:
    """The per-topic name of a mean (``MAiP`` -> ``AiP``); other names are their own."""
    return MEANS.get(measure, measure)


def is_count(measure: str) -> bool:
    return measure in COUNTS


def curve_point(measure: str) -> tuple[str, float] | None:
    """(curve prefix, x) of a curve point such as ``ep[0.25]`` or ``nxCG@[15]``, else None."""
    m = _CURVE.match(measure)
    return (m.group(1), float(m.group(2))) if m else None
