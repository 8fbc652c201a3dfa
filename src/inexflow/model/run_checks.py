"""What an organiser is told about a run before reading its scores: legal but odd shapes that
change what its means say.

- Topics assessed but not answered: the official INEX 2007-2010 tool (and trec_eval without
  ``-c``) averages over the topics a run answers, so a run answering half the topics can rank
  first; ``all_qrels_topics: true`` (``-c``) counts the others as 0.
- Topics with more results than the task allows (``max_list_length``, INEX's 1500): every result
  is scored, as the official tool does (it reads every line; nothing in it cuts a list).
- Repeated results (the same topic, document and element or passage): every line is scored, as
  the official tools do.
- Every topic's results sharing one score (runs without scores, as XML runs may be, are not
  tied): the order is then the tie-break's, not the system's.
- Topics outside the campaign's topic set (the config's ``topics`` file): scored where they are
  assessed, as the official tool scores every topic its qrels hold; ``topic_subset`` restricts
  the topics scored.

Each is one line, stated once per run (and evaluation task: the assessed topics are its own).
"""

from __future__ import annotations

from collections.abc import Collection

import pandas as pd

from inexflow.errors import counted
from inexflow.io.canonical import duplicate_mask
from inexflow.io.topic_order import topic_sort_key


def missing_topics(results: pd.DataFrame, assessed: Collection[str], all_qrels_topics: bool = False) -> list[str]:
    """The topics ``assessed`` that the run does not answer, and what that does to its means."""
    answered, assessed = set(results["topic"]), set(assessed)
    missing = assessed - answered
    if not missing:
        return []
    n = len(assessed & answered)
    others = f"the {counted(len(missing), 'other')} count{'' if len(missing) > 1 else 's'} as 0"
    effect = (f"{others} (all_qrels_topics: true)" if all_qrels_topics else
              "its means are over the topics it answers (the official tool's default); with all_qrels_topics: "
              f"true (-c) {others}")
    return [f"answers {n} of the {len(assessed)} assessed topics: {effect}"]


def long_lists(results: pd.DataFrame, max_results: int) -> list[str]:
    """The topics with more than ``max_results`` results."""
    sizes = results.groupby("topic", sort=False).size()
    over = sizes[sizes > max_results]
    if not len(over):
        return []
    return [f"{counted(len(over), 'topic')} with more than {max_results} results (most: "
            f"{int(over.max())} on topic {over.idxmax()}), more than the task allows (max_list_length); every result "
            "is scored, as the official tool does"]


def repeated_results(results: pd.DataFrame) -> list[str]:
    """How many results repeat an earlier one of their topic (the readers name the first)."""
    dup = int(duplicate_mask(results).sum()) if len(results) else 0
    if not dup:
        return []
    return [f"{counted(dup, 'repeated result')} (the same topic, document and element or passage): "
            "every line is scored, as the official tools do"]


def all_tied(results: pd.DataFrame) -> list[str]:
    """Whether every topic's results share one score."""
    sizes = results.groupby("topic", sort=False).size()
    ranked = results[(results["topic"].map(sizes) > 1) & results["rsv"].notna()]
    if len(ranked) and (ranked.groupby("topic", sort=False)["rsv"].nunique() == 1).all():
        return ["every topic's results share one score (all tied): their order is the tie-break's (the ranks, "
                "the file, or for the trec measures the document ids), not the system's"]
    return []


def outside_topic_set(results: pd.DataFrame, topic_set: Collection[str], name: str) -> list[str]:
    """The topics the run answers that the topic set ``topic_set`` (of the topic file ``name``)
    does not hold, the first few named."""
    outside = sorted(set(results["topic"]) - set(topic_set), key=topic_sort_key)
    if not outside:
        return []
    first = ", ".join(outside[:5]) + (f" and {len(outside) - 5} more" if len(outside) > 5 else "")
    return [f"answers {counted(len(outside), 'topic')} not in the topic set {name}: {first}; scored where they are "
            "assessed, as the official tool does (topic_subset restricts the topics scored)"]


def run_warnings(results: pd.DataFrame, assessed: Collection[str], max_results: int,
                 all_qrels_topics: bool = False) -> list[str]:
    """Every warning about a run's ``results`` (the canonical result table) scored against the
    topics ``assessed``, with at most ``max_results`` results per topic allowed."""
    return (missing_topics(results, assessed, all_qrels_topics) + long_lists(results, max_results)
            + repeated_results(results) + all_tied(results))


def to_log(warnings: list[str], results: pd.DataFrame) -> list[str]:
    """The ``warnings`` (:func:`run_warnings`) a stage logs: all but the count of repeated results,
    which the run readers have logged already, naming the first repeated line (the summaries'
    warnings column keeps the count)."""
    told = set(repeated_results(results))
    return [w for w in warnings if w not in told]
