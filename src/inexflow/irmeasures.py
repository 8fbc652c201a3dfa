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

>>> trec_qrels = ir_measures.read_trec_qrels("1 0 A 2\\n1 0 B 0\\n2 0 A 1\\n")   # text or a path
>>> trec_run = ir_measures.read_trec_run("1 Q0 B 1 2.0 r\\n1 Q0 A 2 1.0 r\\n2 Q0 A 1 1.0 r\\n")
>>> agg = ir_measures.calc_aggregate([INEX("map"), ir_measures.AP], trec_qrels, trec_run)
>>> agg[INEX("map")], agg[ir_measures.AP]
(0.75, 0.75)
>>> from inexflow.irmeasures import parse
>>> parse("INEX(MAiP)@focused") == MAiP
True

How it plugs in: every inexflow measure carries ``runtime_impl``, so the runtime provider of
``ir_measures.DefaultPipeline`` scores it; nothing in ir_measures is patched.

- ``INEX(measure=NAME, task=TASK, **options)``, ``INEX(NAME, TASK)`` or ``INEX(NAME) @ TASK``;
  TASK may be left out for TREC qrels (``INEX("map")``: the ``trec`` family, as trec_eval).
  NAME is any measure of the task's families
  (``MAiP``, ``iP[0.01]``, ``MAgP``, ``nxCG[10]``, ...; :func:`inexflow.measures.registry.measure_names`),
  TASK a scoring type or submission label, options any :class:`~inexflow.model.options.Options`
  field (``beta``, ``cutoffs``, ``quantisations``, ``collection`` for element runs ...).
- measure strings: :func:`parse` reads ``INEX(MAiP)@focused`` (what ``repr`` prints) and passes
  any other text to ``ir_measures.parse_measure``, whose registry inexflow does not touch.
- qrels and runs: the DataFrames of :mod:`inexflow.front.frames` (TREC ``relevance`` qrels and
  ``score`` runs; FOL passages; ``xpath`` element runs), ir_measures' namedtuple iterables and
  dict-of-dicts; files through :func:`read_qrels` / :func:`read_run` (ir_measures takes no paths),
  or as paths to an ``INEX`` measure's own ``calc_aggregate``, ``iter_calc`` and ``calc``. ir_measures sorts
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

import ast
import dataclasses
import math
import re

import ir_measures
from ir_measures import Metric
from ir_measures.measures.base import Agg, Measure, ParamInfo

