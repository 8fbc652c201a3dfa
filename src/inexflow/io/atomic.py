"""Writing an output atomically: to a temporary file beside it, renamed into place on success,
so that a killed job or a full disk never leaves a half-written output that a re-run would
trust. Free of pandas: the workflow's own process (the Snakefile) and the light stages use it."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from inexflow.errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FULL = (errno.ENOSPC, errno.EDQUOT)


def _cannot_write(path, e: OSError) -> InputError:
    """The one-line error, naming ``path``, for an output that cannot be written: the disk (or
    the quota) is full, or another reason (a directory there, no permission). pyarrow reports a
    full disk as an OSError whose errno is not always set, so its message is read too."""
    if e.errno in _FULL or "No space left on device" in str(e) or "Disk quota exceeded" in str(e):
        return InputError(path, None, "cannot write this output: the disk is full (no space left on device); "
                          "nothing was left half-written", "free space on its filesystem, then run again")
    return InputError(path, None, f"cannot write this output ({e.strerror or e}); nothing was written",
                      "a path where a file can be written")


@contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; rename it to ``path`` on success. The file
    gets the permissions a plain ``open`` would give (0666 less the umask), not mkstemp's 0600.
    On any failure the temporary file is removed; a full disk is an
    :class:`~inexflow.errors.InputError` naming ``path``."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise _cannot_write(path, e) from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise _cannot_write(path, e) from None
        raise


def write_text(text: str, path):
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def write_json(obj, path):
    write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", path)
