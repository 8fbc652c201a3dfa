"""INEX topic files: ``<topic id=".." ct_no=".."><title/><castitle/><description/><narrative/></topic>``.

Also accepts the 2005-2006 spelling ``<inex_topic topic_id=".." query_type="CO+S|CAS">``.
The table has one row per topic: topic, ct_no, type (``CO``, ``CO+S`` or ``CAS``: the
``query_type``/``type`` attribute where given, else ``CO+S`` when a castitle is present and
``CO`` otherwise), title, castitle, description, narrative.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

import pandas as pd

from inexflow.errors import InputError, warn_input
from inexflow.io.atomic import write_text
from inexflow.io.xmlutil import attr, local, parse_xml, where

TOPIC_COLUMNS = ["topic", "ct_no", "type", "title", "castitle", "description", "narrative"]


def read_topics(path) -> pd.DataFrame:
    root = parse_xml(path)
    rows, seen = [], {}
    for t in root.iter():
        if local(t.tag) not in ("topic", "inex_topic"):
            continue
        tid = attr(path, t, "id", "topic_id", "topic-id")
        if tid in seen:
            raise InputError(path, where(t), f"topic {tid} defined twice (first on line {seen[tid]})")
        seen[tid] = t.sourceline
        fields = {local(c.tag): " ".join("".join(c.itertext()).split()) for c in t if isinstance(c.tag, str)}
        if not fields.get("title") and not fields.get("castitle"):
            raise InputError(path, where(t), f"topic {tid} has neither <title> nor <castitle>")
        qtype = t.get("query_type") or t.get("type")
        if not qtype:
            qtype = "CO+S" if fields.get("castitle") else "CO"
        rows.append((tid, t.get("ct_no", ""), qtype, fields.get("title", ""), fields.get("castitle", ""),
                     fields.get("description", ""), fields.get("narrative", "")))
    if not rows:
        warn_input(path, None, "no topics in file")
    return pd.DataFrame.from_records(rows, columns=TOPIC_COLUMNS).astype(str)


def write_topics(df: pd.DataFrame, path):
    """Write a topic table as an INEX topic file (used by the simulator)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<inex-topic-file>\n']
    for r in df.itertuples():
        out.append(f"<topic id={quoteattr(r.topic)} ct_no={quoteattr(r.ct_no)} type={quoteattr(r.type)}>\n")
        for f in ("title", "castitle", "description", "narrative"):
            if getattr(r, f):  # a CO topic has no castitle
                out.append(f"  <{f}>{escape(getattr(r, f))}</{f}>\n")
        out.append("</topic>\n")
    out.append("</inex-topic-file>\n")
    write_text("".join(out), path)
