"""INEX 2005-2006 highlighting assessments (XML).

``<assessments topic=".." version=".."><file name=".." collection=".."><best-entry-point
path=".."/><passage start="XPATH/text()[n].offset" end=".." size=".."/><element path=".."
exhaustivity="1|2|?" size=".." rsize=".."/></file></assessments>``.
Specificity is rsize / size. Files whose elements carry no ``exhaustivity`` are on the
2006 scale (specificity only).
"""

from __future__ import annotations

from inexflow.errors import InputError, warn_input
from inexflow.io.canonical import DOCUMENT_COLUMNS, ELEMENT_COLUMNS, PASSAGE_COLUMNS, AssessmentTables, make_table
from inexflow.io.xmlutil import attr, check_tag, local, no_assessments, parse_xml, where
from inexflow.io.xpath import canonical_xpath

FILE_LEVEL = ("file",)
ELEMENT_LEVEL = ("best-entry-point", "passage", "element")


def _size(path, el, name):
    text = attr(path, el, name)
    try:
        v = int(text)
    except ValueError:
        raise InputError(path, where(el), f"{name} {text!r} is not an integer") from None
    if v < 0:
        raise InputError(path, where(el), f"negative {name} {v}", "a non-negative integer")
    return v


def read_inex2005(path) -> AssessmentTables:
    root = parse_xml(path)
    tops = [root] if local(root.tag) == "assessments" else [
        el for el in root.iter() if local(el.tag) == "assessments"]
    if not tops:
        raise no_assessments(path, root)
    elements, passages, documents = [], [], []
    has_exh = False
    seen = {}
    files_seen = {}
    for top in tops:
        topic = attr(path, top, "topic", "topic-id")
        for f in top:
            if check_tag(path, f, FILE_LEVEL, "assessments") != "file":
                continue
            doc = attr(path, f, "name", "file")
            if (topic, doc) in files_seen:
                raise InputError(path, where(f), f"document {doc} has a second <file> block for topic {topic} "
                                 f"(first on line {files_seen[topic, doc]})", "one <file> block per document")
            files_seen[topic, doc] = f.sourceline
            bep = ""
            rel_chars = 0
            doc_size = -1
            for el in f:
                kind = check_tag(path, el, ELEMENT_LEVEL, "file")
                for inner in el:  # each is an empty element: what it holds is in its attributes
                    check_tag(path, inner, (), kind)
                if kind == "best-entry-point":
                    try:
                        bep = canonical_xpath(attr(path, el, "path"))
                    except ValueError as e:
                        raise InputError(path, where(el), str(e)) from None
                elif kind == "passage":
                    start, end = attr(path, el, "start"), attr(path, el, "end")
                    size = _size(path, el, "size") if el.get("size") is not None else -1
                    rel_chars += max(size, 0)
                    passages.append((topic, doc, -1, size, start, end))
                elif kind == "element":
                    try:
                        xp = canonical_xpath(attr(path, el, "path"))
                    except ValueError as e:
                        raise InputError(path, where(el), str(e)) from None
                    if el.get("size") is None:
                        raise InputError(path, where(el), f"element {doc}{xp} has no size",
                                         "size and rsize in characters")
                    size = _size(path, el, "size")
                    rsize = _size(path, el, "rsize")
                    if rsize > size:
                        raise InputError(path, where(el), f"rsize {rsize} larger than size {size}")
                    ex = el.get("exhaustivity", el.get("exhaustiveness"))
                    if ex is None:
                        e = float("nan")
                    else:
                        has_exh = True
                        ex = ex.strip()
                        if ex == "?":
                            e = -1.0
                        elif ex in ("0", "1", "2"):
                            e = float(ex)
                        else:
                            raise InputError(path, where(el), f"exhaustivity {ex!r} outside the 2005 scale",
                                             "?, 0, 1 or 2")
                    key = (topic, doc, xp)
                    if key in seen:
                        raise InputError(path, where(el), f"element {doc}{xp} assessed twice for topic {topic} "
                                         f"(first on line {seen[key]})")
                    seen[key] = el.sourceline
                    if xp.count("/") == 1:
                        doc_size = size
                    spec = rsize / size if size > 0 else 0.0
                    elements.append((topic, doc, xp, e, spec, size, rsize))
            documents.append((topic, doc, rel_chars, doc_size, -1, bep))
    if not elements:
        warn_input(path, None, "no assessed elements in file")
    scale = "inex2005" if has_exh else "inex2006"
    els = make_table(elements, ELEMENT_COLUMNS)
    if has_exh and els["exh"].isna().any():
        row = els[els["exh"].isna()].iloc[0]
        raise InputError(path, f"topic {row.topic} doc {row.doc} {row.xpath}",
                         "element without exhaustivity in a file that uses it", "exhaustivity=\"?|0|1|2\"")
    return AssessmentTables(scale, str(path), elements=els, passages=make_table(passages, PASSAGE_COLUMNS),
                       documents=make_table(documents, DOCUMENT_COLUMNS))
