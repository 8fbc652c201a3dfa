"""The order of topics everywhere (outputs, tables, analyses): numeric topic ids in numeric
order, then any other id alphabetically. Kept apart from the pandas-based canonical tables
(:mod:`inexflow.io.canonical`) so that document scoring can print in this order without
importing pandas."""

from __future__ import annotations


def topic_sort_key(t: str):
    """Numeric topics in numeric order, then anything else alphabetically."""
    return (0, int(t), "") if t.isdigit() else (1, 0, t)
