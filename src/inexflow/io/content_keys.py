"""Content keys of input files, hashed once per change.

Snakemake decides what to re-run from modification times: a file replaced by an older-dated
one (restored from a backup, ``cp -p``, a checkout) looks unchanged. The workflow passes each
input's content key as a param instead, so that a changed key re-runs its jobs whatever the
dates say. A key is a BLAKE2b digest of the file's bytes; keys are cached by (device, inode,
size, mtime_ns, ctime_ns) in one table, so that only files changed since the last call are
hashed again (a replaced file always gets a new ctime, whatever its mtime).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from operator import attrgetter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from inexflow.errors import InputError, open_input
from inexflow.io.arrow_arrays import arrow_of, numpy_of, strings_of
from inexflow.io.atomic import atomic_path

_COLUMNS = ("name", "dev", "ino", "size", "mtime_ns", "ctime_ns", "key")


def content_key(path) -> str:
    """The BLAKE2b digest (16 bytes, hex) of a file's bytes."""
    h = hashlib.blake2b(digest_size=16)
    with open_input(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


_STAT_CHUNK = 65_536  # files stat-ed before their fields are copied out (a stat result is about 0.5 KB)
_STAMP_TYPES = {"dev": np.uint64, "ino": np.uint64, "size": np.int64, "mtime_ns": np.int64, "ctime_ns": np.int64}
_SCHEMA = pa.schema([("name", pa.string()), *((c, pa.from_numpy_dtype(t)) for c, t in _STAMP_TYPES.items()),
                     ("key", pa.string())])


def _read_cache(cache_file: Path) -> pa.Table | None:
    """The cache table (:data:`_SCHEMA`), an Arrow file mapped into memory (read without a copy
    or a decoding step: a warm call over 659,388 files reads it in a few milliseconds); a
    missing, unreadable or older-shaped one is only a cold cache: None."""
    try:
        if not cache_file.exists() and cache_file.with_suffix(".parquet").exists():
            # a cache in its earlier Parquet form: its files are not hashed again (written back as Arrow)
            table = pq.ParquetFile(cache_file.with_suffix(".parquet")).read(columns=list(_COLUMNS))
        else:
            table = pa.ipc.open_file(pa.memory_map(str(cache_file))).read_all()
        return table.select(list(_COLUMNS)).cast(_SCHEMA)
    except (OSError, KeyError, pa.ArrowException):
        return None


def stamps_of(stats: list) -> dict[str, np.ndarray]:
    """The (device, inode, size, mtime_ns, ctime_ns) of ``stats`` (``os.stat`` results), a numpy
    array per field, each copied out at once (a C-level map, no call per file)."""
    return {c: np.fromiter(map(attrgetter(f"st_{c}"), stats), dtype=t, count=len(stats))
            for c, t in _STAMP_TYPES.items()}


def _stat_files(files: list, what: str) -> dict[str, np.ndarray]:
    """:func:`stamps_of` the files at the paths ``files``, a chunk of ``stat`` results at a time
    (memory stays small); a file that cannot be read is an :class:`~inexflow.errors.InputError`."""
    stamp = {c: np.empty(len(files), dtype=t) for c, t in _STAMP_TYPES.items()}
    for lo in range(0, len(files), _STAT_CHUNK):
        try:
            stats = [os.stat(path) for path in files[lo:lo + _STAT_CHUNK]]
        except OSError as e:
            raise InputError(e.filename, None, f"{what} cannot be read: {e.strerror}") from None
        for c, values in stamps_of(stats).items():
            stamp[c][lo:lo + len(stats)] = values
    return stamp


def file_keys(paths: Mapping[str, Path | str], cache_file, what: str = "file",
              stamps: dict[str, np.ndarray] | None = None) -> dict[str, str]:
    """{name: content key} of the files ``paths`` ({name: path}), hashing only those whose
    (device, inode, size, mtime_ns, ctime_ns) the table ``cache_file`` does not hold; the
    table (of every name it ever held) is rewritten atomically when anything was hashed. A
    file that cannot be read is an :class:`~inexflow.errors.InputError` naming it.

    Each file is ``stat``-ed (the one call per file), unless the caller has done so already and
    gives the results as ``stamps`` (:func:`stamps_of`, in the order of ``paths``); the
    comparison with the cache is done by array operations over every file at once."""
    cache_file = Path(cache_file)
    names = list(paths)
    stamp = _stat_files([paths[n] for n in names], what) if stamps is None else stamps
    keys = np.empty(len(names), dtype=object)
    same = np.zeros(len(names), dtype=bool)
    cached = _read_cache(cache_file)
    if cached is not None and len(names):
        at = numpy_of(pc.index_in(strings_of(names), value_set=cached["name"]), fill=-1)
        hit = np.flatnonzero(at >= 0)
        same[hit] = np.logical_and.reduce([numpy_of(cached[c])[at[hit]] == stamp[c][hit] for c in _STAMP_TYPES])
        keys[same] = cached["key"].take(arrow_of(at[same])).to_pylist()
    fresh = np.flatnonzero(~same)
    for i in fresh:
        path = paths[names[i]]
        try:
            keys[i] = content_key(path)
        except OSError as e:
            raise InputError(path, None, f"{what} cannot be read: {e.strerror}") from None
        except InputError as e:  # a special file: named as the caller's kind of input
            raise InputError(path, None, e.problem, f"a {what}") from None
    if len(fresh):
        new = pa.Table.from_arrays([strings_of([names[i] for i in fresh]),
                                    *(arrow_of(stamp[c][fresh]) for c in _STAMP_TYPES),
                                    strings_of(keys[fresh].tolist())], schema=_SCHEMA)
        if cached is not None:  # the rows of every other file stay
            new = pa.concat_tables([cached.filter(pc.invert(pc.is_in(cached["name"], value_set=new["name"]))), new])
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(cache_file) as tmp:
            with pa.ipc.new_file(str(tmp), _SCHEMA) as writer:
                writer.write_table(new.sort_by("name"))
    return dict(zip(names, keys.tolist()))