from inexflow.errors import UsageError
from inexflow.front.api import evaluate
from inexflow.io.task_labels import normalise_task, unknown_task
from inexflow.measures.catalogue import AGGREGATORS, aggregator, per_topic_name
from inexflow.measures.registry import DEFAULT_FAMILIES, check_measures, measure_names, trec_parameters
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
    AT_PARAM = "task"  # INEX("MAiP") @ "focused", as P @ 10
    SUPPORTED_PARAMS = {"measure": ParamInfo(dtype=str, required=True, desc="an inexflow measure name"),
                        "task": ParamInfo(dtype=str, desc="a scoring type or task label (not for TREC qrels)"),
                        "families": ParamInfo(dtype=tuple, desc="families instead of the task's"),
                        "collection": ParamInfo(dtype=str, desc="collection directory (element runs)"),
                        **{o: ParamInfo(desc=f"inexflow option {o}") for o in _OPTIONS}}
    RUN_INPUTS = ["query_id", "doc_id"]
    QREL_INPUTS = ["query_id", "doc_id"]

    def __init__(self, measure: str | None = None, task: str | None = None, **params):
        """``INEX("MAiP", "focused")``, ``INEX(measure="map")``: measure and task positional or named."""
        for name, value in (("measure", measure), ("task", task)):
            if value is not None and not isinstance(value, str):
                raise UsageError(f"INEX: {name} {value!r} is not a name (expected e.g. INEX('MAiP', 'focused'))")
        if task is not None and normalise_task(task) is None:
            raise UsageError(f"INEX: {unknown_task(task)}")
        unknown = set(params) - set(self.SUPPORTED_PARAMS)
        if unknown:
            raise UsageError(f"INEX: unknown parameter {', '.join(sorted(unknown))} (expected "
                             f"{', '.join(sorted(self.SUPPORTED_PARAMS))})")
        super().__init__(**{k: v for k, v in (("measure", measure), ("task", task)) if v is not None}, **params)

    def __repr__(self):
        """``INEX(MAiP)@focused``, ``INEX(map)``, ``INEX(MAgP, beta=0.25)@focused``: what :func:`parse`
        reads back."""
        name = self.params.get("measure", "?")
        name = name if _BARE.match(name) else repr(name)
        opts = "".join(f", {k}={v!r}" for k, v in sorted(self._settings().items()))
        task = self.params.get("task")
        return f"INEX({name}{opts})" + (f"@{task}" if task else "")

    def _settings(self) -> dict:
        return {k: v for k, v in self.params.items() if k not in ("measure", "task")}

    def _scoring(self) -> dict:
        """The settings, with a trec measure at a parameter beyond trec_eval's defaults
        (``INEX("P_7")``) added to ``trec_measures``."""
        s = self._settings()
        extra = trec_parameters([self.params.get("measure", "")])
        if extra:
            s["trec_measures"] = tuple(dict.fromkeys([*s.get("trec_measures", ()), *extra]))
        return s

    def aggregator(self) -> Agg:
        """The catalogue's aggregator of this measure in the families that can score the task
        (``families``, else the task's families on any kind of assessments)."""
        s = self._scoring()
        opts = Options.from_dict({k: v for k, v in s.items() if k in _OPTIONS}).as_dict()
        given = self.params.get("task")
        task = (normalise_task(given) or given) if given else None
        families = list(s.get("families") or ([*(f for (t, _), fs in DEFAULT_FAMILIES.items() if t == task
                                                  for f in fs), "trec"] if task else ["trec"]))
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
        settings = self._scoring()
        key = (self.params.get("task"), repr(sorted(settings.items())))
        if not (_LAST and _LAST[0] is qrels and _LAST[1] is run and _LAST[2] == key):
            s = dict(settings)
            families = s.pop("families", None)
            scores = evaluate(_in_given_order(qrels), _in_given_order(run), task=self.params.get("task"),
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


    # ir_measures' entry points on this one measure, taking paths too (ir_measures' own take
    # DataFrames, namedtuples and dicts only: use read_qrels / read_run for paths there)
    def iter_calc(self, qrels, run):
        return super().iter_calc(*_loaded(qrels, run))

    def calc_aggregate(self, qrels, run):
        return super().calc_aggregate(*_loaded(qrels, run))

    def calc(self, qrels, run):
        return super().calc(*_loaded(qrels, run))

    def evaluator(self, qrels):
        return super().evaluator(read_qrels(qrels) if _is_path(qrels) else qrels)


_BARE = re.compile(r"^[A-Za-z0-9_.\[\]-]+$")  # a measure name or task written without quotes


def _is_path(x) -> bool:
    return isinstance(x, str) and "\n" not in x or hasattr(x, "__fspath__")


def _loaded(qrels, run):
    return (read_qrels(qrels) if _is_path(qrels) else qrels, read_run(run) if _is_path(run) else run)


def read_qrels(path, fmt: str = "auto"):
    """The assessments file ``path`` (TREC qrels or FOL qrels, any format
    :func:`inexflow.read_assessments` reads that has a DataFrame form) as the DataFrame that
    ``ir_measures.calc_aggregate`` and :func:`inexflow.evaluate` take."""
    from inexflow.front.frames import frame_of_assessments
    from inexflow.model.assessments import read_assessments

    return frame_of_assessments(read_assessments(str(path), fmt))


def read_run(path):
    """The run file ``path`` (any format :func:`inexflow.read_run` reads) as the DataFrame that
    ``ir_measures.calc_aggregate`` and :func:`inexflow.evaluate` take."""
    from inexflow.front.frames import frame_of_run
    from inexflow.model.runs import read_run as read

    return frame_of_run(read(str(path)))


_MEASURE = re.compile(r"^\s*INEX\s*\((?P<args>.*)\)\s*(?:@\s*(?P<task>[^\s()]+))?\s*$", re.S)


def _split(args: str) -> list[str]:
    """``args`` split at the commas outside brackets and quotes."""
    out, depth, quote, cur = [], 0, None, ""
    for ch in args:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += ch
    return [a.strip() for a in [*out, cur] if a.strip()]


def _value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text[:1] in "([" and text[-1:] in ")]":  # (gen, strict): a tuple of bare words
            return tuple(_value(v) for v in _split(text[1:-1]))
        return text  # a bare word: MAiP, focused, gen


def parse(text: str):
    """A measure from its text: ``INEX(MAiP)@focused``, ``INEX(map)``, ``INEX(MAgP, beta=0.25)@focused``,
    ``INEX(measure=MAiP, task=focused)`` (quotes optional) give :class:`INEX` measures (what their
    ``repr`` prints); anything else is ``ir_measures.parse_measure``'s (``P@10``, ``nDCG@20``)."""
    m = _MEASURE.match(text)
    if not m:
        try:
            return ir_measures.parse_measure(text)
        except (ValueError, NameError, SyntaxError) as e:
            raise UsageError(f"cannot parse measure {text!r}: {e} (expected INEX(MAiP)@focused or an ir_measures "
                             "measure such as P@10)") from None
    params, positional = {}, []
    for arg in _split(m["args"]):
        key, eq, val = arg.partition("=")
        if eq and re.fullmatch(r"\s*[A-Za-z_]\w*\s*", key):
            params[key.strip()] = _value(val.strip())
        elif params:
            raise UsageError(f"cannot parse measure {text!r}: {arg!r} comes after named parameters")
        else:
            positional.append(_value(arg))
    if len(positional) > 2 or (len(positional) > 1 and m["task"]):
        raise UsageError(f"cannot parse measure {text!r}: expected INEX(MEASURE, name=value, ...)@TASK")
    for k, v in zip(("measure", "task"), positional):
        if k in params:
            raise UsageError(f"cannot parse measure {text!r}: {k} given twice")
        params[k] = str(v)
    if m["task"]:
        if "task" in params:
            raise UsageError(f"cannot parse measure {text!r}: task given twice (@{m['task']} and task=)")
        params["task"] = m["task"].strip("'\"")
    for k in ("measure", "task"):
        if k in params:
            params[k] = str(params[k])
    if "families" in params and isinstance(params["families"], (list, str)):
        params["families"] = tuple([params["families"]] if isinstance(params["families"], str) else params["families"])
    if "measure" not in params:
        raise UsageError(f"cannot parse measure {text!r}: no measure name (expected INEX(MAiP)@focused)")
    unknown = set(params) - set(INEX.SUPPORTED_PARAMS)
    if unknown:
        raise UsageError(f"cannot parse measure {text!r}: unknown parameter {', '.join(sorted(unknown))} (expected "
                         f"task, families, collection or an inexflow.Options field)")
    return INEX(**params)


def _in_given_order(df):
    """A DataFrame back in its index order (ir_measures sorts runs by score, qrels by id)."""
    return df.sort_index(kind="stable") if hasattr(df, "sort_index") else df


def measures(names, task: str | None = None, **options) -> list[INEX]:
    """``[INEX(measure=n, task=task, **options) for n in names]``."""
    return [INEX(measure=n, task=task, **options) for n in names]


__all__ = ["INEX", "measures", "parse", "read_qrels", "read_run", "ir_measures"]
