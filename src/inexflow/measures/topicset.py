"""Which topics a run is scored on.

Rule (docs/measures.md, XCG): topics with an empty (ideal) recall-base are left out of every
mean; topics assessed but absent from the run are left out by default and score 0 with
``empty_topics_zero`` (``-e``); topics in the run but not assessed are ignored with a
warning.
"""

from __future__ import annotations

from inexflow.errors import InputError, UsageError, counted, warn_input
from inexflow.io.topic_order import topic_sort_key


def scored_topics(run, assessed: list[str], ctx, empty_zero: bool | None = None, judged=None,
                  warn: bool = True) -> list[str]:
    """The topics of ``run`` scored among ``assessed`` (the topics with something relevant),
    with the context's topic subset and ``empty_topics_zero`` (:func:`topics_to_score`;
    ``warn``: False where the run's scoring has warned already)."""
    codes = run.codes("topic")  # the reader's distinct topics, where it kept them
    run_topics = list(codes[1]) if codes is not None else list(run.results["topic"].unique())  # in order of appearance
    restrict = ctx.opt("topic_subset")
    if restrict:
        restrict = set(map(str, restrict))
        ctx.memo("topic_subset", lambda: check_topic_subset(restrict, ctx.assessments))
    if empty_zero is None:
        empty_zero = bool(ctx.opt("empty_topics_zero"))
    return topics_to_score(run_topics, run.source, assessed, judged, restrict, empty_zero, warn)


def topics_to_score(run_topics: list[str], source, assessed: list[str], judged=None, restrict=None,
                    empty_zero: bool = False, warn: bool = True) -> list[str]:
    """The topics a run answering ``run_topics`` is scored on, among ``assessed``. A run topic
    not in ``judged`` (default ``assessed``; the element families pass every assessed topic, as
    a quantisation can leave a judged topic with nothing relevant) is ignored with a warning;
    a run with no such topic at all is an error (``source`` names the run). ``restrict``: the
    topic subset, if any; ``empty_zero``: the assessed topics the run does not answer too."""
    assessed_set = set(assessed)
    judged_set = assessed_set if judged is None else set(judged)
    if restrict:
        assessed_set &= restrict
        judged_set &= restrict
    unassessed = [t for t in run_topics if t not in judged_set and (not restrict or t in restrict)]
    if unassessed and len(unassessed) == len(run_topics):
        problem = (f"{_none_of(len(run_topics), 'the run')} in the assessments (run topics "
                   f"{', '.join(run_topics[:5])}...; assessed {', '.join(sorted(judged_set)[:5])}..."
                   f"{_likely_cause(run_topics, judged_set)})")
        if not empty_zero:
            raise InputError(source, None, problem, "a run for the assessed topics")
        if warn:  # -c / -e: every assessed topic scores 0, as trec_eval's -c scores them
            warn_input(source, None, problem + ": every assessed topic scores 0")
        return sorted(assessed_set, key=topic_sort_key)
    if unassessed and warn:
        warn_input(source, None, f"{counted(len(unassessed), 'topic')} not in the assessments "
                   f"{'is' if len(unassessed) == 1 else 'are'} ignored: "
                   f"{', '.join(unassessed[:10])}")
    topics = assessed_set if empty_zero else assessed_set & set(run_topics)
    return sorted(topics, key=topic_sort_key)


def _none_of(n: int, whose: str) -> str:
    """"none of the run's 5 topics is", or "the run's 1 topic is not"."""
    whose = f"{whose}'s" if whose.startswith("the ") else whose
    return f"none of {whose} {counted(n, 'topic')} is" if n != 1 else f"{whose} 1 topic is not"


def _likely_cause(run_topics, assessed) -> str:
    """Why a run's topic ids may miss the assessments' though they name the same topics: leading
    zeros (``01`` against ``1``) or case; "" when neither explains it."""
    def canon(t):
        return t.lstrip("0").lower() or "0"

    close = {canon(t) for t in assessed}
    if any(canon(t) in close for t in run_topics):
        return "; the ids differ only in leading zeros or case: write them as the assessments do"
    return ""


def check_topic_subset(subset: set[str], assessments) -> None:
    """A topic subset (config ``topic_subset``, the POOLS of an EvalJ task) naming topics that
    are not in the assessments: a warning naming them; none assessed at all is an error."""
    absent = sorted(subset - set(assessments.topics), key=topic_sort_key)
    if len(absent) == len(subset):
        raise UsageError(f"config topic_subset: {_none_of(len(subset), 'its')} in the assessments "
                         f"{assessments.source} ({', '.join(absent[:10])})")
    if absent:
        warn_input(assessments.source, None, f"topic_subset names {counted(len(absent), 'topic')} that "
                   f"{'is' if len(absent) == 1 else 'are'} not assessed, "
                   f"left out: {', '.join(absent[:10])}")
