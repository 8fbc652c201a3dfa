"""The order of topics everywhere (outputs, tables, analyses): numeric topic ids in numeric
order, then any other id alphabetically. Kept apart from the pandas-based canonical tables
(:mod:`inexflow.io.canonical`) so that document scoring can print in this order without
importing pandas."""

from __future__ import annotations


def topic_sort_key(t: str):
    """Numeric topics (ASCII digits) in numeric order, ids equal as numbers (``01``, ``1``) by
    their text, then anything else alphabetically."""
    return (0, int(t), t) if t.isascii() and t.isdigit() else (1, 0, t)


def trec_topic_order(topics) -> list[str]:
    """``topics`` in trec_eval's order: by their bytes, as its ``strcmp`` sorts the qrels and
    the run (``1``, ``10``, ``2``); the document family scores, sums and prints topics in it,
    so that its means are trec_eval's to the last bit."""
    return sorted(topics, key=lambda t: t.encode("utf-8", "surrogateescape"))


def inex_eval_topic_order(topics) -> list[str]:
    """``topics`` in the official INEX 2007-2010 tool's order: Java's ``String.compareTo``, by
    UTF-16 code units (``10``, ``100``, ``9``); the passage and in-context families score, sum
    and print topics in it, so that their means are the tool's to the last bit."""
    return sorted(topics, key=lambda t: t.encode("utf-16-be", "surrogatepass"))
