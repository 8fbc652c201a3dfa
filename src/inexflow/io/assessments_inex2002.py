"""INEX 2002-2004 element assessments (XML).

``<assessments topic="..."><file file="..."><path path="/article[1]/bdy[1]/sec[2]"
exhaustiveness="2" specificity="3"/></file></assessments>``. Exhaustivity and
specificity are on the 0..3 scale, with e = 0 iff s = 0. The 2002 dialect
``relevance="0..3" coverage="N|S|L|E"`` is read with relevance as exhaustivity and
coverage mapped to specificity as E (exact) = 3, L (too large) = 2, S (too small) = 1,
N (no coverage) = 0 -- an assumption that keeps the 2002 files usable with the 2003/2004
quantisations; it is not an official mapping.
"""

from __future__ import annotations

from inexflow.errors import InputError, warn_input
from inexflow.io.canonical import ELEMENT_COLUMNS, AssessmentTables, make_table
from inexflow.io.xmlutil import attr, local, no_assessments, parse_xml, where
from inexflow.io.xpath import canonical_xpath

COVERAGE_TO_SPEC = {"N": 0, "S": 1, "L": 2, "E": 3}


def _scale_value(path, el, text, what):
    try:
        v = int(text)
    except ValueError:
        raise InputError(path, where(el), f"{what} {text!r} is not an integer", "0, 1, 2 or 3") from None
    if not 0 <= v <= 3:
        raise InputError(path, where(el), f"{what} {v} outside the 2002-2004 scale", "0, 1, 2 or 3")
    return v


def read_inex2002(path) -> AssessmentTables:
    root = parse_xml(path)
    tops = [root] if local(root.tag) in ("assessments", "assessment") else [
        el for el in root.iter() if local(el.tag) in ("assessments", "assessment")]
    if not tops:
        raise no_assessments(path, root)
    rows, seen = [], {}
    for top in tops:
        topic = attr(path, top, "topic", "topic-id", "topic_id")
        for f in top:
            if local(f.tag) != "file":
                continue
            doc = attr(path, f, "file", "name")
            for p in f.iter():
                if local(p.tag) != "path":
                    continue
                try:
                    xp = canonical_xpath(attr(path, p, "path"))
                except ValueError as e:
                    raise InputError(path, where(p), str(e)) from None
                if p.get("coverage") is not None or p.get("relevance") is not None:
                    e = _scale_value(path, p, attr(path, p, "relevance"), "relevance")
                    cov = attr(path, p, "coverage").upper()
                    if cov not in COVERAGE_TO_SPEC:
                        raise InputError(path, where(p), f"coverage {cov!r} unknown", "N, S, L or E")
                    s = COVERAGE_TO_SPEC[cov]
                else:
                    e = _scale_value(path, p, attr(path, p, "exhaustiveness", "exhaustivity"), "exhaustivity")
                    s = _scale_value(path, p, attr(path, p, "specificity"), "specificity")
                if (e == 0) != (s == 0):
                    warn_input(path, where(p), f"exhaustivity {e} with specificity {s}: "
                               "the 2002-2004 scale has e = 0 iff s = 0")
                key = (topic, doc, xp)
                if key in seen:
                    raise InputError(path, where(p), f"element {doc}{xp} assessed twice for topic {topic} "
                                     f"(first on line {seen[key]})")
                seen[key] = p.sourceline
                rows.append((topic, doc, xp, float(e), float(s), -1, -1))
    if not rows:
        warn_input(path, None, "no assessed elements in file")
    return AssessmentTables("inex2002", str(path), elements=make_table(rows, ELEMENT_COLUMNS))
