"""Reading and writing the cached intermediate tables.

All writes go to a temporary file in the destination directory and are renamed into
place, so that a killed job never leaves a half-written output that a re-run would
trust. Parquet is used for machine tables, TSV for tables meant for people. Both are
written deterministically (no timestamps, fixed column order, ``repr`` floats) so that
the same inputs give byte-identical outputs.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from inexflow.errors import InputError
from inexflow.io.atomic import atomic_path
from inexflow.io.text_tables import format_value, readable_cells


def write_parquet(df: pd.DataFrame, path, metadata: dict | None = None):
    """Write ``df`` to Parquet atomically; ``metadata`` is stored as JSON in the schema."""
    write_table(pa.Table.from_pandas(df.reset_index(drop=True), preserve_index=False), path, metadata)


def write_table(table: pa.Table, path, metadata: dict | None = None):
    """Write an Arrow ``table`` to Parquet atomically; ``metadata`` is stored as JSON in the schema."""
    import pyarrow.parquet as pq

    meta = dict(table.schema.metadata or {})
    if metadata is not None:
        meta[b"inexflow"] = json.dumps(metadata, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def compact_dictionary(arr: pa.DictionaryArray) -> pa.DictionaryArray:
    """``arr`` with only the dictionary values some row uses (rows taken from a large table
    keep its whole dictionary otherwise: a shard's every xpath)."""
    codes = arr.indices.to_numpy(zero_copy_only=False)
    used = np.flatnonzero(np.bincount(codes, minlength=len(arr.dictionary)))
    if len(used) == len(arr.dictionary):
        return arr
    new = np.full(len(arr.dictionary), -1, dtype=np.int32)
    new[used] = np.arange(len(used), dtype=np.int32)
    return pa.DictionaryArray.from_arrays(pa.array(new[codes]), arr.dictionary.take(pa.array(used)))


def write_arrow(table: pa.Table, path, metadata: dict | None = None):
    """Write an Arrow ``table`` as an uncompressed Arrow IPC file, atomically, one dictionary
    per string column: a file that readers memory-map (:func:`read_arrow`) and slice without
    decoding. ``metadata`` is stored as JSON in the schema."""
    table = table.unify_dictionaries().combine_chunks()
    meta = dict(table.schema.metadata or {})
    if metadata is not None:
        meta[b"inexflow"] = json.dumps(metadata, sort_keys=True).encode()
    table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=max(table.num_rows, 1))


def read_arrow(path) -> pa.Table:
    """A table written by :func:`write_arrow`, memory-mapped (its pages are read when used);
    an unreadable one is a :class:`CachedTableError` naming it."""
    with cached_table(path):
        return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def read_arrow_metadata(path) -> dict:
    with cached_table(path):
        raw = (pa.ipc.open_file(pa.memory_map(str(path))).schema.metadata or {}).get(b"inexflow")
        return json.loads(raw) if raw else {}


RECOVER = "delete it and run snakemake again, which rebuilds it"


class CachedTableError(InputError):
    """A cached intermediate table that cannot be read, or that is not the table it should
    be (replaced, stale). Reported like an input error: one line naming the file and how to
    recover."""

    def __init__(self, path, problem):
        super().__init__(path, None, f"{problem}; {RECOVER}")


@contextmanager
def cached_table(path):
    """Reading the cached table at ``path``: a missing or unreadable file is a
    :class:`CachedTableError` naming it."""
    try:
        yield
    except FileNotFoundError:
        raise CachedTableError(path, "cached table is missing") from None
    except CachedTableError:
        raise
    except Exception as e:  # pyarrow reports truncation, bad magic bytes, ... with various types
        raise CachedTableError(path, f"cached table cannot be read ({type(e).__name__}: {e})") from None


def read_parquet(path, columns=None, categories=None) -> pd.DataFrame:
    """A cached table; an unreadable one is a :class:`CachedTableError` naming it. The string
    columns ``categories`` come as pandas categoricals, read from the file's dictionary pages
    without building a string per row (twice as fast to read and factorise)."""
    with cached_table(path):
        if categories:
            return pd.read_parquet(path, columns=columns, read_dictionary=list(categories))
        return pd.read_parquet(path, columns=columns)


def read_parquet_tables(parts) -> pd.DataFrame:
    """Several cached tables as one pandas table, as :func:`read_parquet` of each file, its rows
    selected, concatenated by pandas would give it: ``parts`` a list of (path, function of the
    Arrow table read from it giving the rows to keep, or None for all). Tables of one schema are
    concatenated by Arrow and converted to pandas once (four times faster for eighty small
    tables); tables whose schemas differ (an empty table's columns have no type; pandas 2 and 3
    store strings as different Arrow types) are converted one by one. An unreadable table is a
    :class:`CachedTableError` naming it."""
    import pyarrow.parquet as pq

    tables = []
    for path, select in parts:
        with cached_table(path):
            t = pq.ParquetFile(path).read()
            tables.append(t.filter(select(t)) if select is not None and t.num_rows else t)
    if not tables:
        return pd.DataFrame()
    if all(t.schema.equals(tables[0].schema) for t in tables):
        return pa.concat_tables(tables).to_pandas()
    return pd.concat([t.to_pandas() for t in tables], ignore_index=True)


