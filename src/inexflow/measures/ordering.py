"""The one ordering rule (docs/measures.md): a run's results are put in the order its measure
family scores them (:attr:`inexflow.measures.registry.Family.order`) before the family sees
them. The family's ordering function is looked up in the registry and its module imported
when a run is first ordered that way, so that ordering a run for one family (the passage
family's file order, as the analyses that re-judge runs do) does not import the others."""

from __future__ import annotations

from inexflow.errors import InputError
from inexflow.measures.registry import get_family


def refuse_without_ranks(run, family: str) -> None:
    """A run read without its ranks (a TREC run whose rank column is not integers, which trec_eval
    ignores: :mod:`inexflow.io.run_text`) is an :class:`InputError` for a family that does not
    order results as trec_eval does."""
    if getattr(run, "rank_error", "") and get_family(family).order != "trec_eval":
        where, _, problem = run.rank_error.partition(": ")
        raise InputError(run.source, where, f"{problem}: the {family} family needs integer ranks",
                         "integer ranks; only the trec family, which orders by score as trec_eval does, ignores them")


def in_evaluation_order(run, family: str):
    """``run`` with its results in the order ``family`` scores them. "file" order warns once
    where ranks disagree with the file (:func:`inexflow.measures.toolorder.in_file_order`);
    "trec_eval" order is :func:`inexflow.measures.trec.trec_eval_order`."""
    fam = get_family(family)
    refuse_without_ranks(run, family)
    return fam.order_function()(run)


def as_read(run):
    """The ``rank`` order: the results as the readers ordered them."""
    return run
