"""``inexflow validate``: check a run as the workflow reads and scores it, without scoring it,
for participants before they submit and organisers before they evaluate.

Every check is the workflow's own code: the run readers (format, and their warnings: blank
lines, irregular spacing, repeated results), the task label against the task
(:func:`inexflow.io.task_labels.normalise_task`), the file order the official tool reads
(:func:`inexflow.measures.toolorder.in_file_order`), overlap where the task forbids it
(passage runs: :func:`inexflow.measures.passage.check_no_overlap`, the error that stops
scoring; element runs: :func:`inexflow.measures.cutoff.overlapping_flags`, a warning, as the
element measures score them), topics listed in separate blocks, passages past their
document's end (with FOL assessments), and what the workflow warns an organiser of
(:mod:`inexflow.model.run_checks`: lists longer than ``max_list_length``, all-tied scores,
topics assessed but not answered), and the topics answered against a topic file or list.
A problem that would stop the workflow is an ``error``; one it scores through is a
``warning``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from inexflow.errors import InputError, UsageError, counted
from inexflow.io.task_labels import TASKS, normalise_task
from inexflow.measures.context import ScoringContext
from inexflow.measures.cutoff import overlapping_flags
from inexflow.measures.passage import check_no_overlap, document_lengths, passage_results
from inexflow.measures.toolorder import ToolView, describe_split, in_file_order
from inexflow.model.options import Options
from inexflow.model.run_checks import all_tied, long_lists, missing_topics
from inexflow.model.runs import read_run

NO_OVERLAP = ("focused", "relevant-in-context", "best-in-context")  # the tasks whose runs must not overlap
SHOWN = 5  # topics named in a message about several


@dataclass
class Report:
    """What :func:`validate_run` found in one run: ``problems`` as (level, place, problem),
    level ``error`` or ``warning``, place ``FILE`` or ``FILE:line N``."""

    path: str
    problems: list[tuple[str, str, str]] = field(default_factory=list)
    run_id: str = ""
    scoring_type: str = ""
    topics: int = 0
    results: int = 0

    @property
    def errors(self) -> int:
        return sum(level == "error" for level, _, _ in self.problems)

    def error(self, e: InputError):
        self.problems.append(("error", e.path if e.where in (None, "") else f"{e.path}:{e.where}",
                              e.problem + (f" (expected {e.expected})" if e.expected else "")))

    def summary(self) -> str:
        warnings = len(self.problems) - self.errors
        counts = ", ".join(f"{n} {what}{'s' * (n != 1)}" for n, what in ((self.errors, "error"),
                                                                       (warnings, "warning")) if n)
        task = f", task {self.scoring_type}" if self.scoring_type else ""
        what = f" (run {self.run_id}{task}, {self.topics} topic{'s' * (self.topics != 1)}, {self.results} " \
               f"result{'s' * (self.results != 1)})" if self.run_id else ""
        return f"{self.path}: {'OK' if not self.errors else 'FAILED'}{what}" + (f": {counts}" if counts else "")


class _Caught(logging.Handler):
    """The warnings the readers and checks log (:func:`inexflow.errors.warn_input`), kept as problems."""

    def __init__(self, report: Report):
        super().__init__(logging.WARNING)
        self.report = report

    def emit(self, record):
        if record.msg == "%s: %s" and isinstance(record.args, tuple) and len(record.args) == 2:
            place, problem = map(str, record.args)
        else:
            place, problem = self.report.path, record.getMessage()
        self.report.problems.append(("warning", place, problem))


def _named(topics) -> str:
    topics = sorted(topics)
    return ", ".join(topics[:SHOWN]) + (f" and {len(topics) - SHOWN} more" if len(topics) > SHOWN else "")


def validate_run(path, task: str | None = None, assessments=None, topics=None,
                 max_list_length: int = Options.max_list_length) -> Report:
    """Check the run at ``path`` (module docstring). ``task``: the task it is submitted to
    (default: the one the run names); ``assessments``: an
    :class:`~inexflow.model.assessments.Assessments`; ``topics``: the topic ids of the topic set."""
    report = Report(str(path))
    log = logging.getLogger("inexflow")
    caught = _Caught(report)
    log.addHandler(caught)
    propagate, log.propagate = log.propagate, False
    try:
        _check(report, path, task, assessments, topics, max_list_length)
    except InputError as e:
        report.error(e)
    finally:
        log.removeHandler(caught)
        log.propagate = propagate
    return report


def _check(report: Report, path, task, assessments, topics, max_list_length):
    run = read_run(path)
    res = run.results
    report.run_id, report.results = run.run_id, len(res)
    report.topics = int(res["topic"].nunique())
    wanted = normalise_task(task) if task else None
    if wanted and run.scoring_type and run.scoring_type != wanted:
        report.problems.append(("error", str(path), f"the run is a {run.scoring_type} run (task {run.task_label!r}), not "
                                f"{wanted} as --task {task} says"))
    report.scoring_type = wanted or run.scoring_type
    if not report.scoring_type:
        report.problems.append(("error", str(path), f"the run does not name its task: give --task ({', '.join(TASKS)} "
                                "or a submission label)"))
        return
    run.scoring_type = report.scoring_type
    answered = set(res["topic"].astype(str))
    # what the workflow warns an organiser of (the readers warn of repeated results themselves)
    warnings = long_lists(res, max_list_length) + all_tied(res)
    if assessments is not None:
        assessed = set(assessments.documents["topic"].astype(str))
        warnings = missing_topics(res, assessed) + warnings
        _extra_topics(report, answered, assessed, "assessed", "; the measures ignore them")
    report.problems += [("warning", report.path, w) for w in warnings]
    if topics is not None:
        expected = set(map(str, topics))
        if expected - answered:
            report.problems.append(("warning", report.path, f"the run answers {len(expected & answered)} of the "
                                    f"{len(expected)} topics in the topic set; missing: {_named(expected - answered)}"))
        _extra_topics(report, answered, expected, "in the topic set", "")
    if report.scoring_type in NO_OVERLAP:
        _overlap(report, run, assessments)


def _extra_topics(report: Report, answered: set, expected: set, what: str, note: str):
    extra = answered - expected
    if extra:
        report.problems.append(("warning", report.path, f"{counted(len(extra), 'topic')} of the run "
                                f"{'are' if len(extra) != 1 else 'is'} not {what}: {_named(extra)}{note}"))


def _overlap(report: Report, run, assessments):
    """Overlap, split topics and passages past the document end, as the focused and
    in-context families check them in the tool's reading order."""
    res = run.results
    if (res["xpath"] != "").any():  # element results: the element measures score overlap
        flags = np.zeros(len(res), bool)
        docs, xpaths = res["doc"].to_numpy(), res["xpath"].to_numpy()
        for rows in res.groupby("topic", sort=False).indices.values():
            flags[rows] = overlapping_flags(docs[rows], xpaths[rows])
        if flags.any():
            r = res[flags].iloc[0]
            report.problems.append(("warning", f"{report.path}:line {r.line}", f"{int(flags.sum())} results "
                                    f"overlap another of their topic (the first: topic {r.topic}, element "
                                    f"{r.doc}{r.xpath}); the {run.scoring_type} task asks for none (the measures penalise "
                                    "overlap)"))
        return
    in_file = in_file_order(run)
    results = passage_results(in_file)
    scored = set(assessments.documents["topic"]) if assessments is not None else set(results["topic"])
    view = ToolView.of(results, scored, in_file)
    if assessments is not None and assessments.scale == "fol":
        view.warn_past_document_end(run, document_lengths(ScoringContext(assessments)))
    split = view.split_topics()
    if split:
        report.problems.append(("warning", report.path, describe_split(run, split) + "; scored as the official "
                                "tool does: one list in file order, articles of a returning block counted again"))
    check_no_overlap(in_file, view)


def parse_topic_set(text: str):
    """The topic ids of ``--topics``: a topic file (read as the workflow reads it) or ids
    separated by commas."""
    from pathlib import Path

    path = Path(text)
    if path.is_file() or path.exists() or "/" in text or path.suffix.lower() in (".xml", ".gz", ".txt"):
        from inexflow.io.topics import read_topics  # (a path that is no file: the reader says what it is)
        return list(read_topics(text)["topic"])
    ids = [t.strip() for t in text.split(",") if t.strip()]
    if not ids:
        raise UsageError(f"--topics {text!r}: neither a topic file nor topic ids separated by commas")
    return ids
