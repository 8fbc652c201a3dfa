"""The measure families, declared: what each is called, the measure names it emits for given
options, the options (parameters) it reads, what it needs besides the assessments, how its
means are named and aggregated, the order it reads a run in, and the module and function that
score it (loaded on first use, :meth:`Family.scorer`).

This module imports neither pandas nor numpy nor any family's code: the workflow's Snakefile,
the config checks and ``inexflow --help`` read it without paying for the scoring code
(tested). A family's scoring function is ``score(run, ctx) -> DataFrame[topic, quant, measure,
value]`` returning per-topic values and the means over topics (topic ``all``); adding a family
is one :func:`register` call; tasks name the families they are scored with in the config
(``tasks: {TASK: {families: [...]}}``). The families are listed in :mod:`inexflow.measures`.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from inexflow.errors import UsageError, warn_input
from inexflow.io.task_labels import DOCUMENT_TASK, SCORING_TYPES, normalise_task, unknown_task
from inexflow.model.options import Options, a_label

# the options every family reads (the topics it is scored on: inexflow.measures.topicset)
TOPIC_OPTIONS = ("topic_subset", "empty_topics_zero")
# the options the element recall-bases are built with (families that need "recallbases")
RECALLBASE_OPTIONS = ("quantisations", "ideal_tie")


@dataclass(frozen=True)
class Family:
    """One measure family, declared (module docstring).

    ``measures(options)`` lists every measure name it emits (per-topic and mean names, curve
    points; ``options`` a mapping of option names, missing ones at their defaults), so that
    configs are checked before anything runs; ``parameters`` the :class:`~inexflow.model.options.Options`
    it reads besides :data:`TOPIC_OPTIONS` (:meth:`defaults`); ``needs`` what the session must
    build for it (``recallbases``: element recall-bases per quantisation, ``index``: the
    collection index of the assessed documents); ``means`` its mean names whose per-topic name
    differs (``MAiP`` is the mean of ``AiP``; :func:`inexflow.measures.catalogue.per_topic_name`);
    ``order`` the result order it scores (``rank``: as the readers order results; ``file``: the
    order of the lines in the file, as inex_eval reads text runs; ``trec_eval``: descending
    score, ties by descending document id; :func:`inexflow.measures.ordering.in_evaluation_order`);
    ``aggregate`` how its means are taken over topics and ``aggregates`` the measures aggregated
    otherwise (:data:`inexflow.measures.catalogue.AGGREGATORS`; counts are summed, ``num_q``
    counts topics); ``scorer`` ``"module:function"`` of its scoring code; ``quantised``
    whether its scores carry the task's quantisations as their ``quant`` label, and
    ``fixed_quants`` the labels its quantisation-free measures carry instead (``chars``: the
    passage and in-context measures count characters; ``bep``: BEPD/EPRUM; ``-``: document
    measures and set overlap; :data:`inexflow.measures.catalogue.NO_QUANT`), and of a quantised
    family, ``free_prefixes`` the names of its measures that carry those labels (the cutoff
    family's ``overlap[k]``); ``headline(options)``
    the measures a campaign correlates when its config names none; ``nicknames`` names for sets
    of its measures that ``-m`` takes (trec_eval's ``official``, ``all_trec``, ``set``;
    :func:`select_measures`), and ``printed`` the nickname of what ``inexflow score`` prints
    without ``-m`` (every measure where None).
    """

    name: str
    scorer: str
    measures: Callable[[dict], list[str]]
    parameters: tuple[str, ...] = ()
    needs: frozenset[str] = frozenset()
    means: dict[str, str] = field(default_factory=dict)
    order: str = "rank"
    aggregate: str = "mean"
    aggregates: dict[str, str] = field(default_factory=dict)
    quantised: bool = True
    fixed_quants: tuple[str, ...] = ()
    free_prefixes: tuple[str, ...] = ()
    headline: Callable[[dict], list[str]] | None = None
    nicknames: dict[str, Callable[[dict], list[str]]] = field(default_factory=dict)
    printed: str | None = None

    def headline_measures(self, options) -> list[str]:
        """The measures a campaign reports and correlates by default (the papers' headline
        means and cut-offs; :func:`headline_measures`)."""
        return self.headline(options or {}) if self.headline else []

    def score_quants(self, quantisations) -> list[str]:
        """The ``quant`` labels its scores carry when the task has ``quantisations``."""
        return [*(quantisations if self.quantised else ()), *self.fixed_quants]

    def measure_quants(self, measure: str, quantisations) -> list[str]:
        """The ``quant`` labels the values of one of its measures carry."""
        if self.quantised and not measure.startswith(self.free_prefixes):
            return list(quantisations)
        return list(self.fixed_quants)

    def defaults(self) -> dict:
        """Every option the family reads, with its default (:class:`~inexflow.model.options.Options`)."""
        return {p: getattr(Options, p) for p in (*TOPIC_OPTIONS, *self.parameters)}

    def score_function(self):
        """The family's scoring function, its module imported on first use."""
        return _function(self.scorer)

    def order_function(self):
        """The function that puts a run's results in the order the family scores them
        (:data:`ORDERS`), its module imported on first use."""
        return _function(ORDERS[self.order])


# ``"module:function"`` of the function that orders a run's results as a family's ``order`` says
# (``rank``: as the readers order them, the run itself)
ORDERS = {"rank": "inexflow.measures.ordering:as_read",
          "file": "inexflow.measures.toolorder:in_file_order",
          "trec_eval": "inexflow.measures.trec:trec_eval_order"}


def _function(spec: str):
    module, function = spec.split(":")
    return getattr(importlib.import_module(module), function)


FAMILIES: dict[str, Family] = {}
MEANS: dict[str, str] = {}  # mean name -> per-topic name, of every family (Family.means)


def register(family: Family) -> Family:
    """Add ``family`` to :data:`FAMILIES` (a name is declared once)."""
    if family.name in FAMILIES:
        raise ValueError(f"measure family {family.name!r} is declared twice")
    if family.order not in ORDERS:
        raise ValueError(f"family {family.name}: unknown order {family.order!r}")
    FAMILIES[family.name] = family
    MEANS.update(family.means)
    return family


def _opt(opts: dict, name: str):
    """An option of a measure-name function's mapping, its default where missing or empty."""
    return opts.get(name) or getattr(Options, name)


# --- xcg: XCG measures (Kazai & Lalmas, INEX 2005 paper, section 3) -------------------------------
GAIN_RECALL_PERCENTS = range(1, 101)  # the ep/gr curve at gain recall 0.01 .. 1.00


def curve_ranks(max_length: int) -> list[int]:
    """Ranks at 1%, 2%, ..., 100% of the maximum list length (the nxCG curve)."""
    return sorted({max(1, round(max_length * p / 100)) for p in range(1, 101)})


def xcg_measure_names(opts: dict) -> list[str]:
    cutoffs = [int(k) for k in _opt(opts, "cutoffs")]
    printed = ["Q[printed]", "R[printed]"] if _opt(opts, "qr_printed") else []
    return ([f"nxCG[{k}]" for k in cutoffs] + [f"MAnxCG[{k}]" for k in cutoffs] + ["MAep", "iMAep", "Q", "R"]
            + printed + [f"ep[{p / 100:.2f}]" for p in GAIN_RECALL_PERCENTS]
            + [f"nxCG@[{k}]" for k in curve_ranks(int(_opt(opts, "max_list_length")))]
            + ["num_q"])


register(Family("xcg", "inexflow.measures.xcg:score_xcg", xcg_measure_names,
                (*RECALLBASE_OPTIONS, "cutoffs", "overlap", "alpha", "max_list_length", "per_topic_curves",
                 "qr_printed"),
                needs=frozenset({"recallbases"}),
                headline=lambda opts: ["MAep", "iMAep", *(f"nxCG[{int(k)}]" for k in _opt(opts, "cutoffs")), "Q", "R"]))
register(Family("fetchbrowse", "inexflow.measures.fetchbrowse:score_fetchbrowse",
                lambda opts: ["art_MAep", "art_iMAep", "el_MAep[off]", "el_MAep[on]", "el_iMAep[off]", "el_iMAep[on]",
                              "num_q"],
                (*RECALLBASE_OPTIONS, "alpha"), needs=frozenset({"recallbases"}),
                headline=lambda opts: ["art_MAep", "art_iMAep", "el_MAep[off]", "el_MAep[on]"]))

# --- passage, passage_thorough: INEX 2007-2010 focused passage measures -------------------------
PASSAGE_LEVELS = range(101)  # interpolated precision at recall 0.00 .. 1.00
PER_TOPIC_IP = (0, 1, 5, 10)  # the recall levels (in %) whose iP the tool prints per topic
COUNT_LINES = ("num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size")  # catalogue.COUNTS
RATIO_LINES = ("art_prec", "art_rec", "art_f1", "char_prec", "char_rec", "char_f1")


def recall_level(k: int) -> str:
    """The label of recall level ``k`` %: ``0.05``."""
    return f"{k / 100:.2f}"


def passage_measure_names(opts: dict) -> list[str]:
    return (["num_q", *COUNT_LINES, *RATIO_LINES] + [f"iP[{recall_level(k)}]" for k in PER_TOPIC_IP] + ["AiP", "MAiP"]
            + [f"ircl_prn.{recall_level(k)}" for k in PASSAGE_LEVELS])


CHARS = {"quantised": False, "fixed_quants": ("chars",)}  # the measures count characters, with no quantisation
PASSAGE_HEADLINE = {"headline": lambda opts: ["MAiP", *(f"iP[{recall_level(k)}]" for k in PER_TOPIC_IP)]}
IN_CONTEXT_HEADLINE = {"headline": lambda opts: ["MAgP", *(f"gP[{r}]" for r in (1, 5, 10, 25, 50))]}
register(Family("passage", "inexflow.measures.passage:score_passage", passage_measure_names, ("all_qrels_topics",),
                means={"MAiP": "AiP"}, order="file", aggregate="tool_mean", **CHARS, **PASSAGE_HEADLINE))
register(Family("passage_thorough", "inexflow.measures.passage:score_passage_thorough", passage_measure_names,
                ("all_qrels_topics",), means={"MAiP": "AiP"}, order="file", aggregate="tool_mean", **CHARS,
                **PASSAGE_HEADLINE))

# --- ric, bic: Relevant and Best in Context (INEX 2007-2010 tool) --------------------------------
IN_CONTEXT_RANKS = (1, 2, 3, 5, 10, 25, 50)  # gP[r], gR[r]
IN_CONTEXT_LEVELS = range(11)  # interpolated generalised precision at recall 0.0 .. 1.0
QRELS_WIDE = {"num_rel": "qrels_sum", "rel_size": "qrels_sum"}


def incontext_measure_names(opts: dict) -> list[str]:
    return (["num_q", "num_ret", "num_rel", "num_rel_ret", "ret_size", "rel_size", "rel_ret_size", "AgP", "MAgP"]
            + [m for r in IN_CONTEXT_RANKS for m in (f"gP[{r}]", f"gR[{r}]")]
            + [f"ircl_prn.{k / 10:.2f}" for k in IN_CONTEXT_LEVELS])


register(Family("ric", "inexflow.measures.incontext:score_relevant_in_context", incontext_measure_names,
                ("regroup", "all_qrels_topics", "beta"), means={"MAgP": "AgP"}, order="file", aggregate="tool_mean",
                aggregates=QRELS_WIDE, **CHARS, **IN_CONTEXT_HEADLINE))
register(Family("bic", "inexflow.measures.incontext:score_best_in_context", incontext_measure_names,
                ("regroup", "all_qrels_topics", "bep_distance"), means={"MAgP": "AgP"}, order="file",
                aggregate="tool_mean", aggregates=QRELS_WIDE, **CHARS, **IN_CONTEXT_HEADLINE))

# --- hixeval: Relevant in Context 2006 on element runs --------------------------------------------
RANKS_2006 = (5, 10, 25, 50)


def hixeval_measure_names(opts: dict) -> list[str]:
    return (["num_q", "num_ret", "num_rel", "num_rel_ret", "AgP", "MAgP"]
            + [m for k in RANKS_2006 for m in (f"gP[{k}]", f"gR[{k}]")])


register(Family("hixeval", "inexflow.measures.hixeval:score_hixeval", hixeval_measure_names, ("regroup",),
                means={"MAgP": "AgP"}, aggregate="tool_mean", **CHARS,
                headline=lambda opts: ["MAgP", *(f"gP[{k}]" for k in RANKS_2006)]))

# --- bepd: Best in Context 2006, BEPD[A] and EPRUM[A] ---------------------------------------------
EPRUM_RECALL_PERCENTS = range(1, 101)  # the EPRUM precision-recall curve at recall 0.01 .. 1.00


def bepd_measure_names(opts: dict) -> list[str]:
    a_values = [float(a) for a in _opt(opts, "bepd_a")]
    ks = [int(k) for k in _opt(opts, "cutoffs")]
    return ["num_q"] + [n for a in a_values for n in (
        [f"BEPD[{a_label(a)}]", f"EPRUM[{a_label(a)}]"] + [f"EPRUM[{a_label(a)}]@[{k}]" for k in ks]
        + [f"EPRUM[{a_label(a)}]@r[{recall_level(r)}]" for r in EPRUM_RECALL_PERCENTS])]


register(Family("bepd", "inexflow.measures.bepd:score_bepd", bepd_measure_names,
                ("mean_doc_length", "bepd_a", "cutoffs", "per_topic_curves"), needs=frozenset({"index"}),
                quantised=False, fixed_quants=("bep",),
                headline=lambda opts: [n for a in _opt(opts, "bepd_a") for n in (f"BEPD[{a_label(a)}]",
                                                                                   f"EPRUM[{a_label(a)}]")]))


# --- cutoff: precision and set-based overlap at cut-offs (Hiemstra & Mihajlovic) -----------------
def cutoff_measure_names(opts: dict) -> list[str]:
    ks = [int(k) for k in _opt(opts, "cutoff_ks")]
    return ["num_q"] + [f"P[{k}]" for k in ks] + [f"overlap[{k}]" for k in ks]


def table_cutoffs(cutoff_ks) -> list[int]:
    """The cut-offs of the cutoff family's ranked table: 10 and 100 as in the paper, those
    configured else the two smallest."""
    ks = sorted(cutoff_ks)
    return [k for k in (10, 100) if k in ks] or ks[:2]


register(Family("cutoff", "inexflow.measures.cutoff:score_cutoff", cutoff_measure_names,
                (*RECALLBASE_OPTIONS, "cutoff_ks"), needs=frozenset({"recallbases"}), fixed_quants=("-",),
                free_prefixes=("overlap[", "num_q"), headline=lambda opts: [f"P[{int(k)}]" for k in _opt(opts, "cutoff_ks")]))

# --- precall: inex_eval 2002 -----------------------------------------------------------------------
register(Family("precall", "inexflow.measures.precall:score_precall",
                lambda opts: ["precall_AP", "precall_MAP", "num_q"], RECALLBASE_OPTIONS,
                needs=frozenset({"recallbases"}), means={"precall_MAP": "precall_AP"},
                headline=lambda opts: ["precall_MAP"]))


# --- inex_eval_ng: INEX 2003 overlap-aware recall_o[k] and precision_o[k] -------------------------
def ng_measure_names(opts: dict) -> list[str]:
    ks = [int(k) for k in _opt(opts, "cutoff_ks")]
    return ["num_q"] + [f"recall_o[{k}]" for k in ks] + [f"precision_o[{k}]" for k in ks]


register(Family("inex_eval_ng", "inexflow.measures.inexevalng:score_inex_eval_ng", ng_measure_names,
                ("quantisations", "cutoff_ks"),
                headline=lambda opts: [f"precision_o[{int(k)}]" for k in _opt(opts, "cutoff_ks")]))

# --- trec: document-level measures as trec_eval ----------------------------------------------------
# trec_eval 10.0's default parameters (its m_*.c files)
P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # P, recall, ndcg_cut, map_cut, relative_P
SUCCESS_CUTOFFS = (1, 5, 10)
UNJ_CUTOFFS = (5, 10, 20)
RECALL_LEVELS = tuple(i / 10 for i in range(11))  # iprec_at_recall, 11pt_avg
RPREC_MULTS = tuple(i / 10 for i in range(2, 21, 2))  # Rprec_mult: multiples of R
RBP_P = 0.9  # rbp, rbp_resid: the persistence p
JUDGED_CUTOFFS = (5, 10, 20, 100)  # ir_measures' Judged@k (not a trec_eval measure)


def _cut(stem: str, params) -> list[str]:
    """trec_eval's names of a measure at several parameters: ``P_5``, ``iprec_at_recall_0.10``."""
    return [f"{stem}_{p:.2f}" if isinstance(p, float) else f"{stem}_{p}" for p in params]


# trec_eval's measures without -m (its ``official`` set), in its order
TREC_OFFICIAL = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                 *_cut("iprec_at_recall", RECALL_LEVELS), *_cut("P", P_CUTOFFS))
# trec_eval's -m all_trec, in its order (relstring, a string, is not computed: docs/measures.md)
TREC_ALL = (*TREC_OFFICIAL, *_cut("recall", P_CUTOFFS), "infAP", "gm_bpref", *_cut("Rprec_mult", RPREC_MULTS),
            "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", *_cut("ndcg_cut", P_CUTOFFS), *_cut("map_cut", P_CUTOFFS),
            *_cut("relative_P", P_CUTOFFS), *_cut("success", SUCCESS_CUTOFFS), "set_P", "set_relative_P",
            "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", *_cut("unj", UNJ_CUTOFFS))
