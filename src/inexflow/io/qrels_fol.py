"""INEX 2007-2010 FOL text qrels: ``topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]``.

One line per judged (topic, document): the number of highlighted characters, the
document's length in characters, the best entry point offset, and the highlighted
passages as ``offset:length`` in characters of the document's text. The official qrels
also list every judged non-relevant document (``rel_chars`` 0, no passages); such a line
is kept in the ``documents`` table (judged, not relevant) and, as in the official tool,
counts in no recall base (see :mod:`inexflow.measures.toolorder`).

Read as the official tool (inex_eval v3.1) reads the file:

- a document is relevant when its ``rel_chars`` column is positive; the column, not the
  passages, is the document's highlighted size (a difference is a warning);
- the best entry point column is used only on lines that also list passages: on a
  six-column line the tool ignores it (kept as -1 here, with a warning when the document
  is relevant); a negative one means none;
- numbers are integers below 2^31 (the tool's Java ``int``);
- lines end at a newline, a carriage return or both (Java's ``readLine``), and fields are
  separated by ASCII white space (Java's ``\\s``; :mod:`inexflow.io.fields`).

Overlapping passages on one line are an error: the tool would count their common
characters twice.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from inexflow.errors import InputError, decode_text, warn_input
from inexflow.io.atomic import write_text
from inexflow.io.compressed import read_bytes
from inexflow.io.fields import fields
from inexflow.io.topic_order import topic_sort_key

if TYPE_CHECKING:
    from inexflow.io.canonical import AssessmentTables

INT_MAX = 2**31 - 1  # the official tool reads every number as a Java int
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")  # where Java's readLine ends a line


# what rel_chars and doc_chars that are not integers say: a run's rank and score stand there
_FOL_COLUMNS = ("an integer: FOL qrels are topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]; "
                "a run file given for the qrels?")


def _int(path, lineno, text, what, negative_ok=False, expected=None):
    try:
        v = int(text)
    except ValueError:
        v = None
        try:
            f = float(text)
            if f.is_integer():
                v = int(f)
        except (ValueError, OverflowError):
            pass
        if v is None:
            raise InputError(path, f"line {lineno}", f"{what} {text!r} is not an integer", expected) from None
    if v < 0 and not negative_ok:
        raise InputError(path, f"line {lineno}", f"negative {what} {v}", "a non-negative integer")
    if abs(v) > INT_MAX:
        raise InputError(path, f"line {lineno}", f"{what} {text} is too large",
                         f"at most {INT_MAX}, the official tool's limit")
    return v


class _OddPassages:
    """Passages that are legal but odd (empty, ending after their document), warned once per
    kind with the first and a count, not once each."""

    def __init__(self):
        self.first: dict[str, tuple[int, str]] = {}
        self.count: dict[str, int] = {}

    def note(self, kind: str, lineno: int, message: str):
        self.first.setdefault(kind, (lineno, message))
        self.count[kind] = self.count.get(kind, 0) + 1

    def warn(self, path):
        for kind, (lineno, message) in self.first.items():
            more = f" ({self.count[kind]} such passages in the file)" if self.count[kind] > 1 else ""
            warn_input(path, f"line {lineno}", message + more)


def read_fol_qrels(path) -> AssessmentTables:
    """The FOL qrels ``path`` as :class:`~inexflow.io.canonical.AssessmentTables` (the
    ``documents`` and ``passages`` tables of :func:`read_fol_rows`)."""
    from inexflow.io.canonical import DOCUMENT_COLUMNS, PASSAGE_COLUMNS, AssessmentTables, make_table  # pandas

    docs, passages = read_fol_rows(path)
    return AssessmentTables("fol", str(path), passages=make_table(passages, PASSAGE_COLUMNS),
                            documents=make_table(docs, DOCUMENT_COLUMNS))


def read_fol_rows(path) -> tuple[list[tuple], list[tuple]]:
    """The rows of the FOL qrels ``path``, without pandas, in file order: ``(topic, doc,
    rel_chars, doc_chars, bep_offset, "")`` per judged document and ``(topic, doc, start,
    length, "", "")`` per highlighted passage (each line's passages by start), as the
    ``documents`` and ``passages`` tables hold them (:mod:`inexflow.io.canonical`)."""
    docs, passages = [], []
    seen, lengths = {}, {}
    odd = _OddPassages()
    text = decode_text(path, read_bytes(path, "qrels file"), cr_ends_lines=True)
    for lineno, line in enumerate(_LINE_BREAKS.split(text), 1):
        cols = fields(line)
        if not cols or cols[0].startswith("#"):  # blank and comment lines, as the TREC readers skip them
            continue
        if len(cols) < 5:
            trec = ("; TREC qrels, topic iteration doc grade, are read with --assessments-format trec "
                    "(config: assessments.format: trec)") if len(cols) == 4 else (
                "; or 4 for TREC qrels: topic iteration doc grade")
            raise InputError(path, f"line {lineno}", f"{len(cols)} columns",
                             "at least 5: topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]" + trec)
        topic, _q0, doc = cols[0], cols[1], cols[2]
        rel = _int(path, lineno, cols[3], "rel_chars", expected=_FOL_COLUMNS)
        dlen = _int(path, lineno, cols[4], "doc_chars", expected=_FOL_COLUMNS)
        bep = -1
        if len(cols) >= 6:
            given = _int(path, lineno, cols[5], "best entry point", negative_ok=True)
            if given < 0:
                warn_input(path, f"line {lineno}", f"best entry point {given} of document {doc} is negative: the "
                           "document has none (Best in Context scores it 0)")
            if len(cols) >= 7:
                bep = max(given, -1)
            elif rel > 0:
                warn_input(path, f"line {lineno}", f"best entry point {given} of relevant document {doc} is "
                           "ignored: the line lists no passages (the official tool reads it only with them)")
        key = (topic, doc)
        if key in seen:
            raise InputError(path, f"line {lineno}", f"topic {topic} doc {doc} is assessed twice "
                             f"(first on line {seen[key]})", "one line per (topic, doc)")
        seen[key] = lineno
        first = lengths.setdefault(doc, (dlen, lineno, topic))
        if first[0] != dlen and first[1] > 0:  # once per document
            warn_input(path, f"line {lineno}", f"document {doc} has {dlen} characters here and {first[0]} on line "
                       f"{first[1]} (topic {first[2]}): the lines of one document should agree on its length")
            lengths[doc] = (first[0], 0, first[2])
        total = 0
        spans = []
        for item in cols[6:]:
            off, sep, ln = item.partition(":")
            if not sep:
                raise InputError(path, f"line {lineno}", f"passage {item!r} is not offset:length")
            o = _int(path, lineno, off, "passage offset")
            n = _int(path, lineno, ln, "passage length")
            if n == 0:
                odd.note("empty", lineno, f"empty passage {item!r} ignored")
                continue
            if dlen and o + n > dlen:
                odd.note("past", lineno, f"passage {item} ends after the document's {dlen} characters")
            if o + n > INT_MAX:
                raise InputError(path, f"line {lineno}", f"passage {item} ends past {INT_MAX}",
                                 "passages inside the document")
            spans.append((o, n, item))
            total += n
        spans.sort()
        for (o, n, item), (o2, _, item2) in zip(spans, spans[1:]):
            if o2 < o + n:
                raise InputError(path, f"line {lineno}", f"passages {item} and {item2} overlap",
                                 "disjoint highlighted passages (the official tool would count the common "
                                 "characters twice)")
        passages.extend((topic, doc, o, n, "", "") for o, n, _ in spans)
        if len(cols) > 6 and total != rel:
            warn_input(path, f"line {lineno}", f"rel_chars {rel} differs from the passages' total {total}")
        docs.append((topic, doc, rel, dlen, bep, ""))
    odd.warn(path)
    if not docs:
        warn_input(path, None, "no assessments in file")
    return docs, passages


def write_fol_qrels(assessments: AssessmentTables, path):
    """Write ``documents`` and ``passages`` back in FOL format (used by the simulator)."""
    by = {k: g for k, g in assessments.passages.groupby(["topic", "doc"], sort=False)}
    docs = assessments.documents.copy()
    docs["_k"] = docs["topic"].map(topic_sort_key)
    lines = []
    for r in docs.sort_values(["_k", "doc"], kind="stable").itertuples():
        ps = by.get((r.topic, r.doc))
        fol = "" if ps is None else " " + " ".join(f"{s}:{n}" for s, n in zip(ps["start"], ps["length"]))
        bep = r.bep_offset if r.bep_offset >= 0 else 0
        lines.append(f"{r.topic} Q0 {r.doc} {r.rel_chars} {r.doc_chars} {bep}{fol}\n")
    write_text("".join(lines), path)
