"""INEX 2007-2010 FOL text qrels: ``topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]``.

One line per relevant (topic, document): the number of highlighted characters, the
document's length in characters, the best entry point offset, and the highlighted
passages as ``offset:length`` in characters of the document's text.
"""

from __future__ import annotations

from inexflow.errors import InputError, warn_input
from inexflow.formats.assessments import (DOCUMENT_COLUMNS, PASSAGE_COLUMNS, Assessments,
                                          make_table)


def _int(path, lineno, text, what):
    try:
        v = int(text)
    except ValueError:
        raise InputError(path, f"line {lineno}", f"{what} {text!r} is not an integer") from None
    if v < 0:
        raise InputError(path, f"line {lineno}", f"negative {what} {v}", "a non-negative integer")
    return v


def read_fol_qrels(path) -> Assessments:
    docs, passages = [], []
    seen = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            cols = line.split()
            if not cols:
                continue
            if len(cols) < 5:
                raise InputError(path, f"line {lineno}", f"{len(cols)} columns",
                                 "at least 5: topic Q0 doc rel_chars doc_chars [bep [offset:length ...]]")
            topic, _q0, doc = cols[0], cols[1], cols[2]
            rel = _int(path, lineno, cols[3], "rel_chars")
            dlen = _int(path, lineno, cols[4], "doc_chars")
            bep = -1
            if len(cols) >= 6:
                try:
                    bep = int(float(cols[5]))
                except ValueError:
                    raise InputError(path, f"line {lineno}", f"best entry point {cols[5]!r} is not a number") from None
            key = (topic, doc)
            if key in seen:
                raise InputError(path, f"line {lineno}", f"topic {topic} doc {doc} is assessed twice "
                                 f"(first on line {seen[key]})", "one line per (topic, doc)")
            seen[key] = lineno
            total = 0
            for item in cols[6:]:
                off, sep, ln = item.partition(":")
                if not sep:
                    raise InputError(path, f"line {lineno}", f"passage {item!r} is not offset:length")
                o = _int(path, lineno, off, "passage offset")
                n = _int(path, lineno, ln, "passage length")
                if n == 0:
                    warn_input(path, f"line {lineno}", f"empty passage {item!r} ignored")
                    continue
                if dlen and o + n > dlen:
                    warn_input(path, f"line {lineno}", f"passage {item} ends after the document's "
                               f"{dlen} characters")
                passages.append((topic, doc, o, n, "", ""))
                total += n
            if len(cols) > 6 and total != rel:
                warn_input(path, f"line {lineno}", f"rel_chars {rel} differs from the passages' total {total}")
            docs.append((topic, doc, rel, dlen, bep, ""))
    if not docs:
        warn_input(path, None, "no assessments in file")
    return Assessments("fol", str(path), passages=make_table(passages, PASSAGE_COLUMNS),
                       documents=make_table(docs, DOCUMENT_COLUMNS))


def write_fol_qrels(assessments: Assessments, path):
    """Write ``documents`` and ``passages`` back in FOL format (used by the simulator)."""
    from inexflow.formats.assessments import topic_sort_key
    from inexflow.tables import write_text

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