# trec_eval 10.0's measures on document qrels outside -m all_trec (-m dcg, -m yaap), and where
# it prints each among them: after the measure named
TREC_BEYOND_ALL = {"dcg": "G", "ideal_dcg": "dcg", "yaap": "num_nonrel_judged_ret"}
# trec_eval's -m set: the measures of the retrieved set
TREC_SET = ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
            "set_map", "set_F")


@dataclass(frozen=True)
class Parameter:
    """The values a trec measure's parameter may take: ``kind`` (int or float) from ``low`` to
    ``high``, ``low`` itself excluded where ``open_low``; ``says`` names the range in messages."""

    kind: type
    low: float
    high: float
    says: str
    open_low: bool = False

    def value(self, where: str, stem: str, text: str):
        """``text`` read as this parameter of ``stem`` (given at ``where``: ``-m P.5``); a value
        out of range, or not a number, is a :class:`UsageError` saying what is allowed."""
        try:
            v = float(text)
            v = int(v) if self.kind is int and v.is_integer() else self.kind(text)
        except (ValueError, OverflowError):
            v = None
        if v is None or v != v or v < self.low or v > self.high or (self.open_low and v == self.low):
            raise UsageError(f"{where}: {stem} takes {self.says}, not {text!r}")
        return v


_MAX_CUTOFF = 2**31 - 1  # trec_eval reads cut-offs as C longs; ir_measures as 32-bit ints
_CUTOFF = Parameter(int, 1, _MAX_CUTOFF, f"a cut-off: a whole number from 1 to {_MAX_CUTOFF}")
# the measures trec_eval computes at any parameter (-m P.1, -m iprec_at_recall.0.25), and the
# parameters they take: a recall level is a fraction of the relevant documents, Rprec_mult a
# positive multiple of R, set_F's beta weighs recall against precision (0: precision alone)
TREC_PARAMETERS = {**{stem: _CUTOFF for stem in ("P", "recall", "ndcg_cut", "map_cut", "relative_P", "success",
                                                 "unj", "Judged")},
                   "iprec_at_recall": Parameter(float, 0, 1, "a recall level from 0 to 1"),
                   "Rprec_mult": Parameter(float, 0, _MAX_CUTOFF, "a multiple of R greater than 0", open_low=True),
                   "set_F": Parameter(float, 0, _MAX_CUTOFF, "a beta of 0 or more")}
