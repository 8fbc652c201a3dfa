"""The scoring types (:data:`SCORING_TYPES`: how a run is scored) and every year's submission
label of them (:data:`TASK_LABELS`), as the run formats and the campaign config name them.

Words, used the same way everywhere: an *evaluation task* is one task of a campaign as INEX ran
it (``evaluation_tasks:`` in the config; INEX 2005 had ten); its *scoring type* is one of
:data:`TASKS` (``--task`` of ``inexflow score``, ``type:`` of an evaluation task); a run's
*task label* is what its submission calls its task (``CO.Focussed``, ``AllInContext``), mapped
to a scoring type by :data:`TASK_LABELS`; the config's ``tasks:`` mapping is the shorthand of
one evaluation task per scoring type.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ScoringType:
    """How runs of one scoring type are scored by default: the measure families per kind of
    assessments (``element``: INEX 2002-2006 element assessments; ``passage``: FOL qrels;
    TREC document qrels take the ``trec`` family whatever the type) and XCG's overlap
    (2005 paper, sections 3-4: on, against the ideal recall-base, for Focused only)."""

    families: dict[str, tuple[str, ...]]
    overlap: str = "off"


# The one table of scoring types: the schema's enums, the CLI's --task, the API, the
# ir_measures provider and the workflow read it (tests/test_config.py checks the schema).
SCORING_TYPES = {
    "thorough": ScoringType({"element": ("xcg",), "passage": ("passage_thorough",)}),
    "focused": ScoringType({"element": ("xcg",), "passage": ("passage",)}, overlap="on"),
    "relevant-in-context": ScoringType({"passage": ("ric",), "element": ("hixeval",)}),
    "best-in-context": ScoringType({"passage": ("bic",), "element": ("bepd",)}),
    "fetch-browse": ScoringType({"element": ("fetchbrowse",)}),
}
TASKS = tuple(SCORING_TYPES)
# the scoring type of document scoring when no task is named (``inexflow score --family trec``
# without --task): the trec family reduces every run to its documents whatever the type, and
# thorough (overlap off, every result counted) adds nothing to that
DOCUMENT_TASK = "thorough"

# Every year's submission task label -> the scoring type it is evaluated with. Labels are
# matched case-insensitively, ignoring everything but letters, with "Focussed" read as
# "Focused" anywhere. Sources: INEX 2005 measures paper, section 6 (CO/COS tasks; the four
# CAS tasks are evaluated with overlap off, as Thorough); INEX 2006 paper, footnote 6
# (the run DTD calls Relevant in Context "AllInContext"); the 2007-2010 run formats.
TASK_LABELS = {
    # generic names and the 2006-2010 labels
    "thorough": "thorough", "focused": "focused", "relevantincontext": "relevant-in-context",
    "ric": "relevant-in-context", "bestincontext": "best-in-context", "bic": "best-in-context",
    "fetchbrowse": "fetch-browse", "fetchandbrowse": "fetch-browse",
    "allincontext": "relevant-in-context",  # 2006
    "restrictedfocused": "focused", "restrictedrelevantincontext": "relevant-in-context",  # 2010
    # 2005
    "cothorough": "thorough", "cofocused": "focused", "costhorough": "thorough", "cosfocused": "focused",
    "cofetchbrowse": "fetch-browse", "cosfetchbrowse": "fetch-browse",
    "sscas": "thorough", "svcas": "thorough", "vscas": "thorough", "vvcas": "thorough",
}


def task_key(label: str) -> str:
    """The matching key of a task label: lower case, letters only, "focussed" -> "focused"."""
    return re.sub(r"[^a-z]", "", label.lower()).replace("focussed", "focused")


def normalise_task(name: str) -> str | None:
    """The scoring type of a task label (``CO.Focussed`` -> ``focused``, ``AllInContext`` ->
    ``relevant-in-context``), or None for an unknown label."""
    return TASK_LABELS.get(task_key(name))


def unknown_task(name: str) -> str:
    """What is said of a task name that is neither a scoring type nor a submission label: the
    scoring type its spelling is closest to, and the names expected."""
    close = difflib.get_close_matches(task_key(name), list(TASK_LABELS), n=1, cutoff=0.75)
    hint = f" (did you mean {TASK_LABELS[close[0]]!r}?)" if close else ""
    return (f"unknown task {name!r}{hint}: one of {', '.join(TASKS)} or a submission label such as CO.Focussed, "
            "SSCAS, AllInContext")
