"""Measure families and the registry the ``score`` stage and the CLI use.

A family is one function ``score(run, ctx) -> DataFrame[topic, quant, measure, value]``
returning per-topic values and the means over topics (topic ``all``). Adding a family is
one :func:`register_family` call; tasks name the families they are scored with in the
config (``tasks: {TASK: {families: [...]}}``).

Families so far:

- ``xcg``      XCG measures (Kazai & Lalmas, INEX 2005 paper, section 3): nxCG[k],
               MAnxCG[k], MAep, iMAep, Q, R, the ep/gr and nxCG curves, with overlap off
               (Thorough) or on (Focused, option ``overlap``/``alpha``) --
               :mod:`inexflow.measures.xcg`, :mod:`inexflow.measures.overlap`
- ``fetchbrowse`` FetchBrowse article- and element-level ep/gr --
               :mod:`inexflow.measures.fetchbrowse`
- ``passage``  the official INEX 2007-2010 focused passage measures iP[x], AiP, MAiP
               and the tool's bookkeeping lines (Pal, Mitra & Kamps; INEX 2009 tool) --
               :mod:`inexflow.measures.passage`; ``passage_thorough`` the same for the
               Thorough task (overlap allowed, the tool's ``-t``)
- ``ric``      Relevant in Context: per-article F_beta, gP[r], gR[r], AgP, MAgP --
               :mod:`inexflow.measures.incontext`
- ``bic``      Best in Context: (n - d)/n per article, gP[r], AgP, MAgP -- idem
- ``hixeval``  Relevant in Context 2006 on element runs: HiXEval F per article, gP[r],
               gR[r], AgP, MAgP (2006 paper section 6) -- :mod:`inexflow.measures.hixeval`
- ``bepd``     Best in Context 2006: BEPD[A] and EPRUM[A] -- :mod:`inexflow.measures.bepd`
- ``cutoff``   precision and set-based overlap at cut-offs (Hiemstra & Mihajlovic) --
               :mod:`inexflow.measures.cutoff`
- ``precall``  inex_eval 2002: precall with expected search length over tie levels --
               :mod:`inexflow.measures.precall`
- ``inex_eval_ng`` INEX 2003: overlap-aware recall_o[k] and precision_o[k] (Hiemstra &
               Mihajlovic Eq. 5-7) -- :mod:`inexflow.measures.inexevalng`
- ``trec``     document-level map, P_k, Rprec, ndcg as trec_eval (TREC qrels, or any
               assessments read at document level) -- :mod:`inexflow.measures.trec`
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from inexflow.errors import UsageError
from inexflow.measures import catalogue
from inexflow.model.assessments import Assessments
from inexflow.model.options import Options

SCORE_COLUMNS = ["run", "topic", "task", "quant", "measure", "value"]


@dataclass
class ScoringContext:
    """What a measure family may use: the assessments, the recall-bases per quantisation (for
    families that declare ``needs=("recallbases",)``), the collection index (``"index"``)
    and the :class:`~inexflow.model.options.Options` (a mapping of option names is accepted too).
    """

    assessments: Assessments
    recallbases: dict[str, pd.DataFrame] = field(default_factory=dict)
    options: Options | dict = field(default_factory=Options)
    index: pd.DataFrame | None = None

    cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if isinstance(self.options, dict):
            opts = dict(self.options)
            if "index" in opts:
                self.index = opts.pop("index")
            self.options = Options.from_dict(opts)

    def opt(self, name):
        """An option's value (its default from :class:`~inexflow.model.options.Options` when not set)."""
        return getattr(self.options, name)

    def memo(self, key: str, compute):
        """``compute()`` once per context (for data derived from the assessments that every
        run needs, e.g. the merged highlighted passages)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


FamilyFn = Callable[["object", ScoringContext], "pd.DataFrame"]
FAMILIES: dict[str, FamilyFn] = {}
# family -> function(options) -> the measure names the family emits with those options
MEASURE_NAMES: dict[str, Callable[[dict], list[str]]] = {}
# family -> what it needs besides the assessments: "recallbases" (element recall-bases per
# quantisation), "index" (the collection index of the assessed documents)
NEEDS: dict[str, frozenset[str]] = {}


# family -> the order it reads a run in: "rank" (as the readers order results: by rank, else
# by descending score, then file order), "file" (the order of the lines in the file, as
# inex_eval reads text runs; the families that reproduce it) or "trec_eval" (descending
# score, ties by descending document id)
ORDER: dict[str, str] = {}


def register_family(name: str, measures: Callable[[dict], list[str]], needs=(), means: dict | None = None,
                    order: str = "rank", aggregate: str = "mean", aggregates: dict | None = None):
    """Register a family: ``measures(options)`` lists every measure name it emits (per-topic
    and mean names, curve points), so that configs are checked before anything runs;
    ``needs`` says what the session must build for it (``recallbases``, ``index``);
    ``means`` maps its mean names to their per-topic names where they differ
    (:mod:`inexflow.measures.catalogue`); ``order`` is the result order it scores
    (:func:`in_evaluation_order`); ``aggregate`` how its means are taken over topics and
    ``aggregates`` the measures aggregated otherwise (:data:`catalogue.AGGREGATORS`; counts are
    summed, ``num_q`` counts topics)."""
    for how in [aggregate, *(aggregates or {}).values()]:
        if how not in catalogue.AGGREGATORS:
            raise ValueError(f"family {name}: unknown aggregator {how!r}")

    def deco(fn: FamilyFn) -> FamilyFn:
        FAMILIES[name] = fn
        MEASURE_NAMES[name] = measures
        NEEDS[name] = frozenset(needs)
        ORDER[name] = order
        catalogue.MEANS.update(means or {})
        catalogue.FAMILY_AGGREGATE[name] = aggregate
        catalogue.FAMILY_AGGREGATES[name] = dict(aggregates or {})
        return fn
    return deco


def in_evaluation_order(run, family: str):
    """``run`` with its results in the order ``family`` scores them: the one ordering rule
    (docs/measures.md). "file" order warns once where ranks disagree with the file
    (:func:`inexflow.measures.toolorder.in_file_order`)."""
    from inexflow.measures.toolorder import in_file_order
    from inexflow.measures.trec import trec_eval_order

    get_family(family)
    return {"file": in_file_order, "trec_eval": trec_eval_order}.get(ORDER[family], lambda r: r)(run)


def needs(families) -> frozenset[str]:
    """What scoring ``families`` needs: a subset of {"recallbases", "index"}."""
    out: set[str] = set()
    for f in families:
        get_family(f)
        out |= NEEDS[f]
    return frozenset(out)


def measure_names(families, options: dict | None = None) -> list[str]:
    """Every measure name the ``families`` emit with ``options`` (config keys such as
    ``cutoffs``, ``cutoff_ks``, ``bepd_a``, ``max_list_length``), in family order."""
    if isinstance(options, Options):
        options = options.as_dict()
    out: dict[str, None] = {}
    for f in families:
        get_family(f)
        out.update(dict.fromkeys(MEASURE_NAMES[f](options or {})))
    return list(out)


def check_measures(names, families, options: dict | None, where: str):
    """Each of ``names`` must be a measure of ``families``: a :class:`UsageError` starting with
    ``where`` (e.g. ``config tasks.focused.main_measure``) and giving the closest known names
    otherwise."""
    import difflib

    known = measure_names(families, options)
    for n in names:
        if n not in known:
            close = difflib.get_close_matches(str(n), known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UsageError(f"{where}: {n!r} is not a measure of the families {', '.join(families)}"
                             f"{hint} (they give {', '.join(_brief(known))})")


def _brief(names: list[str]) -> list[str]:
    """Measure names with runs of curve points shortened (ircl_prn.0.00 .. ircl_prn.1.00)."""
    import re

    out, groups = [], {}
    for n in names:
        stem = re.sub(r"[0-9.]+(?=\]?$)", "#", n)
        groups.setdefault(stem, []).append(n)
    for ns in groups.values():
        out.append(ns[0] if len(ns) == 1 else f"{ns[0]} .. {ns[-1]}")
    return out


def get_family(name: str) -> FamilyFn:
    if name not in FAMILIES:
        raise UsageError(f"unknown measure family {name!r}; choose one of {', '.join(sorted(FAMILIES))}")
    return FAMILIES[name]


def score_run(run, family: str, ctx: ScoringContext) -> pd.DataFrame:
    """Score ``run`` with ``family``; the tidy table ``SCORE_COLUMNS``."""
    fn = get_family(family)
    df = fn(in_evaluation_order(run, family), ctx)
    df.insert(0, "run", run.name)
    df.insert(2, "task", run.task)
    return df[SCORE_COLUMNS]


# families register themselves on import
from inexflow.measures import bepd as _bepd  # noqa: E402,F401
from inexflow.measures import cutoff as _cutoff  # noqa: E402,F401
from inexflow.measures import fetchbrowse as _fetchbrowse  # noqa: E402,F401
from inexflow.measures import hixeval as _hixeval  # noqa: E402,F401
from inexflow.measures import incontext as _incontext  # noqa: E402,F401
from inexflow.measures import inexevalng as _inexevalng  # noqa: E402,F401
from inexflow.measures import passage as _passage  # noqa: E402,F401
from inexflow.measures import precall as _precall  # noqa: E402,F401
from inexflow.measures import trec as _trec  # noqa: E402,F401
from inexflow.measures import xcg as _xcg  # noqa: E402,F401