# relstring.N: the grades of the first N documents
RELSTRING_LENGTH = Parameter(int, 1, _MAX_CUTOFF, f"a number of documents: a whole number from 1 to {_MAX_CUTOFF}")


def trec_measure_names(opts: dict) -> list[str]:
    extra = [n for n in (opts.get("trec_measures") or ()) if n not in TREC_ALL]
    for n in extra:
        m = _UNDERSCORE.match(n) or re.match(r"^(?P<stem>[A-Za-z][A-Za-z_]*?)_(?P<params>[^_]+)$", n)
        if not (m and m["stem"] in TREC_PARAMETERS):
            raise UsageError(f"option trec_measures: {n!r} is not a trec measure at a parameter (expected STEM_N, "
                             f"STEM one of {', '.join(TREC_PARAMETERS)}, e.g. P_1)")
        TREC_PARAMETERS[m["stem"]].value(f"option trec_measures: {n!r}", m["stem"], m["params"])
    return list(dict.fromkeys([*TREC_ALL, *TREC_BEYOND_ALL, *_cut("Judged", JUDGED_CUTOFFS), *extra]))


def trec_sorted(names) -> list[str]:
    """``names`` of the trec family in the order trec_eval prints them: its measures' order,
    a measure's parameters ascending."""
    stems: dict[str, int] = {}
    at = TREC_ALL.index("P_1000") + 1  # trec_eval prints relstring after P
    order = [*TREC_ALL[:at], RELSTRING, *TREC_ALL[at:]]
    for name, after in TREC_BEYOND_ALL.items():
        order.insert(order.index(after) + 1, name)
    for n in (*order, *_cut("Judged", JUDGED_CUTOFFS)):
        stems.setdefault(_stem_of(n)[0], len(stems))

    def key(n):
        stem, param = _stem_of(n)
        return stems.get(stem, len(stems)), float(param) if param else 0.0

    return sorted(names, key=key)