def read_dictionary_table(path, coded, plain=()) -> pa.Table:
    """Columns of a cached table read by pyarrow without building a pandas table: each string
    column of ``coded`` as one dictionary array, from the file's dictionary pages (a table
    without rows, which stores no strings, gets empty ones); the columns ``plain`` as stored.
    A missing value in a ``coded`` column is a :class:`CachedTableError` naming the file."""
    import pyarrow.parquet as pq

    with cached_table(path):
        # the file read directly: pq.read_table goes through pyarrow.dataset (0.05 s to import, more per file)
        t = pq.ParquetFile(path, read_dictionary=list(coded)).read(columns=[*coded, *plain]).unify_dictionaries()
        for c in coded:
            col = t.column(c).combine_chunks()
            if col.null_count:
                raise CachedTableError(path, f"cached table has missing values in column {c!r}")
            if not pa.types.is_dictionary(col.type):  # a table without rows stores no strings: type null
                col = col.cast(pa.string()).dictionary_encode()
            t = t.set_column(t.schema.get_field_index(c), c, col)
    return t


def table_codes(t: pa.Table, coded, plain=()) -> dict:
    """The columns of a table :func:`read_dictionary_table` read as NumPy arrays: each of
    ``coded`` as (codes, names), with only the names some row uses; each of ``plain`` as an
    array."""
    out = {}
    for c in coded:
        col = t.column(c).chunk(0) if t.column(c).num_chunks else t.column(c).combine_chunks()
        codes = col.indices.to_numpy(zero_copy_only=False)  # Arrow's index type (int32): no copy to widen
        names = col.dictionary.to_pylist()
        used = np.bincount(codes, minlength=len(names)) > 0
        if not used.all():
            codes = (np.cumsum(used) - 1)[codes]
            names = [n for n, u in zip(names, used) if u]
        out[c] = (codes, names)
    for c in plain:
        out[c] = t.column(c).to_numpy()
    return out


def read_codes(path, coded, plain=()) -> dict:
    """Columns of a cached table as NumPy arrays, read by pyarrow without building a pandas
    table (about 2.5x faster for the many small first-positions tables the pool stages
    read): each string column of ``coded`` as (codes, names), from the file's dictionary
    pages, with only the names some row uses; each column of ``plain`` as an array."""
    return table_codes(read_dictionary_table(path, coded, plain), coded, plain)


# the inexflow metadata of the tables read in this process, by (path, device, inode, size,
# modification and change times; a rewrite or rename changes the change time, which no tool can
# set back): a stage checks and merges its inputs' metadata several times
_METADATA: dict[tuple, bytes] = {}


def read_parquet_metadata(path) -> dict:
    """The inexflow metadata of a cached table (``{}`` when it records none). A table read
    again in the same process and unchanged since (the same inode, size, modification and
    change times) is not parsed again."""
    import pyarrow.parquet as pq

    with cached_table(path), open(path, "rb") as fh:
        st = os.fstat(fh.fileno())  # the file read, whatever replaces the path meanwhile
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        raw = _METADATA.get(key)
        if raw is None:
            raw = _METADATA[key] = (pq.read_schema(fh).metadata or {}).get(b"inexflow", b"")
        return json.loads(raw) if raw else {}


