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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from inexflow.errors import UsageError
from inexflow.formats.assessments import Assessments

SCORE_COLUMNS = ["run", "topic", "task", "quant", "measure", "value"]


@dataclass
class ScoringContext:
    """What a measure family may use: the assessments, recall-bases per quantisation, options.

    options: ``cutoffs`` (list of int), ``quants`` (list of str), ``empty_topics_zero``
    (bool, the ``-e`` of the official tools: topics assessed but absent from the run
    score 0 instead of being left out), ``all_qrels_topics`` (bool, the ``-c`` of the
    passage tool), ``topics`` (optional list restricting the topic set).
    """

    assessments: Assessments
    recallbases: dict[str, pd.DataFrame] = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    cache: dict = field(default_factory=dict, repr=False)

    def opt(self, name, default=None):
        return self.options.get(name, default)

    def memo(self, key: str, compute):
        """``compute()`` once per context (for data derived from the assessments that every
        run needs, e.g. the merged highlighted passages)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


FamilyFn = Callable[["object", ScoringContext], pd.DataFrame]
FAMILIES: dict[str, FamilyFn] = {}


def register_family(name: str):
    def deco(fn: FamilyFn) -> FamilyFn:
        FAMILIES[name] = fn
        return fn
    return deco


def get_family(name: str) -> FamilyFn:
    if name not in FAMILIES:
        raise UsageError(f"unknown measure family {name!r}; choose one of {', '.join(sorted(FAMILIES))}")
    return FAMILIES[name]


def score_run(run, family: str, ctx: ScoringContext) -> pd.DataFrame:
    """Score ``run`` with ``family``; the tidy table ``SCORE_COLUMNS``."""
    df = get_family(family)(run, ctx)
    df.insert(0, "run", run.run_id)
    df.insert(2, "task", run.task)
    return df[SCORE_COLUMNS]


# families register themselves on import
from inexflow.measures import bepd as _bepd  # noqa: E402,F401
from inexflow.measures import cutoff as _cutoff  # noqa: E402,F401
from inexflow.measures import fetchbrowse as _fetchbrowse  # noqa: E402,F401
from inexflow.measures import hixeval as _hixeval  # noqa: E402,F401
from inexflow.measures import precall as _precall  # noqa: E402,F401
from inexflow.measures import incontext as _incontext  # noqa: E402,F401
from inexflow.measures import passage as _passage  # noqa: E402,F401
from inexflow.measures import xcg as _xcg  # noqa: E402,F401
