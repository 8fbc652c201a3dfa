"""Shared XML parsing with errors that name the file and line."""

from __future__ import annotations

from lxml import etree

from inexflow.errors import InputError


def parse_xml(path):
    """Parse an XML file; malformed XML becomes an :class:`InputError` with its line."""
    parser = etree.XMLParser(resolve_entities=True, remove_blank_text=False, huge_tree=True,
                             load_dtd=False, no_network=True)
    try:
        return etree.parse(str(path), parser).getroot()
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None)
        raise InputError(path, f"line {line}" if line else None, f"malformed XML: {e.msg}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read XML file: {e}") from None


def local(tag) -> str:
    """The tag without namespace ("" for comments and processing instructions)."""
    if not isinstance(tag, str):
        return ""
    return tag if tag[0] != "{" else tag.split("}", 1)[1]


def where(el) -> str:
    return f"line {el.sourceline} <{local(el.tag)}>"


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