def _stem_of(name: str) -> tuple[str, str]:
    m = _UNDERSCORE.match(name)
    return (m["stem"], m["params"]) if m and m["stem"] in (*TREC_PARAMETERS, RELSTRING) else (name, "")


RUNID = "runid"  # trec_eval's run id line: printed by its nicknames and -m runid
RELSTRING = "relstring"  # trec_eval's per-topic string of the first grades: printed, not a number (-m relstring.N)


def trec_relstring(specs) -> str | None:
    """The relstring name the ``-m`` specs ask for (``relstring``: the first 10 documents,
    ``relstring_N`` for ``-m relstring.N``; ``all_trec`` asks for ``relstring``), or None."""
    for spec in specs or ():
        for token in (t.strip() for t in str(spec).split(",")):
            if token in (RELSTRING, "all_trec"):
                return RELSTRING
            if token.startswith(RELSTRING + "."):
                n = RELSTRING_LENGTH.value(f"-m {spec}", RELSTRING, token[len(RELSTRING) + 1:])
                return f"{RELSTRING}_{n}"
    return None


def unanswered_relstring(name: str, judged_only: bool) -> str:
    """The relstring trec_eval prints with -c for a topic the run does not answer: it ranks a
    made-up document there (not in the qrels: ``-``) and clears the string afterwards only for
    the measure named ``relstring``, so ``relstring_N`` shows ``-``; -J drops the made-up
    document (unjudged) first."""
    return "-" if name != RELSTRING and not judged_only else ""


