"""Every scoring option and its default, defined once.

:class:`Options` is read by the measure families (through
:class:`inexflow.measures.context.ScoringContext`), built from ``inexflow score``'s arguments
(the CLI takes its defaults from here), from the workflow config
(:func:`inexflow.campaign.tasks.task_options`; the schema's defaults are tested to be these) and by
:func:`inexflow.evaluate`. It is a frozen dataclass: a session's options cannot drift.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace

from inexflow.errors import UsageError
from inexflow.io.qrels_fol import INT_MAX  # the official tools read numbers as Java ints
from inexflow.io.task_labels import SCORING_TYPES


def default_overlap(task: str) -> str:
    """XCG overlap when none is configured: ``on`` (rv/rv_norm against the ideal recall-base)
    for the Focused task, ``off`` (quant against the full recall-base) for every other task,
    whatever the kind of assessments (2005 paper, sections 3-4; docs/measures.md), as the
    table of scoring types says (:data:`inexflow.io.task_labels.SCORING_TYPES`)."""
    t = SCORING_TYPES.get(task)
    return t.overlap if t else "off"


@dataclass(frozen=True)
class Options:
    quantisations: tuple[str, ...] = ("gen",)  # element measures: quantisation functions
    ideal_tie: str = "ancestor"                # ideal recall-base: equal gains go to the ancestor / descendant
    cutoffs: tuple[int, ...] = (5, 10, 25, 50)  # nxCG / MAnxCG and EPRUM precision-at-k cut-offs
    max_list_length: int = 1500                # the nxCG curve is taken at 1..100 % of these ranks
    per_topic_curves: bool = False             # keep ep/gr and nxCG curves per topic (means always kept)
    qr_printed: bool = False                   # XCG: add Q[printed], R[printed] (2005 paper Eq. 13-14 as printed)
    overlap: str | None = None                 # XCG overlap on/off; None = default_overlap(task)
    alpha: float = 1.0                         # XCG overlap alpha
    empty_topics_zero: bool = False            # -e: topics assessed but absent from the run score 0
    all_qrels_topics: bool = False             # -c: passage and in-context means over every qrels topic
    topic_subset: tuple[str, ...] | None = None  # evaluate only these topics (a POOLS list)
    beta: float = 0.25                         # Relevant in Context F-beta (1 for HiXEval 2006)
    bep_distance: float = 500                  # Best in Context distance n
    regroup: bool = False                      # in-context runs: regroup interleaved articles instead of failing
    bepd_a: tuple[float, ...] = (0.01, 0.1, 1, 10, 100)  # BEPD / EPRUM values of A
    mean_doc_length: float | None = None       # BEPD / EPRUM L; None = mean length of the assessed documents
    cutoff_ks: tuple[int, ...] = (5, 10, 20, 30, 100, 200, 1500)  # cut-offs of the cutoff family
    relevance_level: int = 1                   # trec -l: a document graded at least this is relevant
    judged_only: bool = False                  # trec -J: unjudged documents are left out of the ranking
    max_docs_per_topic: int | None = None      # trec -M: only each topic's first N documents are evaluated
    trec_measures: tuple[str, ...] = ()        # trec measures at parameters beyond trec_eval's defaults (P_1)

    def __post_init__(self):
        for f in fields(self):  # lists from YAML or JSON become tuples: hashable, comparable
            v = getattr(self, f.name)
            if isinstance(v, list):
                object.__setattr__(self, f.name, tuple(v))
        for name, check in _CHECKS.items():
            check(name, getattr(self, name))

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in fields(cls)]

    @classmethod
    def from_dict(cls, d: dict) -> Options:
        """Options from a mapping of option names; an unknown name is a usage error."""
        unknown = sorted(set(d) - set(cls.names()))
        if unknown:
            raise UsageError(f"unknown scoring option(s) {', '.join(unknown)} (known: {', '.join(cls.names())})")
        return cls(**{k: v for k, v in d.items() if v is not None or k in ("overlap", "topic_subset",
                                                                             "mean_doc_length")})

    def for_task(self, task: str) -> Options:
        """These options with the overlap resolved for ``task``."""
        return self if self.overlap is not None else replace(self, overlap=default_overlap(task))

    def as_dict(self) -> dict:
        """JSON-able (tuples as lists), e.g. for Snakemake params."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


# --- the range of each option: one check, whichever door (CLI, config, Python) sets it ----------


# F-beta weighs with beta squared, which must stay a finite double
BETA_MAX = 1e150


def _bad(name, value, expected):
    raise UsageError(f"option {name}: {value!r} is not allowed (expected {expected})")


def _whole(low):
    def check(name, v):
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= INT_MAX:
            _bad(name, v, f"a whole number from {low} to {INT_MAX}")
    return check


def _number(low, high=math.inf, low_open=True):
    def check(name, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or not (low < v if low_open else low <= v) or v > high:
            bound = f"above {low:g}" if low_open else f"at least {low:g}"
            _bad(name, v, f"a finite number {bound}" + (f" and at most {high:g}" if math.isfinite(high) else ""))
    return check


def _each(check, empty_ok=False, named=None):
    """A list of values each passing ``check``; with ``named`` (value -> the name the measures
    give it), no two values of one name: a repeated cut-off or A would make two measures of one
    name."""
    def each(name, v):
        if isinstance(v, str) or not isinstance(v, tuple) or (not v and not empty_ok):
            _bad(name, v, "a list" + ("" if empty_ok else " of at least one value"))
        for x in v:
            check(name, x)
        seen = {}
        for i, x in enumerate(v if named is not None else ()):
            first = v[seen.setdefault(named(x), i)]
            if seen[named(x)] != i:
                _bad(name, v, f"each value once: {x!r} is given twice" if first == x else
                     f"values the measures name apart: {first!r} and {x!r} are both {named(x)}")
    return each


def _flag(name, v):
    if not isinstance(v, bool):
        _bad(name, v, "true or false")


def _text(name, v):
    if not isinstance(v, str) or not v:
        _bad(name, v, "a name")


def _one_of(*allowed):
    def check(name, v):
        if v not in allowed:
            _bad(name, v, " or ".join(map(str, allowed)))
    return check


def _optional(check):
    def maybe(name, v):
        if v is not None:
            check(name, v)
    return maybe


def _topics(name, v):
    if v is not None:
        _each(lambda n, x: None if isinstance(x, (str, int)) and not isinstance(x, bool) and str(x).strip()
              else _bad(n, x, "topic ids"))(name, v)


def a_label(a) -> str:
    """A value of BEPD/EPRUM's A as the measure names give it (``0.5`` in ``EPRUM[0.5]``)."""
    return f"{float(a):g}"


_CHECKS = {"quantisations": _each(_text), "ideal_tie": _one_of("ancestor", "descendant"),
           "cutoffs": _each(_whole(1), named=str), "max_list_length": _whole(1), "per_topic_curves": _flag, "qr_printed": _flag,
           "overlap": _one_of(None, "on", "off"), "alpha": _number(0, 1, low_open=False),
           "empty_topics_zero": _flag, "all_qrels_topics": _flag, "topic_subset": _topics,
           "beta": _number(0, BETA_MAX), "bep_distance": _number(0), "regroup": _flag, "bepd_a": _each(_number(0), named=a_label),
           "mean_doc_length": _optional(_number(0)), "cutoff_ks": _each(_whole(1), named=str), "relevance_level": _whole(0),
           "judged_only": _flag, "max_docs_per_topic": _optional(_whole(1)), "trec_measures": _each(_text, empty_ok=True)}
