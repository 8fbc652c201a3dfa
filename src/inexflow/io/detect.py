"""What format an input file is in, read from its first bytes without parsing it (for the
dispatchers of :mod:`inexflow.model` and for the checks the config makes before anything runs)."""

from __future__ import annotations

import io

from inexflow.io.compressed import read_head

SCALES = ("inex2002", "inex2005", "inex2006", "fol", "trec")
# the values of --assessments-format and of the config's assessments.format (the schema's enum is tested equal)
ASSESSMENT_FORMATS = ("auto", "fol", "trec", "inex2005", "inex2006", "inex2002")
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, accepted at the start of every input


def detect_assessment_format(path) -> str:
    """``fol`` for FOL text qrels (5 or more columns, ``Q0`` second), ``trec`` for TREC qrels (4
    columns: ``topic iteration doc grade``, the iteration ``0`` or ``Q0``), else ``inex2005`` or
    ``inex2002`` from the XML vocabulary. Blank and ``#`` comment lines are passed over. A first
    line of 4 columns with ``Q0`` second is TREC qrels when every line of the head has 4 columns,
    else a truncated FOL line (the FOL reader names it, and says how to read TREC qrels)."""
    head = read_head(path, 65536, "run or assessment file")
    if not head.removeprefix(BOM).lstrip().startswith(b"<"):
        # lines as trec_eval reads TREC qrels, at newlines, fields at ASCII white space (a carriage
        # return among them); a FOL file of carriage-return line ends reads as one long line: fol
        lines = [cols for cols in map(bytes.split, head.removeprefix(BOM).split(b"\n"))
                 if cols and not cols[0].startswith(b"#")]
        if len(head) == 65536:
            lines = lines[:-1] or lines  # the last line of a full head may be cut short
        first = lines[0] if lines else []
        four = len(first) == 4 and (first[1] != b"Q0" or all(len(cols) == 4 for cols in lines))
        return "trec" if four else "fol"
    if b"<element" in head or b"<passage" in head or b"best-entry-point" in head or b"name=" in head:
        return "inex2005"
    return "inex2002"


def sniff_scale(path) -> str | None:
    """The relevance scale of an assessment file from its first 64 KiB, without parsing it
    (for checks made before anything runs): ``fol``, ``inex2002``, ``inex2005`` (2005
    elements carry exhaustivity) or ``inex2006``; None for a 2005/2006-format file whose
    head holds no ``<element`` (a topic with no relevant element says nothing of the scale)."""
    fmt = detect_assessment_format(path)
    if fmt != "inex2005":
        return fmt
    head = read_head(path, 65536, "run or assessment file")
    if b"exhaustivity=" in head or b"exhaustiveness=" in head:
        return "inex2005"
    return "inex2006" if b"<element" in head else None


def fol_head_problem(path) -> str | None:
    """What the first line of FOL qrels at ``path`` holds that FOL qrels cannot (``line N: ...``):
    ``rel_chars`` and ``doc_chars`` not integers, as in a run file given for the qrels (its rank and
    score in those columns); None where the first line reads as FOL qrels. Blank and ``#``
    comment lines are passed over."""
    head = read_head(path, 65536, "run or assessment file")
    lines = head.removeprefix(BOM).splitlines()
    for n, line in enumerate(lines[:-1] if len(head) == 65536 else lines, 1):  # a full head's last line may be cut
        cols = line.split()
        if not cols or cols[0].startswith(b"#"):
            continue
        bad = [f"{name} {v.decode(errors='replace')!r}" for name, v in zip(("rel_chars", "doc_chars"), cols[3:5])
               if not v.lstrip(b"-").isdigit()]
        return f"line {n}: {' and '.join(bad)} {'is not an integer' if len(bad) == 1 else 'are not integers'}" \
            if bad else None
    return None


def xml_root(path) -> str | None:
    """The name of an XML file's root element, read from its first 64 KiB without loading a DTD
    or resolving entities; None for a file that is not XML or whose head shows no element."""
    head = read_head(path, 65536, "run or assessment file").removeprefix(BOM)
    if not head.lstrip().startswith(b"<"):
        return None
    from lxml import etree  # the config checks import this module without lxml

    try:
        for _, el in etree.iterparse(io.BytesIO(head), events=("start",), load_dtd=False, no_network=True,
                                     resolve_entities=False, huge_tree=False):
            return etree.QName(el).localname
    except etree.XMLSyntaxError:
        return None
    return None


def detect_run_format(path) -> str:
    head = read_head(path, 4096, "run or assessment file").removeprefix(BOM).lstrip()
    return "xml" if head.startswith(b"<") else "text"
