"""How the text formats (TREC and FOL runs and qrels) split a line into fields: at ASCII white
space, as trec_eval (C's ``isspace``) and the official INEX tool (Java's ``\\s``) split them:
space, tab, carriage return, vertical tab and form feed. A no-break space or another Unicode
space is part of a field, as in both tools."""

from __future__ import annotations

import re

ASCII_SPACE = " \t\r\x0b\x0c"  # C's isspace but the newline
FIELD_SEPARATORS = re.compile(f"[{ASCII_SPACE}]+")
# the separators pandas' C reader does not split at (it splits at spaces and tabs), as spaces
TO_SPACE = str.maketrans("\x0b\x0c", "  ")


def fields(line: str) -> list[str]:
    """The fields of ``line`` (none for a blank line)."""
    line = line.strip(ASCII_SPACE)
    return FIELD_SEPARATORS.split(line) if line else []