def relstring_length(name: str) -> int:
    """The documents a relstring name covers: 10, or N of ``relstring_N``."""
    return int(name.rpartition("_")[2]) if name != RELSTRING else 10


def trec_runid(specs) -> bool:
    """Whether trec_eval prints its ``runid`` line for the ``-m`` specs: without -m, and when
    they name ``runid`` or a nickname."""
    tokens = {t.strip() for spec in specs or () for t in str(spec).split(",")}
    return not specs or bool(tokens & {RUNID, OFFICIAL, "all_trec", "set"})


def trec_parameters(specs) -> list[str]:
    """The trec family's measures that ``-m`` specs name at parameters beyond trec_eval's
    defaults (``P.1,7`` -> ``P_1``, ``P_7``; ``iprec_at_recall.0.25``), for the option
    ``trec_measures``; a parameter outside the stem's range (:data:`TREC_PARAMETERS`) is a
    :class:`UsageError`."""
    out: dict[str, None] = {}
    for spec in [specs] if isinstance(specs, str) else specs or ():
        stem = None
        for token in (t.strip() for t in str(spec).split(",")):
            m = _UNDERSCORE.match(token)
            if m and m["stem"] in TREC_PARAMETERS:
                stem, param = m["stem"], m["params"]
            elif "." in token and token.split(".", 1)[0] in TREC_PARAMETERS:
                stem, param = token.split(".", 1)
            elif stem is not None and token[:1] in "0123456789.+-":
                param = token
            else:
                stem = None
                continue
            value = TREC_PARAMETERS[stem].value(f"-m {spec}", stem, param)
            if isinstance(value, float) and stem != "set_F" and round(value, 2) != value:
                raise UsageError(f"-m {spec}: {stem} takes at most two decimals here, not {param!r} (trec_eval "
                                 f"computes at {param} and prints it as {_cut(stem, [value])[0]}, which names another "
                                 "level)")
            # trec_eval prints set_F's parameter as given, the others' with two decimals
            out[f"{stem}_{param}" if stem == "set_F" else _cut(stem, [value])[0]] = None
    return [n for n in out if n not in TREC_ALL]


