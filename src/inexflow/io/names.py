"""What a run file's run is called where its run id will not do (docs/formats.md#run-names):
the workflow files every run under :func:`run_name` (run ids need not be unique: the real
INEX 2009 runs all say ``TREC2INEX``), and ``inexflow compare`` falls back on it for runs that
share a run id. ``inexflow score`` prints run ids, as the official tools do."""

from __future__ import annotations

import re
from pathlib import Path

# the suffixes of the compressions inexflow reads (inexflow.io.compressed), which a run's name leaves out
COMPRESSION_SUFFIX = re.compile(r"\.(gz|bz2|xz|zst)$")


def run_name(path) -> str:
    """The file name without its extension nor compression suffix: ``runs/g01-fol-1.txt.gz``
    is ``g01-fol-1``."""
    bare = COMPRESSION_SUFFIX.sub("", Path(path).name)
    return bare.rsplit(".", 1)[0] if "." in bare else bare
