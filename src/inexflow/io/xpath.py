"""Canonical element xpaths: ``/article[1]/bdy[1]/sec[2]`` (every step indexed).

See ``docs/measures.md`` (Units and identity): an element is (doc, xpath); A
contains B iff A's xpath is a proper prefix of B's at a step boundary.
"""

from __future__ import annotations

import re

_STEP = re.compile(r"^([A-Za-z_][\w.\-:]*)(?:\[(\d+)\])?$")


def canonical_xpath(path: str) -> str:
    """Return the canonical form of an element xpath or raise ``ValueError``.

    Accepts missing ``[1]`` indices, surrounding whitespace and a trailing slash:
    ``/article/bdy[1]/sec[2]/`` -> ``/article[1]/bdy[1]/sec[2]``.
    """
    p = path.strip()
    if not p.startswith("/"):
        raise ValueError(f"xpath {path!r} does not start with '/'")
    p = p.rstrip("/")
    if not p:
        raise ValueError(f"xpath {path!r} has no element step")
    out = []
    for step in p[1:].split("/"):
        m = _STEP.match(step.strip())
        if not m:
            raise ValueError(f"xpath {path!r} has an invalid step {step!r}")
        idx = int(m.group(2) or 1)
        if idx < 1:
            raise ValueError(f"xpath {path!r} has a step index below 1 in {step!r}")
        out.append(f"{m.group(1)}[{idx}]")
    return "/" + "/".join(out)


def is_ancestor(a: str, b: str) -> bool:
    """True iff canonical xpath ``a`` is a proper ancestor of ``b``."""
    return b.startswith(a) and len(b) > len(a) and b[len(a)] == "/"






def ancestors(xpath: str):
    """The proper ancestors of a canonical xpath, nearest first."""
    i = xpath.rfind("/")
    while i > 0:
        xpath = xpath[:i]
        yield xpath
        i = xpath.rfind("/")
