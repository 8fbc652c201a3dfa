"""Task labels: the scoring types (:data:`TASKS`) and every year's submission label of them
(:data:`TASK_LABELS`), as the run formats and the campaign config name them."""

from __future__ import annotations

import re

TASKS = ("thorough", "focused", "relevant-in-context", "best-in-context", "fetch-browse")

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
