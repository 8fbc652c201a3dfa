"""Errors and warnings about user input.

Every problem with an input file is reported as an :class:`InputError` that names
the file, the place in it (line number or XML element) and what is wrong, so that the
CLI and the stage scripts can print one clear line and exit non-zero instead of a
traceback. Legal-but-odd input is reported through :func:`warn_input`.
"""

from __future__ import annotations

import logging

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


def read_bytes(path, what: str = "file") -> bytes:
    """The bytes of an input file; a missing or unreadable file is an :class:`InputError`."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except IsADirectoryError:
        raise InputError(path, None, f"is a directory, not a {what}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read {what}: {e.strerror or e}") from None


def decode_text(path, data: bytes) -> str:
    """UTF-8 text of an input file without its byte order mark. Bytes that are not UTF-8 and
    NUL bytes are an :class:`InputError` naming the line and the byte."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(path, f"line {line}", "NUL byte", "UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(path, f"line {line}", f"byte 0x{data[e.start]:02x} at column {col} is not UTF-8",
                         "UTF-8 text") from None


class UsageError(ValueError):
    """A wrong option or config value (unknown family, quantisation of another scale, ...):
    reported like an input error, one line and a non-zero exit. Any other exception is a
    programming error and is reported as such (with ``--debug``, its traceback)."""


class ConfigError(UsageError):
    """A wrong workflow config (a missing or misspelt key, a measure, task or quantisation the
    campaign does not have), found before any job runs."""


def warn_input(path, where, problem):
    """Log a warning about input that is legal but odd."""
    loc = str(path) if where in (None, "") else f"{path}:{where}"
    log.warning("%s: %s", loc, problem)