register(Family("trec", "inexflow.measures.trec:score_trec", trec_measure_names,
                ("relevance_level", "judged_only", "max_docs_per_topic"),
                means={"gm_map": "map", "gm_bpref": "bpref"}, order="trec_eval", aggregate="tool_mean",
                aggregates={"gm_map": "geometric", "gm_bpref": "geometric"}, quantised=False,
                fixed_quants=("-",), headline=lambda opts: ["map", "P_10", "Rprec", "ndcg"],
                nicknames={"official": lambda opts: list(TREC_OFFICIAL), "all_trec": lambda opts: list(TREC_ALL),
                           "set": lambda opts: list(TREC_SET)},
                printed="official"))

# Default measure families per scoring type and kind of assessments (passage = FOL qrels), from
# the one table of scoring types
DEFAULT_FAMILIES = {(t, kind): list(fams) for t, st in SCORING_TYPES.items() for kind, fams in st.families.items()}


def headline_measures(families, options: dict | None = None) -> list[str]:
    """The measures a campaign correlates when its config names none: each family's headline
    (:attr:`Family.headline`), in family order."""
    return list(dict.fromkeys(m for f in families for m in get_family(f).headline_measures(options)))


def score_quants(families, quantisations) -> list[str]:
    """The ``quant`` labels the scores of ``families`` carry for a task with ``quantisations``."""
    return list(dict.fromkeys(q for f in families for q in get_family(f).score_quants(quantisations)))


def measure_quants(measure: str, families, quantisations, options: dict | None = None) -> list[str]:
    """The ``quant`` labels the values of ``measure`` (a mean or per-topic name) carry when a
    task scored by ``families`` has ``quantisations``: those of the first family that has it."""
    for f in families:
        fam = get_family(f)
        names = fam.measures(options or {})
        if measure in names or measure in fam.means.values() or measure in fam.means:
            return fam.measure_quants(measure, quantisations)
    return []


def get_family(name: str) -> Family:
    if name not in FAMILIES:
        raise UsageError(f"unknown measure family {name!r}; choose one of {', '.join(sorted(FAMILIES))}")
    return FAMILIES[name]


def needs(families) -> frozenset[str]:
    """What scoring ``families`` needs: a subset of {"recallbases", "index"}."""
    out: set[str] = set()
    for f in families:
        out |= get_family(f).needs
    return frozenset(out)


def measure_names(families, options: dict | None = None) -> list[str]:
    """Every measure name the ``families`` emit with ``options`` (config keys such as
    ``cutoffs``, ``cutoff_ks``, ``bepd_a``, ``max_list_length``), in family order."""
    if isinstance(options, Options):
        options = options.as_dict()
    out: dict[str, None] = {}
    for f in families:
        out.update(dict.fromkeys(get_family(f).measures(options or {})))
    return list(out)


def check_measures(names, families, options: dict | None, where: str):
    """Each of ``names`` must be a measure of ``families``: a :class:`UsageError` starting with
    ``where`` (e.g. ``config tasks.focused.main_measure``) and giving the closest known names
    otherwise."""
    known = measure_names(families, options)
    for n in names:
        if n not in known:
            _unknown_measure(n, known, families, where)


def _unknown_measure(name, known: list[str], families, where: str, more=(), note: str = ""):
    close = difflib.get_close_matches(str(name), [*known, *more], n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"{where}: {name!r} is not a measure of the families {', '.join(families)}{hint} (they give "
                     f"{', '.join(_brief(known))}{note})")


def _brief(names: list[str]) -> list[str]:
    """Measure names with runs of curve points shortened (ircl_prn.0.00 .. ircl_prn.1.00)."""
    out, groups = [], {}
    for n in names:
        stem = re.sub(r"[0-9.]+(?=\]?$)", "#", n)
        groups.setdefault(stem, []).append(n)
    for ns in groups.values():
        out.append(ns[0] if len(ns) == 1 else f"{ns[0]} .. {ns[-1]}")
    return out


def assessment_kind(a) -> str:
    """``passage`` (FOL qrels), ``document`` (TREC qrels) or ``element`` assessments."""
    return {"fol": "passage", "trec": "document"}.get(a.scale, "element")


