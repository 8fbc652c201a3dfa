"""Shared XML parsing with errors that name the file and line.

Every XML input (runs, assessments, topics, collection documents) is parsed by
:func:`parse_xml` with the one parser configuration of :func:`safe_parser`: files come from
participants and assessors, so nothing a file merely references is ever read. External
entities and external DTDs are not loaded (a reference to an external entity is an error
naming the file and line), no network access happens, and libxml2's limits on entity
expansion stay on, so a billion-laughs file fails with a located error. Character
references (``&#233;``), the predefined entities and entities declared in the file's own
internal DTD subset still resolve.
"""

from __future__ import annotations

import threading

from lxml import etree

from inexflow.errors import InputError, warn_input
from inexflow.io.compressed import read_bytes

_PARSERS = threading.local()  # one parser per thread (lxml parsers are not thread-safe)


_OPTIONS = dict(resolve_entities="internal", load_dtd=False, no_network=True, huge_tree=False)


def safe_parser() -> etree.XMLParser:
    """The XML parser every reader uses (module docstring). It is made once per thread and
    reused: making one per file was a large share of indexing a collection of small
    documents (``benchmarks/README.md``, session 11)."""
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = etree.XMLParser(remove_blank_text=False, **_OPTIONS)
    return parser


class _NoTree:
    """A parser target that keeps nothing: libxml2 checks the document and builds no tree."""

    def close(self):
        return None


def _checking_parser() -> etree.XMLParser:
    parser = getattr(_PARSERS, "checking", None)
    if parser is None:
        parser = _PARSERS.checking = etree.XMLParser(target=_NoTree(), **_OPTIONS)
    return parser


def _malformed(path, line, msg: str) -> InputError:
    if msg.startswith("Entity") and "not defined" in msg:
        msg += " (external entities and DTDs are never loaded; declare entities in the file or use " \
               "character references)"
    return InputError(path, f"line {line}" if line else None, f"malformed XML: {msg}")


def parse_xml(path, what: str = "XML file", data: bytes | None = None):
    """Parse an XML file (or ``data``, the bytes read from it; a compressed file is
    decompressed, :mod:`inexflow.io.compressed`); malformed XML becomes an :class:`InputError`
    with its line. A reference to an external DTD is a warning (:func:`warn_external_dtd`)."""
    if data is None:
        data = read_bytes(path, what)
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as e:
        raise _malformed(path, getattr(e, "lineno", None), e.msg) from None
    warn_external_dtd(path, what, root, data)
    return root


NEWLINE = b"\n"
_DTDS_SAID: set[str] = set()  # the external DTDs collection documents refer to, said once each


def warn_external_dtd(path, what: str, root, data: bytes) -> None:
    """Warn, naming the file and line, that its DOCTYPE refers to an external DTD, which is never
    read (:func:`safe_parser`): its entities stay undefined and its default attribute values are
    not applied. For collection documents (``what`` "document"), which often all refer to one
    DTD, each DTD is named once."""
    url = root.getroottree().docinfo.system_url
    if not url:
        return
    once = ""
    if what == "document":
        if url in _DTDS_SAID:
            return
        _DTDS_SAID.add(url)
        once = " (said once for all the documents that refer to it)"
    at = data.find(b"<!DOCTYPE")
    warn_input(path, f"line {data.count(NEWLINE, 0, at) + 1}" if at >= 0 else None,
               f"the DOCTYPE refers to the external DTD {url!r}, which is never read (external files are not "
               f"loaded): entities it declares are undefined, and default attribute values it gives are not applied"
               f"{once}")


def check_xml(path, data: bytes) -> None:
    """What :func:`parse_xml` checks, without building the tree (libxml2 parses with a target
    that keeps nothing: about a third of the time): malformed XML, an undefined entity or
    namespace prefix is an :class:`InputError` with its line."""
    parser = _checking_parser()
    try:
        etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise _malformed(path, getattr(e, "lineno", None), e.msg) from None
    for entry in parser.error_log:  # namespace errors do not stop a parse into a target
        if entry.level >= etree.ErrorLevels.ERROR:
            raise _malformed(path, entry.line, entry.message)


def local(tag) -> str:
    """The tag without namespace ("" for comments and processing instructions)."""
    if not isinstance(tag, str):
        return ""
    return tag if tag[0] != "{" else tag.split("}", 1)[1]


def where(el) -> str:
    return f"line {el.sourceline} <{local(el.tag)}>"


def no_assessments(path, root) -> InputError:
    """The error for an XML file read as INEX assessments that holds no ``<assessments>``
    element: its root named, and a topic file said to be one (a topic file given for the qrels)."""
    tag = local(root.tag)
    what = f"the root is <{tag}>" + (": a topic file, not assessments" if "topic" in tag.lower() else "")
    return InputError(path, where(root), f"no <assessments> element ({what})",
                      "INEX assessments (<assessments topic=...> per topic), FOL or TREC qrels")


def check_tag(path, el, allowed, parent: str):
    """An element whose tag is not in ``allowed`` (a misspelling such as ``<elemnt>``; any
    element where ``allowed`` is empty) is an :class:`InputError`: skipping it would silently
    drop data. Comments pass."""
    name = local(el.tag)
    if name and name not in allowed:
        raise InputError(path, where(el), f"unknown element <{name}> inside <{parent}>",
                         " or ".join(f"<{a}>" for a in allowed) or f"an empty <{parent}/>")
    return name


def attr(path, el, *names, required=True, default=None):
    """The first of ``names`` present on ``el``; missing and required is an error."""
    for n in names:
        v = el.get(n)
        if v is not None:
            return v.strip()
    if required:
        raise InputError(path, where(el), f"missing attribute {' or '.join(names)}")
    return default


def child_text(path, el, name, required=True):
    for ch in el:
        if local(ch.tag) == name:
            return (ch.text or "").strip()
    if required:
        raise InputError(path, where(el), f"missing child element <{name}>")
    return None
