"""Quantisation functions: map (exhaustivity, specificity) to a gain in [0, 1].

One registry, keyed by (scale, name); adding a quantisation is one decorated function.
Definitions follow ``docs/measures.md`` (Quantisations), which settles the 2005
paper (Kazai & Lalmas, INEX 2005 evaluation measures, section 4), the 2006 paper
(section 3), the 2002-2004 scale of Hiemstra & Mihajlovic (section 2) and Ogilvie &
Lalmas' reduced scales of the 2004 grades (section 4.1.3).

Encoding of the assessment table: on ``inex2005`` exh is -1 for ``?`` (too small), 0, 1
or 2 and spec is rsize/size; on ``inex2006`` and ``fol`` only spec counts; on
``inex2002`` exh and spec are 0..3.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from inexflow.errors import UsageError

QuantFn = Callable[[np.ndarray, np.ndarray], np.ndarray]
QUANTISATIONS: dict[tuple[str, str], QuantFn] = {}
# FOL qrels give element relevance on the 2006 (specificity-only) scale.
SCALE_ALIASES = {"fol": "inex2006"}


def register(scale: str, name: str):
    def deco(fn: QuantFn) -> QuantFn:
        QUANTISATIONS[(scale, name)] = fn
        return fn
    return deco


def names_for_scale(scale: str) -> list[str]:
    scale = SCALE_ALIASES.get(scale, scale)
    return sorted(n for s, n in QUANTISATIONS if s == scale)


def get_quantisation(scale: str, name: str) -> QuantFn:
    """The quantisation ``name`` on ``scale``; a name of another scale is a clear error."""
    s = SCALE_ALIASES.get(scale, scale)
    if (s, name) not in QUANTISATIONS:
        raise UsageError(f"quantisation {name!r} is not defined for assessments on the {scale} scale; "
                         f"choose one of {', '.join(names_for_scale(scale))}")
    return QUANTISATIONS[(s, name)]


def quantise(scale: str, name: str, exh, spec) -> np.ndarray:
    fn = get_quantisation(scale, name)
    out = fn(np.asarray(exh, dtype=np.float64), np.asarray(spec, dtype=np.float64))
    return np.clip(out.astype(np.float64), 0.0, 1.0)


# --- INEX 2005 scale: e in {?(-1), 0, 1, 2}, s in [0, 1] --------------------------------

@register("inex2005", "strict")
def q2005_strict(e, s):
    return ((e == 2) & (s == 1)).astype(float)


@register("inex2005", "gen")
def q2005_gen(e, s):
    """e * s / 2 with ``?`` counting as e = 0."""
    return np.maximum(e, 0) * s / 2


@register("inex2005", "genLifted")
def q2005_gen_lifted(e, s):
    """(e' + 1) * s / 3 for relevant elements (s > 0), e' = 0 for ``?``."""
    return np.where(s > 0, (np.maximum(e, 0) + 1) * s / 3, 0.0)


# What the registry's values are multiplied by to give the printed quantisations of the 2005
# paper (Eq. 2-3: gen = e s in [0, 2], genLifted = (e + 1) s in [0, 3]); the registry keeps
# every gain in [0, 1]. nxCG, MAep and iMAep are unchanged by a common factor; Q and R are not.
PRINTED_FACTORS = {("inex2005", "gen"): 2.0, ("inex2005", "genLifted"): 3.0}


def printed_factor(scale: str, name: str) -> float:
    """The factor from quantisation ``name``'s registry values to its printed ones (1 where
    the registry holds the printed function)."""
    return PRINTED_FACTORS.get((SCALE_ALIASES.get(scale, scale), name), 1.0)


@register("inex2005", "binexh")
def q2005_binexh(e, s):
    return s.copy()


@register("inex2005", "binexh_nosmall")
def q2005_binexh_nosmall(e, s):
    return np.where(e == -1, 0.0, s)


@register("inex2005", "fullyspec")
def q2005_fullyspec(e, s):
    return (s == 1).astype(float)


# --- INEX 2006 scale: specificity only (hl / len) -------------------------------------------

@register("inex2006", "spec")
def q2006_spec(e, s):
    return s.copy()


@register("inex2006", "gen")
def q2006_gen(e, s):
    """``gen`` on 2006 data means spec (docs/measures.md)."""
    return s.copy()


# --- INEX 2002-2004 scale: e, s in 0..3 -----------------------------------------------------

def _table(mapping: dict[str, float]) -> QuantFn:
    lut = np.zeros((4, 4))
    for es, v in mapping.items():
        lut[int(es[0]), int(es[1])] = v

    def fn(e, s):
        return lut[e.astype(int), s.astype(int)]
    return fn


register("inex2002", "strict")(_table({"33": 1.0}))
register("inex2002", "gen")(_table({"33": 1.0, "23": .75, "32": .75, "31": .75, "13": .5, "22": .5, "21": .5,
                                    "12": .25, "11": .25}))
register("inex2002", "sog")(_table({"33": 1.0, "23": .9, "13": .75, "32": .75, "22": .5, "12": .25, "31": .25,
                                    "21": .1, "11": .1}))


@register("inex2002", "e3s321")
def q2002_e3s321(e, s):
    return (e == 3).astype(float)


@register("inex2002", "e3s32")
def q2002_e3s32(e, s):
    return ((e == 3) & (s >= 2)).astype(float)


@register("inex2002", "s3e321")
def q2002_s3e321(e, s):
    return (s == 3).astype(float)


@register("inex2002", "s3e32")
def q2002_s3e32(e, s):
    return ((s == 3) & (e >= 2)).astype(float)


@register("inex2002", "liberal")
def q2002_liberal(e, s):
    return ((e >= 2) | (s >= 2)).astype(float)


@register("inex2002", "anyrel")
def q2002_anyrel(e, s):
    return (e > 0).astype(float)


# --- Ogilvie & Lalmas' reduced scales of the 2002-2004 grades (section 4.1.3) ------------------
# "A reduced scale of 0, 1, 2 where 0 corresponds to not exhaustive/specific, 1 to somewhat
# exhaustive/specific, and 2 to highly exhaustive/specific": marginally (1) and fairly (2)
# merge into somewhat; the 0, 1 scale keeps only relevant or not (1, 2 and 3 merge). A merged
# grade is read as the highest grade it merges (docs/measures.md, Quantisations): each scale
# maps a 0..3 grade to that grade, so the top grade stays 3 and strict keeps its meaning.
REDUCED_SCALES = {"012": np.array([0, 2, 2, 3]), "01": np.array([0, 3, 3, 3])}
# the 2004 quantisations Ogilvie & Lalmas apply on the reduced scales (Strict 4, Gen 4, SOG)
REDUCED_BASES = ("strict", "gen", "sog")


def reduced(base: str, scale: str, specificity: bool) -> QuantFn:
    """The 2004 quantisation ``base`` on assessments whose exhaustivity (and with
    ``specificity`` their specificity too) were given on the reduced ``scale``
    (:data:`REDUCED_SCALES`): ``base`` of the grades each merged grade is read as."""
    fn, to = QUANTISATIONS[("inex2002", base)], REDUCED_SCALES[scale]

    def on_reduced(e, s):
        return fn(to[e.astype(int)], to[s.astype(int)] if specificity else s)
    return on_reduced


# BASE_eSCALE: exhaustivity on the reduced scale (INEX 2005 reduced exhaustivity only);
# BASE_es012: both dimensions, as the paper's sentence reads. On the 0, 1 scale for both
# dimensions every base is anyrel (1 for any relevant element), so it is not repeated.
for _base in REDUCED_BASES:
    for _scale in REDUCED_SCALES:
        register("inex2002", f"{_base}_e{_scale}")(reduced(_base, _scale, specificity=False))
    register("inex2002", f"{_base}_es012")(reduced(_base, "012", specificity=True))
