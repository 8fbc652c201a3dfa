"""inexflow: evaluation of INEX-style XML element and passage retrieval campaigns.

The library is organised as one module per input format (:mod:`inexflow.io`),
per measure family (:mod:`inexflow.measures`) and per analysis, with the Snakemake
workflow (the repository's ``Snakefile``, rules in ``workflow/rules``) calling thin stage
scripts in ``scripts/``.
Notebook use: ``inexflow.evaluate(qrels, run, ["MAiP", "iP[0.01]"], task="focused")``
(:mod:`inexflow.front.api`).
"""

import importlib

__version__ = "0.1.0"

# The notebook API, imported on first use so that ``import inexflow`` stays cheap:
# inexflow.evaluate(assessments, run, measures, task=...), inexflow.read_assessments(path),
# inexflow.read_run(path), inexflow.Options (every scoring option and its default).
_API = {"evaluate": "inexflow.front.api", "read_assessments": "inexflow.model.assessments",
        "read_run": "inexflow.model.runs", "Options": "inexflow.model.options", "Session": "inexflow.measures.session"}
__all__ = ["__version__", "evaluate", "read_assessments", "read_run", "Options", "Session"]  # noqa: RUF022
assert set(__all__[1:]) == set(_API)


def __getattr__(name):
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'inexflow' has no attribute {name!r}")
