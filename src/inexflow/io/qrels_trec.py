"""TREC qrels: ``topic iteration doc grade`` (4 columns), document-level graded relevance.

One line per judged (topic, document); a grade > 0 is relevant, 0 or below is judged not
relevant. The iteration is not read (``0`` or ``Q0``). Lines end at a newline and fields are
separated by ASCII white space (C's ``isspace``: a no-break space is part of a document id), a
line starting with ``#`` is a comment, as trec_eval 10.0 reads them; blank lines are skipped
(trec_eval refuses them).
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
from inexflow.io.fields import fields


def read_trec_judgements(path) -> list[tuple[str, str, float]]:
    """``(topic, doc, grade)`` of every line of the TREC qrels ``path``, in file order."""
    rows, seen = [], {}
    text = decode_text(path, read_bytes(path, "qrels file"))
    for lineno, line in enumerate(text.split("\n"), 1):
        cols = fields(line)
        if line.startswith("#") or not cols:  # a comment line, as trec_eval 10.0 skips them; blank
            continue
        if len(cols) != 4:
            raise InputError(path, f"line {lineno}", f"{len(cols)} columns",
                             "4 as on the first line: topic iteration doc grade")
        topic, _it, doc, grade_text = cols
        grade = _grade(grade_text)
        if grade is None:
            raise InputError(path, f"line {lineno}", f"grade {grade_text!r} is not an integer",
                             "a whole number such as 0, 1 or 2, or 1.0 for 1")
        if (topic, doc) in seen:
            raise InputError(path, f"line {lineno}", f"topic {topic} doc {doc} is judged twice "
                             f"(first on line {seen[topic, doc]})", "one line per (topic, doc)")
        seen[topic, doc] = lineno
        rows.append((topic, doc, float(grade)))
    if not rows:
        warn_input(path, None, "no judgements in file")
    return rows


def _grade(text: str) -> int | None:
    """The grade ``text`` gives: an integer, or a decimal of integral value (``1.0``, which
    trec_eval's ``atol`` reads as 1); None for anything else (``2.7``, which ``atol`` would
    truncate to 2 without a word)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        v = float(text)
    except ValueError:
        return None
    return int(v) if v.is_integer() else None