def families_for(task: str, a, override: list[str] | None = None) -> list[str]:
    """The families scoring ``task`` on the assessments ``a``: ``override`` (checked), else the
    task's default for the kind of assessments (:data:`DEFAULT_FAMILIES`)."""
    if override:
        for f in override:
            get_family(f)
        return list(override)
    fams = ["trec"] if assessment_kind(a) == "document" else DEFAULT_FAMILIES.get((task, assessment_kind(a)))
    if not fams:
        others = list(dict.fromkeys(f for (t, _), fs in DEFAULT_FAMILIES.items() if t == task for f in fs))
        needs = " and the collection (--collection, collection:)" if a.scale == "fol" else ""
        hint = f"; or name a family (--family, families=){needs}: the task's on other assessments: " \
               f"{', '.join(others)}" if others else ""
        raise UsageError(f"no measure family scores task {task!r} on {a.scale} assessments yet "
                         f"(available: {', '.join(f'{t} on {k}' for t, k in sorted(DEFAULT_FAMILIES))}){hint}")
    return fams


def scoring_task(scale: str, source, task: str | None, families, option: str = "--task") -> str:
    """The task runs are scored for, on assessments of ``scale`` read from ``source``: ``task``
    as named; left out (None), :data:`~inexflow.io.task_labels.DOCUMENT_TASK`, which only document
    scoring may do (TREC qrels, or the ``trec`` family alone), else a :class:`UsageError` naming
    ``option``. A task named for TREC qrels without ``families`` is scored with the ``trec``
    family, as every task on TREC qrels is (:func:`families_for`): a warning says so, since the
    task's own measures need other assessments."""
    trec_qrels = scale == "trec"
    if task is None:
        if set(families or ["trec" if trec_qrels else ""]) != {"trec"}:
            raise UsageError(f"{option} is required (a scoring type such as focused, or a submission label); it may "
                             "be left out only for document scoring: TREC qrels, or the trec family alone")
        return DOCUMENT_TASK
    if normalise_task(task) is None:
        raise UsageError(f"{option}: {unknown_task(task)}")
    if trec_qrels and not families:
        warn_input(source, None, f"TREC qrels (document grades only): task {task} is scored with the trec family "
                   "(trec_eval's measures), not with its own measures, which need FOL qrels or INEX element "
                   f"assessments; leave {option} out to score documents without this warning")
    return task


# --- measure selection: trec_eval's -m ------------------------------------------------------------
OFFICIAL = "official"  # -m official: trec_eval's official set (the trec family), else the headline measures
_BRACKET = re.compile(r"^(?P<stem>.+?)\[(?P<params>[^\[\]]*)\]$")   # iP[0.01], EPRUM[1]@[10]
_UNDERSCORE = re.compile(r"^(?P<stem>[A-Za-z][A-Za-z_]*?)_(?P<params>\d+(?:\.\d+)?)$")  # P_10, ndcg_cut_10


def _top_level(text: str, sep: str) -> list[int]:
    """Positions of ``sep`` in ``text`` outside brackets."""
    depth, out = 0, []
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == sep and depth == 0:
            out.append(i)
    return out


def _parametrised(name: str) -> tuple[str, str] | None:
    """(stem, parameter) of a measure name with one parameter: ``iP[0.01]`` -> (iP, 0.01),
    ``P_10`` -> (P, 10), ``ircl_prn.0.50`` -> (ircl_prn, 0.50); None for other names."""
    m = _BRACKET.match(name) or _UNDERSCORE.match(name)
    if m:
        return m["stem"], m["params"]
    dots = _top_level(name, ".")
    return (name[:dots[0]], name[dots[0] + 1:]) if dots else None


