"""pandas imported on first use, for the modules the Snakefile imports.

Building the DAG imports the measure registry, the run and assessment readers and the
analyses' measure lists, to check the config (families, measures, tasks, quantisations)
before anything runs; none of it touches a table. Importing pandas would cost every
``snakemake`` call, a dry run or a SLURM job's own Snakemake, about 0.2 s (Snakemake
imports numpy itself). Those modules therefore write ``pd = pandas_on_first_use(globals())``
instead of ``import pandas as pd``: until one of ``pd``'s attributes is used, ``pd`` is a
stand-in; on the first use it imports pandas and puts the module itself in the caller's
namespace, so that from then on ``pd`` is pandas (no cost per call). Annotations are not
evaluated (``from __future__ import annotations``), so ``pd.DataFrame`` in a signature does
not count as a use. ``tests/test_workflow.py`` checks that building the DAG imports no pandas.
"""

from __future__ import annotations

import sys


class _PandasOnFirstUse:
    __slots__ = ("_namespace",)

    def __init__(self, namespace: dict):
        self._namespace = namespace

    def __getattr__(self, name):
        import pandas

        self._namespace["pd"] = pandas
        return getattr(pandas, name)

    def __repr__(self):
        return "<pandas, imported on first use>"


def pandas_on_first_use(namespace: dict):
    """pandas itself when it is imported already, else a stand-in that imports it on the first
    attribute use and then replaces itself with it as ``pd`` in ``namespace`` (the calling
    module's ``globals()``)."""
    return sys.modules.get("pandas") or _PandasOnFirstUse(namespace)


def spare_snakemake_pandas() -> None:
    """Snakemake (9.x) imports pandas when it checks whether a job's params changed, only to
    recognise pandas objects among them (``PersistenceBase._serialize_param_pandas``). While
    pandas is not imported no value can be a pandas object, so Snakemake's built-in
    serialiser gives exactly the same result: use it until then. Without those two methods
    (another Snakemake) nothing is changed."""
    try:
        from snakemake.persistence import PersistenceBase
    except ImportError:
        return
    with_pandas = getattr(PersistenceBase, "_serialize_param_pandas", None)
    builtin = getattr(PersistenceBase, "_serialize_param_builtin", None)
    if with_pandas is None or builtin is None or getattr(with_pandas, "spares_pandas", False):
        return

    def serialize(self, value):
        return builtin(self, value) if "pandas" not in sys.modules else with_pandas(self, value)

    serialize.spares_pandas = True
    PersistenceBase._serialize_param_pandas = serialize
