"""Errors and warnings about user input.

Every problem with an input file is reported as an :class:`InputError` that names
the file, the place in it (line number or XML element) and what is wrong, so that the
CLI and the stage scripts can print one clear line and exit non-zero instead of a
traceback. Legal-but-odd input is reported through :func:`warn_input`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat

log = logging.getLogger("inexflow")


class InputError(Exception):
    """A problem with one input file, at one place, with what was expected."""

    def __init__(self, path, where, problem, expected=None):
        self.path = str(path)
        self.where = where
        self.problem = problem
        self.expected = expected
        super().__init__(str(self))

    def __reduce__(self):  # picklable, so that worker processes can hand it back
        return (InputError, (self.path, self.where, self.problem, self.expected))

    def __str__(self):
        loc = self.path if self.where in (None, "") else f"{self.path}:{self.where}"
        msg = f"{loc}: {self.problem}"
        if self.expected:
            msg += f" (expected {self.expected})"
        return msg


def _special(path, mode: int, what: str):
    """The :class:`InputError` for a file of ``mode`` that is not a regular file, or None."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return InputError(path, None, f"is a directory, not a {what}")
    kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file")
    return InputError(path, None, f"is {kind}, not a regular file", f"{'an' if what[:1] in 'aeiou' else 'a'} {what}")


def open_input(path, what: str = "file"):
    """An input file opened for reading bytes, once it is known to be a regular file: a
    directory, a FIFO, a device or a socket is an :class:`InputError` before anything is read
    (reading a FIFO would wait for a writer forever, a device would never end), and so is a
    missing or unreadable file."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise InputError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    error = _special(path, st.st_mode, what)
    if error is not None:
        raise error
    try:
        return open(path, "rb")
    except OSError as e:
        raise InputError(path, None, f"cannot read {what}: {e.strerror or e}") from None


def read_bytes(path, what: str = "file") -> bytes:
    """The bytes of an input file; a missing, unreadable or special file is an :class:`InputError`
    (as :func:`open_input`). The file is opened without blocking (a FIFO opens at once) and
    checked by ``fstat`` on what was opened, then read with unbuffered reads: a third of the
    time of :func:`open_input` and ``read`` on small files, which a collection is made of."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise InputError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        error = _special(path, st.st_mode, what)
        if error is not None:
            raise error
        parts = [os.read(fd, st.st_size + 1)]
        while parts[-1]:  # a file that grew since fstat, or a read cut short
            parts.append(os.read(fd, 1 << 20))
        return parts[0] if len(parts) == 2 else b"".join(parts)  # (one read and the empty one: no copy)
    except OSError as e:
        raise InputError(path, None, f"cannot read {what}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def decode_text(path, data: bytes, cr_ends_lines: bool = False) -> str:
    """UTF-8 text of an input file without its byte order mark. Bytes that are not UTF-8 and
    NUL bytes are an :class:`InputError` naming the line and the byte; lines end at newlines,
    and with ``cr_ends_lines`` also at a carriage return alone (as Java's ``readLine`` reads the
    FOL formats)."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # a UTF-16 byte order mark: NUL bytes follow
        raise InputError(path, None, "is UTF-16 text", "UTF-8 text (convert it, e.g. iconv -f UTF-16 -t UTF-8)")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(path, f"line {_line_at(data, nul, cr_ends_lines)[0]}", "NUL byte", "UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_at(data, e.start, cr_ends_lines)
        raise InputError(path, f"line {line}", f"byte 0x{data[e.start]:02x} at column {col} is not UTF-8",
                         "UTF-8 text") from None


def _line_at(data: bytes, pos: int, cr_ends_lines: bool) -> tuple[int, int]:
    """(line, column) of the byte at ``pos``, both from 1."""
    line = data.count(b"\n", 0, pos) + 1
    start = data.rfind(b"\n", 0, pos) + 1
    if cr_ends_lines:  # a carriage return not followed by a newline ends a line too
        line += data.count(b"\r", 0, pos) - data.count(b"\r\n", 0, pos)
        start = max(start, data.rfind(b"\r", 0, pos) + 1)
    return line, pos - start + 1


class UsageError(ValueError):
    """A wrong option or config value (unknown family, quantisation of another scale, ...):
    reported like an input error, one line and a non-zero exit. Any other exception is a
    programming error and is reported as such (with ``--debug``, its traceback)."""


class ConfigError(UsageError):
    """A wrong workflow config (a missing or misspelt key, a measure, task or quantisation the
    campaign does not have), found before any job runs."""


class Problems:
    """The config's errors, collected so that all are reported at once: each check runs in
    ``with problems.check():``, which records its error and goes on."""

    def __init__(self, lines=(), locate=None):
        self.lines: list[str] = list(lines)
        self.locate = locate  # message -> "FILE:line N" of the config key it names, or None

    @contextlib.contextmanager
    def check(self):
        try:
            yield
        except (UsageError, InputError) as e:
            where = self.locate(str(e)) if self.locate else None
            line = f"{where}: {e}" if where else str(e)
            if line not in self.lines:  # one mistake met once per run file is said once
                self.lines.append(line)

    def raise_any(self):
        """One :class:`ConfigError` holding every error found so far, if any."""
        if len(self.lines) == 1:
            raise ConfigError(self.lines[0])
        if self.lines:
            raise ConfigError(f"config has {len(self.lines)} errors (see docs/configuration.md):\n  "
                              + "\n  ".join(self.lines))


def brief(value) -> str:
    """A value as a one-line message names it: its type, and its repr (up to 60 characters, on
    one line) where that is a plain value's."""
    if value is None or isinstance(value, (str, int, float, bool, list, tuple)):
        return f"{type(value).__name__} {' '.join(repr(value).split())[:60]}"
    return f"a {type(value).__name__}"


def require_path(value, what: str, otherwise: str) -> None:
    """A :class:`UsageError` unless ``value`` is a path (a string or an ``os.PathLike``): ``what``
    names the argument, ``otherwise`` what to pass instead (a DataFrame's door)."""
    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{what}: {brief(value)} is not a path ({otherwise})")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, in the plural unless ``count`` is 1 (``plural``, else ``noun``
    + "s"): every count a message gives is said this way."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


# the source a run or assessments made from a DataFrame name (inexflow.front.frames): "<run DataFrame>"
FRAME_SOURCE = "DataFrame>"


def place(source: str, line: int, last: int | None = None) -> str:
    """Where a result is, as a message names it: ``line N`` of a file (``lines N-M`` with
    ``last``); in a DataFrame (a ``source`` ending in :data:`FRAME_SOURCE`), whose ``line`` column
    holds row positions, ``row N`` (from 0, as the frames' own errors count)."""
    unit = "row" if str(source).endswith(FRAME_SOURCE) else "line"
    return f"{unit} {line}" if last is None else f"{unit}s {line}-{last}"


def warn_input(path, where, problem):
    """Log a warning about input that is legal but odd."""
    loc = str(path) if where in (None, "") else f"{path}:{where}"
    log.warning("%s: %s", loc, problem)