def _same_parameter(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def nicknamed(families, options: dict | None = None) -> dict[str, list[str]]:
    """The sets of measures ``-m`` takes by name (trec_eval's nicknames): each family's
    :attr:`Family.nicknames`, and ``official``, which is a family's own official set where it
    has one, else its headline measures."""
    out: dict[str, dict[str, None]] = {OFFICIAL: {}}
    for f in families:
        fam = get_family(f)
        for nick, names in {OFFICIAL: fam.headline_measures, **fam.nicknames}.items():
            out.setdefault(nick, {}).update(dict.fromkeys(names(options or {})))
    return {k: list(v) for k, v in out.items()}


def printed_measures(families, options: dict | None = None) -> list[str] | None:
    """What ``inexflow score`` prints without ``-m``: the families' :attr:`Family.printed`
    sets if every family has one, else None (every measure)."""
    fams = [get_family(f) for f in families]
    if not fams or any(f.printed is None for f in fams):
        return None
    return list(dict.fromkeys(m for f in fams for m in f.nicknames[f.printed](options or {})))


def _as_trec_eval(out: dict, before: set, explicit: set, defaults: set, given: set) -> None:
    """trec_eval's rule for a measure named by several ``-m``: the first that gives it
    parameters sets them (``-m P.1,7 -m P.5``: P_1, P_7); parameters replace the defaults a
    nickname or a bare stem gave it (``-m all_trec -m P.1``: P_1)."""
    new = [n for n in out if n not in before]
    for stem in dict.fromkeys(_stem_of(n)[0] for n in new):
        mine = [n for n in new if _stem_of(n)[0] == stem]
        if stem in given or (stem in defaults and stem not in explicit):
            for n in mine:
                del out[n]
        elif stem in explicit:
            for n in [n for n in before if _stem_of(n)[0] == stem]:
                del out[n]
            given.add(stem)
        else:
            defaults.add(stem)


def select_measures(specs, families, options: dict | None = None, where: str = "-m") -> list[str]:
    """The measure names that ``specs`` select among those ``families`` emit with ``options``,
    as trec_eval's ``-m`` selects them (docs/cli.md, "Choosing measures"): each spec names
    measures separated by commas; a name as the family gives it (``MAiP``, ``iP[0.01]``,
    ``P_10``); a stem with parameters after a dot (``P.5,10`` -> ``P_5``, ``P_10``;
    ``iP.0.01,0.05`` -> ``iP[0.01]``, ``iP[0.05]``; parameters are compared as numbers) or in
    brackets (``nxCG[5,10]``); a stem alone for all its parameters (``iP``, ``P``); a nickname
    (:func:`nicknamed`: ``official``, and the trec family's ``all_trec`` and ``set``). An
    unknown name is a :class:`UsageError` starting with ``where`` and naming the known
    measures. Names come in the order given, once each; the trec family's in trec_eval's order,
    and, as trec_eval, only the first spec that names a measure sets its parameters."""
    if isinstance(options, Options):
        options = options.as_dict()
    known = measure_names(families, options)
    stems: dict[str, list[tuple[str, str]]] = {}
    for n in known:
        sp = _parametrised(n)
        if sp:
            stems.setdefault(sp[0], []).append((sp[1], n))
    out: dict[str, None] = {}
    extra = set((options or {}).get("trec_measures") or ())

    def unknown(token: str):
        _unknown_measure(token, known, families, where, stems, "; parameters after a dot, e.g. P.5,10 or iP.0.01,0.05")

    def with_parameters(stem: str, params: list[str], token: str):
        explicit.add(stem)
        if stem not in stems:
            unknown(token)
        for p in params:
            hits = [n for q, n in stems[stem] if _same_parameter(p, q)]
            if not hits:
                raise UsageError(f"{where}: {token!r}: {stem} has no parameter {p!r} with these options (it has "
                                 f"{', '.join(q for q, _ in stems[stem])})")
            out.update(dict.fromkeys(hits))

    # trec: the stems earlier specs named at their default parameters, and with parameters
    defaults: set[str] = set()
    given: set[str] = set()
    literal: set[str] = set()  # names given whole (P_10), which trec_eval's rule leaves alone
    for spec in [specs] if isinstance(specs, str) else specs:
        before = set(out)
        explicit: set[str] = set()
        spec = str(spec)
        cuts = [-1, *_top_level(spec, ","), len(spec)]
        stem = None  # the stem whose parameters follow (P.5,10: 10 is P's)
        for token in (spec[a + 1:b].strip() for a, b in zip(cuts, cuts[1:])):
            if not token or ("trec" in families and (token == RUNID or token.partition(".")[0] == RELSTRING)):
                continue
            if token in known:
                out[token], stem = None, None
                if _stem_of(token)[1]:
                    literal.add(token)
            elif token in (nick := nicknamed(families, options)):
                out.update(dict.fromkeys(nick[token]))
                stem = None
            elif stem is not None and (token[:1].isdigit() or token[:2].lstrip(".").isdigit()):  # P.5,10; .25
                with_parameters(stem, [token], token)
            elif token in stems:  # a stem alone: its default parameters (not those other specs add)
                out.update(dict.fromkeys(n for _, n in stems[token] if n not in extra))
                stem = None
            elif (m := _BRACKET.match(token)) and m["stem"] in stems:
                with_parameters(m["stem"], [p.strip() for p in m["params"].split(",")], token)
                stem = None
            elif dots := _top_level(token, "."):
                stem = token[:dots[0]]
                with_parameters(stem, [token[dots[0] + 1:]], token)
            elif stem is not None:  # el_MAep.off,on
                with_parameters(stem, [token], token)
            else:
                unknown(token)
        if list(families) == ["trec"]:
            _as_trec_eval(out, before | literal, explicit, defaults, given)
    if not out and not ("trec" in families and (trec_runid(specs) or trec_relstring(specs)) and specs):  # -m runid
        raise UsageError(f"{where}: no measure named")
    return trec_sorted(out) if list(families) == ["trec"] else list(out)


# the per-topic passage measures the re-judging analyses compute
# (:mod:`inexflow.analysis.rejudge`) -> the interpolated-precision level each reads (None: AiP)
PASSAGE_MEASURES = {"AiP": None, "iP[0.00]": 0, "iP[0.01]": 1, "iP[0.05]": 5, "iP[0.10]": 10}


def analysis_measures() -> list[str]:
    """The measure names the re-judging analyses can compute (config ``analysis.measures``):
    :data:`PASSAGE_MEASURES` and their means (``MAiP``)."""
    return [m for m, per in MEANS.items() if per in PASSAGE_MEASURES] + list(PASSAGE_MEASURES)
