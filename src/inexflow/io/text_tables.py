"""The workflow's TSV tables read and written without pandas, for the stages whose work is a
few small tables (the report job): pandas' import alone is most of such a job's time.

A table is read as :func:`pandas.read_csv` reads it (``sep="\\t"``, ``keep_default_na=False``,
``na_values=["", "nan", "NaN"]``, some columns forced to text), column by column with the same
types: integers (``i``, ``u`` over the int64 range), floats (``f``: numbers with a fraction or
exponent, or integers with a missing value), booleans (``b``), text without a missing value
(``s``), and anything else (``o``: text or booleans with missing values, integers past uint64,
value by value). A missing value is ``nan``. :func:`readable_cells` formats a column for reading as
:func:`inexflow.io.tables.readable_strings` does a pandas column (which calls it), so a table
reads the same through either.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from inexflow.io.atomic import write_text

NA = frozenset({"", "nan", "NaN"})
# what Python's int and float take and pandas does not: digit separators, and NaN spelled
# otherwise than the missing values NA (surrounding spaces both take)
_NOT_A_NUMBER = re.compile(r"_|nan", re.IGNORECASE)
_BOOL = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}
INT64 = (-(1 << 63), (1 << 63) - 1)


@dataclass
class Column:
    """One column: ``kind`` (``i``, ``u``, ``f``, ``b``, ``s`` or ``o``, see the module) and its values."""

    kind: str
    values: list


def _numbers(cells: list[str], kind):
    """``cells`` as ``kind`` (int or float) where each is a number pandas reads as one (ASCII,
    no digit separator, no NaN spelled otherwise, which Python's int and float would take),
    else None."""
    joined = "".join(cells)
    if not joined.isascii() or _NOT_A_NUMBER.search(joined):
        return None
    try:
        return [kind(c) for c in cells]
    except ValueError:
        return None


def _column(cells: list[str], text: bool) -> Column:
    """The type pandas.read_csv gives ``cells`` (text when ``text``), and the values."""
    missing = [c in NA for c in cells]
    gaps = any(missing)
    present = [c for c, m in zip(cells, missing) if not m] if gaps else cells
    if not text:
        ints = _numbers(present, int) if present else None
        if ints is not None:
            low, high = min(ints), max(ints)
            if INT64[0] <= low and high <= INT64[1] and gaps:
                it = iter(ints)
                return Column("f", [math.nan if m else float(next(it)) for m in missing])
            if INT64[0] <= low and high <= INT64[1]:
                return Column("i", ints)
            if 0 <= low and high < 1 << 64 and not gaps:
                return Column("u", ints)
            it = iter(ints)
            return Column("o", [math.nan if m else next(it) for m in missing])
        floats = _numbers(present, float)
        if floats is not None:
            it = iter(floats)
            return Column("f", [math.nan if m else next(it) for m in missing])
        if present and all(c in _BOOL for c in present):
            if not gaps:
                return Column("b", [_BOOL[c] for c in cells])
            return Column("o", [math.nan if m else _BOOL[c] for c, m in zip(cells, missing)])
    if gaps:
        return Column("o", [math.nan if m else c for c, m in zip(cells, missing)])
    return Column("s", cells)


class TextTable:
    """Named columns of equal length (:class:`Column`), in file order."""

    def __init__(self, columns: dict[str, Column]):
        self.columns = dict(columns)

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())).values) if self.columns else 0

    def __contains__(self, name) -> bool:
        return name in self.columns

    def __getitem__(self, name) -> Column:
        return self.columns[name]

    @property
    def names(self) -> list[str]:
        return list(self.columns)

    def rows(self, keep: list[bool]) -> TextTable:
        """The rows where ``keep`` is true, each column keeping its kind."""
        return TextTable({n: Column(c.kind, [v for v, k in zip(c.values, keep) if k]) for n, c in self.columns.items()})

    def head(self, n: int) -> TextTable:
        return TextTable({name: Column(c.kind, c.values[:n]) for name, c in self.columns.items()})


def read_text_table(path, text=()) -> TextTable:
    """A TSV with a header line (as :func:`inexflow.io.tables.write_tsv` writes them), the
    columns ``text`` kept as text, the others typed as pandas.read_csv types them."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = lines[0].split("\t") if lines else []
    body = [line.split("\t") for line in lines[1:]]
    cols = [list(c) for c in zip(*body)] if body else [[] for _ in header]
    return TextTable({h: _column(c, h in text) for h, c in zip(header, cols)})


def readable_cells(kind: str, values: list, count: bool, digits: int) -> list[str]:
    """A column's cells for reading: a count that is a whole number as an integer, other floats
    with ``digits`` decimals, anything else as text; column by column where ``kind`` says what
    the values are (``f``, ``i``, ``u``, ``b``, ``s``), value by value otherwise."""
    if kind == "f":
        if count:
            return [str(int(v)) if v.is_integer() else f"{v:.{digits}f}" for v in values]
        return [f"{v:.{digits}f}" for v in values]
    if kind in "iub":
        return list(map(str, values))
    if kind == "s":
        return list(values)

    def cell(v):
        if count and isinstance(v, float) and v.is_integer():
            return str(int(v))
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        return str(v)
    return [cell(v) for v in values]


def format_value(v) -> str:
    """Format one value for TSV output: floats with repr (round-trip exact)."""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def write_rows(header: list[str], rows: list[list], path) -> None:
    """A TSV as :func:`inexflow.io.tables.write_tsv` writes a table of these values
    (:func:`format_value`)."""
    cells = ["\t".join(map(format_value, row)) for row in rows]
    write_text("".join(line + "\n" for line in ["\t".join(header), *cells]), path)
