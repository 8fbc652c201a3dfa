"""Compressed inputs: every reader gets an input file's bytes through :func:`read_bytes` (the
whole file) or :func:`open_bytes` (a stream, for the readers and sniffers that look at the first
bytes only), which decompress gzip, bzip2 and xz files (and zstd files when the ``zstandard``
module is installed) with the standard library.

The compression is recognised from the file's first bytes (its magic number), never from its
name: ``qrels.fol.gz``, ``qrels.fol`` holding gzip data and a plain ``run.gz`` are all read as
what they hold. A plain file costs nothing more than before: :func:`read_bytes` reads it once
and looks at the first six bytes of what it read; :func:`open_bytes` reads six bytes and seeks
back. A truncated or corrupt archive is one :class:`~inexflow.errors.InputError` naming the file
(``FILE: truncated gzip archive (...)``), and so is one that decompresses to more than
:data:`MAX_INFLATED` bytes (a decompression bomb).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zlib

from inexflow.errors import InputError, open_input
from inexflow.errors import read_bytes as read_raw_bytes

# magic numbers (RFC 1952; bzip2's "BZh" + block size 1-9; the xz and zstd file formats)
MAGIC = (("gzip", b"\x1f\x8b"), ("bzip2", b"BZh"), ("xz", b"\xfd7zXZ\x00"), ("zstd", b"\x28\xb5\x2f\xfd"))
HEAD = 6  # bytes enough to tell them apart


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``bzip2``, ``xz`` or ``zstd`` when ``head`` (a file's first bytes) starts with
    that format's magic number, else None (plain data)."""
    for name, magic in MAGIC:
        if head.startswith(magic) and (name != "bzip2" or head[3:4].isdigit()):
            return name
    return None


def _zstandard(path):
    try:
        import zstandard
    except ImportError:
        raise InputError(path, None, "is zstd-compressed and the zstandard module is not installed",
                         "gzip, bzip2, xz or plain data (or `pip install zstandard`)") from None
    return zstandard


def _stream(path, name: str, raw):
    """A decompressing reader of ``raw`` (a binary file positioned at its start)."""
    if name == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if name == "bzip2":
        return bz2.BZ2File(raw, "rb")
    if name == "xz":
        return lzma.LZMAFile(raw, "rb")
    return _zstandard(path).ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=True)


MAX_INFLATED = 1 << 30  # 1 GiB: more decompressed data than any INEX or TREC input file holds
_CHUNK = 1 << 24


def _decompress(path, name: str, data: bytes, limit: int = MAX_INFLATED) -> bytes:
    """``data`` decompressed, chunk by chunk, refused past ``limit`` bytes (a decompression
    bomb: a few megabytes that would fill the memory)."""
    out, size = [], 0
    with _stream(path, name, io.BytesIO(data)) as fh:
        while chunk := fh.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise InputError(path, None, f"decompresses to more than {limit >> 20} MiB ({name}, "
                                 f"{len(data) >> 20} MiB compressed): refused as a decompression bomb",
                                 "an input that unpacks to a sensible size (unpack it yourself if it is real)")
            out.append(chunk)
    return b"".join(out)


def _archive_error(path, name: str, e: Exception) -> InputError:
    """The :class:`InputError` of a decompression failure: truncated (the data ends before the
    archive does) or corrupt (anything else: a bad checksum, bytes that are no such data)."""
    msg = str(e) or type(e).__name__
    kind = "truncated" if isinstance(e, EOFError) or "end of input" in msg or "ended before" in msg else "corrupt"
    return InputError(path, None, f"{kind} {name} archive ({msg})", f"a complete {name} file")


DECOMPRESSION_ERRORS = (EOFError, OSError, zlib.error, lzma.LZMAError, ValueError)


def read_bytes(path, what: str = "file") -> bytes:
    """The bytes of the input file ``path``, decompressed if it is compressed (module
    docstring). A missing, unreadable or special file, and a truncated or corrupt archive, are an
    :class:`~inexflow.errors.InputError` naming the file."""
    data = read_raw_bytes(path, what)
    name = compression_of(data[:HEAD])
    if name is None:
        return data
    try:
        return _decompress(path, name, data, MAX_INFLATED)
    except InputError:
        raise
    except DECOMPRESSION_ERRORS as e:
        raise _archive_error(path, name, e) from None


class _Checked(io.RawIOBase):
    """A decompressing stream whose decompression errors are :class:`InputError` naming the file."""

    def __init__(self, path, name: str, stream, raw):
        self._path, self._name, self._stream, self._raw = path, name, stream, raw

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        try:
            data = self._stream.read(len(b))
        except DECOMPRESSION_ERRORS as e:
            raise _archive_error(self._path, self._name, e) from None
        b[: len(data)] = data
        return len(data)

    def close(self):
        if not self.closed:
            self._stream.close()
            self._raw.close()
        super().close()


def open_bytes(path, what: str = "file"):
    """The input file ``path`` opened for reading bytes, decompressing if it is compressed
    (module docstring); errors as :func:`read_bytes`, a decompression error when it is met."""
    raw = open_input(path, what)
    head = raw.read(HEAD)
    raw.seek(0)
    name = compression_of(head)
    if name is None:
        return raw
    try:
        stream = _stream(path, name, raw)
    except InputError:
        raw.close()
        raise
    return io.BufferedReader(_Checked(path, name, stream, raw))


def read_head(path, size: int, what: str = "file") -> bytes:
    """The first ``size`` bytes of the (decompressed) input file ``path``: what the format
    sniffers look at."""
    with open_bytes(path, what) as fh:
        return fh.read(size)
