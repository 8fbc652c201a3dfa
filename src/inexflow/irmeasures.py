"""inexflow's measures inside ir_measures (``pip install ir-measures``): an inexflow measure is an
``ir_measures`` measure that its default pipeline scores through inexflow's session, so
``ir_measures.calc_aggregate``, ``iter_calc`` and ``evaluator`` take it beside P@10 or nDCG.

>>> import ir_measures, pandas as pd
>>> from inexflow.irmeasures import INEX
>>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["A", "B"], "offset": [0, 10], "length": [100, 50],
...                       "doc_length": [500, 300]})
>>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["A", "C"], "score": [2.0, 1.0],
...                     "offset": [0, 0], "length": [100, 40]})
>>> MAiP = INEX(measure="MAiP", task="focused")
>>> ir_measures.calc_aggregate([MAiP, INEX(measure="iP[0.01]", task="focused")], qrels, run)[MAiP]
0.6633663366336634

(67 of the 101 recall levels at precision 1, as in :mod:`inexflow.front.api`.)

How it plugs in: every inexflow measure carries ``runtime_impl``, so the runtime provider of
``ir_measures.DefaultPipeline`` scores it; nothing in ir_measures is patched.

- ``INEX(measure=NAME, task=TASK, **options)``: NAME is any measure of the task's families
  (``MAiP``, ``iP[0.01]``, ``MAgP``, ``nxCG[10]``, ...; :func:`inexflow.measures.registry.measure_names`),
  TASK a scoring type or submission label, options any :class:`~inexflow.model.options.Options`
  field (``beta``, ``cutoffs``, ``quantisations``, ``collection`` for element runs ...).
- qrels and runs: the DataFrames of :mod:`inexflow.front.api` (``query_id``, ``doc_id``,
  ``offset``/``length`` or ``xpath``, ``score`` and/or ``rank``), or paths. ir_measures sorts
  DataFrames by score; inexflow puts them back in their index order first, so ranks are those
  of ``inexflow.evaluate`` (by ``rank``, else descending score, then row order).
- per topic: a mean name gives its per-topic value (``MAiP`` -> ``AiP`` of each topic);
  topics inexflow does not score (in the qrels, not in the run, as the official tool does
  unless ``all_qrels_topics``) are NaN and left out of the aggregate.
- the aggregate is the catalogue's (:data:`inexflow.measures.catalogue.AGGREGATORS`):
  ``MAiP`` sums the topics left to right as inex_eval does, so
  ``calc_aggregate`` equals ``inexflow.evaluate`` exactly. The counts the official tool sums
  over every qrels topic (``num_rel``, ``rel_size`` of Relevant/Best in Context) have no
  per-topic equivalent here: use :func:`inexflow.evaluate` for them.
"""

from __future__ import annotations

import dataclasses
import math

import ir_measures
from ir_measures import Metric
from ir_measures.measures.base import Agg, Measure, ParamInfo

from inexflow.errors import UsageError
from inexflow.front.api import evaluate
from inexflow.io.task_labels import normalise_task
from inexflow.measures.catalogue import AGGREGATORS, aggregator, per_topic_name
from inexflow.measures.registry import DEFAULT_FAMILIES, check_measures, measure_names
from inexflow.model.options import Options

_OPTIONS = [f.name for f in dataclasses.fields(Options)]
# the last (qrels, run, settings) scored and its per-topic table: ir_measures asks for each
# measure separately on the same two DataFrames, which are scored once
_LAST: list = []


class _CatalogueAgg(Agg):
    """The catalogue's aggregator of one measure; NaN (a topic inexflow does not score) skipped."""

    def __init__(self, how):
        self.how, self.values = how, []

    def add(self, value):
        if not (isinstance(value, float) and math.isnan(value)):
            self.values.append(value)

    def result(self):
        return AGGREGATORS[self.how](self.values) if self.values else math.nan


class INEX(Measure):
    """An inexflow measure for ir_measures: ``INEX(measure="MAiP", task="focused", **options)``
    (module docstring)."""

    NAME = "INEX"
    __name__ = "INEX"
    DEFAULT = math.nan  # a topic of the qrels that inexflow does not score
    SUPPORTED_PARAMS = {"measure": ParamInfo(dtype=str, required=True, desc="an inexflow measure name"),
                        "task": ParamInfo(dtype=str, required=True, desc="a scoring type or task label"),
                        "families": ParamInfo(dtype=tuple, desc="families instead of the task's"),
                        "collection": ParamInfo(dtype=str, desc="collection directory (element runs)"),
                        **{o: ParamInfo(desc=f"inexflow option {o}") for o in _OPTIONS}}
    RUN_INPUTS = ["query_id", "doc_id"]
    QREL_INPUTS = ["query_id", "doc_id"]

    def _settings(self) -> dict:
        return {k: v for k, v in self.params.items() if k not in ("measure", "task")}

    def aggregator(self) -> Agg:
        """The catalogue's aggregator of this measure in the families that can score the task
        (``families``, else the task's families on any kind of assessments)."""
        s = self._settings()
        opts = Options.from_dict({k: v for k, v in s.items() if k in _OPTIONS}).as_dict()
        task = normalise_task(self["task"]) or self["task"]
        families = list(s.get("families") or [*(f for (t, _), fs in DEFAULT_FAMILIES.items() if t == task
                                                 for f in fs), "trec"])
        name = self["measure"]
        check_measures([name], families, opts, f"inexflow.irmeasures {self!r}")
        how = {aggregator(f, name) for f in families if name in measure_names([f], opts)}
        if len(how) > 1:
            raise UsageError(f"{self!r}: {name} is aggregated differently by the families of task {task} "
                             f"({', '.join(sorted(how))}); name one with families=(...)")
        how = how.pop()
        if how == "qrels_sum":
            raise UsageError(f"{self!r}: the official tool sums {name} over every qrels topic, which "
                             "per-topic values cannot give; use inexflow.evaluate for it")
        return _CatalogueAgg(how)

    def runtime_impl(self, qrels, run):
        settings = self._settings()
        key = (self["task"], repr(sorted(settings.items())))
        if not (_LAST and _LAST[0] is qrels and _LAST[1] is run and _LAST[2] == key):
            s = dict(settings)
            families = s.pop("families", None)
            scores = evaluate(_in_given_order(qrels), _in_given_order(run), task=self["task"],
                              families=list(families) if families else None, per_topic=True, **s)
            _LAST[:] = [qrels, run, key, scores]
        scores = _LAST[3]
        rows = scores[(scores["topic"] != "all") & (scores["measure"] == per_topic_name(self["measure"]))]
        if rows["quant"].nunique() > 1:
            raise UsageError(f"{self!r}: scored under quantisations {', '.join(rows['quant'].unique())}; "
                             "give one, e.g. quantisations=('gen',)")
        if rows.empty and (scores["topic"] != "all").any():
            raise UsageError(f"{self!r}: inexflow gives {self['measure']} as a mean only, with no per-topic "
                             "value for ir_measures to aggregate; use inexflow.evaluate for it")
        for t, v in zip(rows["topic"], rows["value"]):
            yield Metric(str(t), self, float(v))


def _in_given_order(df):
    """A DataFrame back in its index order (ir_measures sorts runs by score, qrels by id)."""
    return df.sort_index(kind="stable") if hasattr(df, "sort_index") else df


def measures(names, task: str, **options) -> list[INEX]:
    """``[INEX(measure=n, task=task, **options) for n in names]``."""
    return [INEX(measure=n, task=task, **options) for n in names]


__all__ = ["INEX", "measures", "ir_measures"]
