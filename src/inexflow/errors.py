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


def warn_input(path, where, problem):
    """Log a warning about input that is legal but odd."""
    loc = str(path) if where in (None, "") else f"{path}:{where}"
    log.warning("%s: %s", loc, problem)
