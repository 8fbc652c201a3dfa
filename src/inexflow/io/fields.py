"""How the text formats (TREC and FOL runs and qrels) split a line into fields: at ASCII white
space, as trec_eval (C's ``isspace``) and the official INEX tool (Java's ``\\s``) split them:
space, tab, carriage return, vertical tab and form feed. A no-break space or another Unicode
space is part of a field, as in both tools. The qrels readers split lines with :func:`fields`;
the run readers, which read with pandas and pyarrow, turn vertical tabs and form feeds (and in a
TREC run, carriage returns) into spaces (:data:`TO_SPACE`) or leave such a file to the reader that
does."""

from __future__ import annotations

import re

ASCII_SPACE = " \t\r\x0b\x0c"  # C's isspace but the newline
FIELD_SEPARATORS = re.compile(f"[{ASCII_SPACE}]+")
# the separators pandas' C reader does not split at, as spaces (it splits at spaces and tabs, and
# ends a line at a carriage return)
TO_SPACE = str.maketrans("\x0b\x0c", "  ")


def fields(line: str) -> list[str]:
    """The fields of ``line`` (none for a blank line)."""
    line = line.strip(ASCII_SPACE)
    return FIELD_SEPARATORS.split(line) if line else []