def checksum(path) -> str:
    """SHA-256 of a file's bytes (hex), to record what a cached table was made from."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_identity(path, meta: dict, **expected):
    """Every ``key=value`` of ``expected`` must be in the metadata ``meta`` of the cached
    table at ``path`` (e.g. ``name=RUN``): a table copied over another one is an error."""
    for k, v in expected.items():
        have = meta.get(k)
        if have != v:
            raise CachedTableError(path, f"cached table holds {k} {have!r}, not {v!r} (the file was replaced "
                                         "or is left from another campaign)")


def check_inputs(path, meta: dict, files):
    """The cached table at ``path`` records the checksums of the files it was made from
    (``made_from``); each of ``files`` that it records must still have that checksum."""
    made = meta.get("made_from") or {}
    for f in map(str, files):
        if f in made and made[f] != checksum(f):
            raise CachedTableError(path, f"cached table was made from another version of {f} (stale)")


def _column_strings(col: pd.Series) -> list[str]:
    """A column's values as :func:`format_value` writes them, converted column-wise: the
    values as ``itertuples`` gives them, without iterating Arrow arrays element by element
    (``tolist``; a column with missing values in an extension array keeps the element-wise
    path, whose missing-value object ``tolist`` does not give)."""
    if isinstance(col.dtype, np.dtype):
        vals = col.tolist()
        if col.dtype.kind == "f":
            return list(map(repr, vals))
        if col.dtype.kind in "iub":
            return list(map(str, vals))
    else:
        if col.hasnans:
            vals = list(col)
        else:
            vals = col.tolist()
            if isinstance(col.dtype, pd.StringDtype):
                return vals  # a string column's values are str already
    return list(map(format_value, vals))


def readable_strings(col: pd.Series, count: bool, digits: int) -> list[str]:
    """A column's cells for reading (:func:`~inexflow.io.text_tables.readable_cells`: a count
    that is a whole number as an integer, other floats with ``digits`` decimals, anything else
    as text); column by column where the dtype says what the values are, value by value
    otherwise."""
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "fiub":
        return readable_cells(col.dtype.kind, col.tolist(), count, digits)
    if isinstance(col.dtype, pd.StringDtype) and not col.hasnans:
        return readable_cells("s", col.tolist(), count, digits)
    return readable_cells("o", list(col), count, digits)


def float_strings(values: np.ndarray) -> pa.Array:
    """``repr`` of each float of ``values``, made by Arrow's cast to string, which writes the
    same shortest round-trip digits, and put in ``repr``'s notation: ``.0`` after a whole
    number; ``repr`` itself for the values ``repr`` writes in scientific notation (below 1e-4
    or from 1e16 in magnitude), where Arrow uses it (from about 1e10), and for nan and inf."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    s = pc.cast(pa.array(values), pa.string())
    mag = np.abs(values)
    with np.errstate(invalid="ignore"):
        positional = (mag == 0) | ((mag >= 1e-4) & (mag < 1e16))
    positional &= ~pc.match_substring(s, "e").to_numpy(zero_copy_only=False)
    whole = positional & ~pc.match_substring(s, ".").to_numpy(zero_copy_only=False)
    s = pc.if_else(pa.array(whole), pc.binary_join_element_wise(s, ".0", ""), s)
    other = np.flatnonzero(~positional)
    if len(other):
        reprs = np.full(len(values), None, dtype=object)
        reprs[other] = list(map(repr, values[other].tolist()))
        s = pc.if_else(pa.array(~positional), pa.array(reprs, pa.string()), s)
    return s


def _arrow_strings(col: pd.Series) -> pa.Array | None:
    """A column's values as :func:`_column_strings` writes them, as an Arrow array made without
    a Python string per value; None for a column of another kind (objects of mixed types,
    missing values in an extension array), which :func:`_column_strings` converts."""
    if isinstance(col.dtype, np.dtype):
        kind = col.dtype.kind
        if kind == "f":
            return float_strings(col.to_numpy())
        if kind in "iu":
            return pc.cast(pa.array(col.to_numpy()), pa.string())
        if kind == "b":
            return pa.array(np.where(col.to_numpy(), "True", "False"), pa.string())
        return None
    if isinstance(col.dtype, pd.StringDtype) and not col.hasnans:
        return pa.array(col, pa.string())
    return None


def _write_tsv_arrow(df: pd.DataFrame, fh) -> bool:
    """Write the rows of ``df`` to the binary file ``fh`` as :func:`write_tsv` does, by Arrow's
    CSV writer from columns made by :func:`_arrow_strings` (three times faster for the
    campaign's table of every score); False, with nothing written, when a column is of
    another kind or a value holds a tab, newline or double quote (the Python writer then
    writes it, byte for byte as before)."""
    import pyarrow.csv as pcsv

    if not len(df) or not df.shape[1]:
        return False
    arrays = []
    for i in range(df.shape[1]):
        a = _arrow_strings(df.iloc[:, i])
        if a is None:
            return False
        arrays.append(a)
    table = pa.table(arrays, names=[str(i) for i in range(len(arrays))])
    sink = pa.BufferOutputStream()
    try:
        pcsv.write_csv(table, sink, pcsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none"))
    except pa.ArrowInvalid:  # a value Arrow would have to quote
        return False
    fh.write(sink.getvalue().to_pybytes())
    return True


def write_tsv(df: pd.DataFrame, path, digits: int | None = None, counts=frozenset()):
    """Write ``df`` as a tab-separated table with a header, atomically and deterministically:
    floats exactly (``repr``), or for reading with ``digits`` decimals and the columns
    ``counts`` as integers (:func:`readable_strings`)."""
    header = ("\t".join(map(str, df.columns)) + "\n").encode("utf-8")
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(header)
            if digits is None and _write_tsv_arrow(df, fh):
                return
            cols = [_column_strings(df.iloc[:, i]) if digits is None else
                    readable_strings(df.iloc[:, i], str(df.columns[i]) in counts, digits)
                    for i in range(df.shape[1])]
            text = io.TextIOWrapper(fh, encoding="utf-8", newline="\n")  # rows written as they are joined
            text.writelines("\t".join(row) + "\n" for row in (zip(*cols) if cols else [()] * len(df)))
            text.flush()
            text.detach()
