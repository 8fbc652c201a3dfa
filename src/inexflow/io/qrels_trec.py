"""TREC qrels: ``topic iteration doc grade`` (4 columns), document-level graded relevance.

One line per judged (topic, document); a grade > 0 is relevant, 0 or below is judged not
relevant. The documents table keeps the grade in an extra ``grade`` column; ``rel_chars``
is 0 and ``doc_chars`` -1 (TREC qrels give no character counts), so the passage and
in-context families, which need highlighted characters, refuse these assessments with an
error saying what they need (FOL qrels). The ``trec`` family scores document-level runs
against them as trec_eval does (:mod:`inexflow.measures.trec`).
"""

from __future__ import annotations

from inexflow.errors import InputError, decode_text, read_bytes, warn_input
from inexflow.io.canonical import DOCUMENT_COLUMNS, AssessmentTables, make_table

TREC_DOCUMENT_COLUMNS = {**DOCUMENT_COLUMNS, "grade": "float64"}


def read_trec_qrels(path) -> AssessmentTables:
    rows, seen = [], {}
    text = decode_text(path, read_bytes(path, "qrels file"))
    for lineno, line in enumerate(text.splitlines(), 1):
        cols = line.split()
        if not cols:
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
        rows.append((topic, doc, 0, -1, -1, "", float(grade)))
    if not rows:
        warn_input(path, None, "no judgements in file")
    return AssessmentTables("trec", str(path), documents=make_table(rows, TREC_DOCUMENT_COLUMNS))
