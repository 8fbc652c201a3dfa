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
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from inexflow.errors import InputError, open_input
from inexflow.io.tables import atomic_path

_COLUMNS = ("name", "dev", "ino", "size", "mtime_ns", "ctime_ns", "key")


def content_key(path) -> str:
    """The BLAKE2b digest (16 bytes, hex) of a file's bytes."""
    h = hashlib.blake2b(digest_size=16)
    with open_input(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_cache(cache_file: Path, only: Mapping | None = None) -> dict[str, tuple]:
    """{name: (dev, ino, size, mtime_ns, ctime_ns, key)} from the cache table, of the names in
    ``only`` when given (selected in Arrow: a shard's ten thousand of a collection's
    million). A missing, unreadable or older-shaped table is only a cold cache: {}."""
    try:
        t = pq.read_table(cache_file)
        if only is not None and len(only) < t.num_rows // 4:
            t = t.filter(pc.is_in(t["name"], value_set=pa.array(list(only), pa.string())))
        t = t.to_pydict()
        return {n: row for n, *row in zip(*(t[c] for c in _COLUMNS))}
    except (OSError, KeyError, pa.ArrowException):
        return {}


def file_keys(paths: Mapping[str, Path | str], cache_file, what: str = "file") -> dict[str, str]:
    """{name: content key} of the files ``paths`` ({name: path}), hashing only those whose
    (device, inode, size, mtime_ns, ctime_ns) the table ``cache_file`` does not hold; the
    table (of every name it ever held) is rewritten atomically when anything was hashed. A
    file that cannot be read is an :class:`~inexflow.errors.InputError` naming it."""
    cache_file = Path(cache_file)
    known = _read_cache(cache_file, paths)
    keys, fresh = {}, 0
    for name, path in paths.items():
        try:
            st = os.stat(path)
        except OSError as e:
            raise InputError(path, None, f"{what} cannot be read: {e.strerror}") from None
        stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        row = known.get(name)
        if row is None or tuple(row[:5]) != stamp:
            try:
                row = (*stamp, content_key(path))
            except OSError as e:
                raise InputError(path, None, f"{what} cannot be read: {e.strerror}") from None
            except InputError as e:  # a special file: named as the caller's kind of input
                raise InputError(path, None, e.problem, f"a {what}") from None
            known[name] = row
            fresh += 1
        keys[name] = row[5]
    if fresh:
        known = {**_read_cache(cache_file), **known}  # the rows of the other files too
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        names = sorted(known)
        table = pa.table({"name": names, **{c: [known[n][i] for n in names] for i, c in enumerate(_COLUMNS[1:])}})
        with atomic_path(cache_file) as tmp:
            pq.write_table(table, tmp)
    return keys
