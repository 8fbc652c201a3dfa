"""One scoring session, assembled the same way for ``inexflow score``, the workflow's
``score`` stage and :func:`inexflow.evaluate`: the assessments, the measure families of the
task, what those families need (recall-bases per quantisation, the collection index; see
:func:`inexflow.measures.registry.needs`) and the :class:`~inexflow.model.options.Options` with the
overlap resolved for the task (:func:`inexflow.model.options.default_overlap`).

The workflow builds the recall-bases and the index in their own jobs and hands them in;
the CLI and the API build them here, from the same functions.
"""

from __future__ import annotations

import pandas as pd

from inexflow.errors import UsageError, brief
from inexflow.io.canonical import RunTable
from inexflow.io.task_labels import normalise_task
from inexflow.measures.context import SCORE_COLUMNS, ScoringContext
from inexflow.measures.ordering import in_evaluation_order, refuse_without_ranks
from inexflow.measures.registry import families_for, get_family, needs
from inexflow.measures.toolorder import in_file_order
from inexflow.model.assessments import Assessments, index_assessed
from inexflow.model.options import Options
from inexflow.model.recallbase import build_recallbases
from inexflow.model.runs import ParsedDocuments, resolve_extents


def scoring_context(a: Assessments, task: str, families, options: Options, recallbases=None,
                    index: pd.DataFrame | None = None) -> ScoringContext:
    """The context families score in. Recall-bases and index are kept only for families that
    declare they need them, and the recall-bases only of ``options.quantisations`` (the
    workflow builds those of every task on the same assessments), so that both doors give
    every family the same inputs."""
    need = needs(families)
    if a.scale == "trec" and set(families) != {"trec"}:
        other = ", ".join(f for f in families if f != "trec")
        raise UsageError(f"family {other} needs highlighted passages or element assessments; {a.source} holds TREC "
                         "qrels (topic iteration doc grade: document grades only). Score them with the trec family "
                         "(trec_eval's measures: map, P_k, bpref, ndcg, ...), or give FOL qrels (topic Q0 doc rel_chars doc_chars [bep "
                         "offset:length ...]) for the passage measures")
    rbs = {q: recallbases[q] for q in options.quantisations if q in (recallbases or {})}
    return ScoringContext(a, rbs if "recallbases" in need else {}, options.for_task(task),
                          index if "index" in need else None)


class Session:
    """Assessments, task and options ready to score runs: ``Session.build(...).score(run)``."""

    def __init__(self, context: ScoringContext, families: list[str], collection=None):
        self.context, self.families, self.collection = context, list(families), collection
        self.parsed = None  # the collection's documents the runs scored so far needed (ParsedDocuments)

    @classmethod
    def build(cls, assessments: Assessments, task: str, families=None, options: Options | None = None,
              collection=None) -> Session:
        """A session for runs of ``task`` (a scoring type or any submission label) scored with
        ``families`` (default: the task's, for the kind of assessments)."""
        if not isinstance(assessments, Assessments):
            raise UsageError(f"Session.build: {brief(assessments)} is not assessments "
                             "(pass what inexflow.read_assessments returns)")
        options = options or Options()
        scoring = normalise_task(task) or task
        fams = families_for(scoring, assessments, families)
        need = needs(fams)
        index = index_assessed(collection, assessments) if collection else None
        rbs = build_recallbases(assessments, index, options.quantisations, options.ideal_tie) \
            if "recallbases" in need else {}
        return cls(scoring_context(assessments, scoring, fams, options, rbs, index), fams, collection)

    def score_families(self, run) -> list[tuple[str, pd.DataFrame]]:
        """(family, scores) for every family, element results of ``run`` resolved through the
        collection first (each document the assessments do not hold parsed once for the runs of
        the session, within :class:`~inexflow.model.runs.ParsedDocuments`' bound)."""
        if not isinstance(run, RunTable):
            raise UsageError(f"Session.score: {brief(run)} is not a run (pass what "
                             "inexflow.read_run returns; inexflow.evaluate takes paths and DataFrames too)")
        for fam in self.families:
            refuse_without_ranks(run, fam)
        if self.collection is not None and self.parsed is None:
            self.parsed = ParsedDocuments(self.collection, self.context.index)
        run = resolve_extents(run, self.collection, parsed=self.parsed)
        in_file = in_file_order(run) if any(get_family(f).order == "file" for f in self.families) else None  # warns once
        return [(fam, score_run(in_file if get_family(fam).order == "file" else run, fam, self.context)) for fam in self.families]

    def score(self, run) -> pd.DataFrame:
        """Every family's scores of ``run``: the tidy table ``run, topic, task, quant, measure,
        value``."""
        tables = [t for _, t in self.score_families(run)]
        return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=SCORE_COLUMNS)


def score_run(run, family: str, ctx: ScoringContext) -> pd.DataFrame:
    """Score ``run`` with ``family``; the tidy table ``SCORE_COLUMNS``."""
    fn = get_family(family).score_function()
    df = fn(in_evaluation_order(run, family), ctx)
    df.insert(0, "run", run.name)
    df.insert(2, "task", run.scoring_type)
    return df[SCORE_COLUMNS]
