"""TREC qrels: ``topic iteration doc grade`` (4 columns), document-level graded relevance.

One line per judged (topic, document); a grade > 0 is relevant, 0 or below is judged not
relevant. The iteration is not read (``0`` or ``Q0``); blank lines and comment lines (the first
non-blank character ``#``) are skipped, as trec_eval 10.0 skips them.
:func:`read_trec_judgements` gives the judgements as plain rows, without pandas
(document scoring reads them so); :func:`inexflow.model.assessments.read_assessments` makes
them the documents table, with the grade in an extra ``grade`` column, ``rel_chars`` 0 and
``doc_chars`` -1 (TREC qrels give no character counts), so that the passage and in-context
families, which need highlighted characters, refuse these assessments with an error saying
what they need (FOL qrels). The ``trec`` family scores document-level runs against them as
trec_eval does (:mod:`inexflow.measures.trec`).
"""

from __future__ import annotations

from inexflow.errors import InputError, decode_text, warn_input
from inexflow.io.compressed import read_bytes


def read_trec_judgements(path) -> list[tuple[str, str, float]]:
    """``(topic, doc, grade)`` of every line of the TREC qrels ``path``, in file order."""
    rows, seen = [], {}
    text = decode_text(path, read_bytes(path, "qrels file"))
    for lineno, line in enumerate(text.splitlines(), 1):
        cols = line.split()
        if not cols or cols[0].startswith("#"):  # a comment line, as trec_eval 10.0 skips them
            continue
        if len(cols) != 4:
            raise InputError(path, f"line {lineno}", f"{len(cols)} columns",
                             "4 as on the first line: topic iteration doc grade")
        topic, _it, doc, grade_text = cols
        try:
            grade = int(grade_text)
        except ValueError:
            raise InputError(path, f"line {lineno}", f"grade {grade_text!r} is not an integer") from None
        if (topic, doc) in seen:
            raise InputError(path, f"line {lineno}", f"topic {topic} doc {doc} is judged twice "
                             f"(first on line {seen[topic, doc]})", "one line per (topic, doc)")
        seen[topic, doc] = lineno
        rows.append((topic, doc, float(grade)))
    if not rows:
        warn_input(path, None, "no judgements in file")
    return rows
