"""The ``sitecustomize`` of a local run's jobs: hand a stage script to the stage server before
Snakemake's preamble runs (:mod:`inexflow.stageserver`).

Snakemake runs a ``script:`` job as ``python .snakemake/scripts/tmpXXXX.RULE.py``, a copy of
the stage script behind a preamble that imports Snakemake (``snakemake.iocontainers``,
``snakemake.logging``: about 0.1 s) to unpickle the job's ``snakemake`` object. The stage
script's own :func:`~inexflow.stageserver.hand_over` call comes after that preamble, so every
served job paid those imports in its own process before the server took over.

:func:`inexflow.stageserver.start` copies this file as ``sitecustomize.py`` into the server's
private folder and puts that folder first on ``PYTHONPATH`` for the run's jobs. Python imports
``sitecustomize`` while it starts (:mod:`site`), before the script: when the script is a
Snakemake script of this workflow's stages (it calls ``hand_over`` itself) the job is handed
over right then, and the server runs the whole file, preamble included, as before. Anything
else (another script, another Python, no server) only has the folder taken off ``sys.path``
again, and the interpreter's own ``sitecustomize``, if it has one, is run in its place.

Stdlib only at import, and only syntax every Python 3 reads: any Python a job starts imports it.
"""

import os
import sys

# the variable a local run's Snakemake sets for its jobs (inexflow.stageserver reads this name)
ENV = "INEXFLOW_STAGE_SERVER"
# a stage script of this workflow says so: it hands itself over (workflow/scripts/*.py)
_MARK = b"from inexflow.stageserver import hand_over"


def _is_stage_script(path):
    if ENV not in os.environ or not path.endswith(".py"):
        return False
    if os.path.basename(os.path.dirname(os.path.abspath(path))) != "scripts":  # .snakemake/scripts/
        return False
    try:
        with open(path, "rb") as f:
            return _MARK in f.read()
    except OSError:
        return False


def _hand_over():
    if sys.argv and _is_stage_script(sys.argv[0]):
        try:
            from inexflow.stageserver import hand_over
        except ImportError:  # a Python without the library
            return
        hand_over()  # exits with the job's status when served; returns when not


def _run_own_sitecustomize():
    """Leave ``sys.path`` as it would be without this folder, and run the ``sitecustomize``
    this one shadows (Debian's Python has one), as :mod:`site` would have."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if not p or os.path.abspath(p) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    _hand_over()
    _run_own_sitecustomize()
