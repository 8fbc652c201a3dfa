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
not count as a use. ``tests/test_lazy.py`` checks these modules, and
``tests/test_workflow.py`` that Snakemake's process imports no pandas while it builds the DAG
and runs a job (with :func:`spare_snakemake_pandas`).
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
    """Snakemake (9.x) imports pandas (and polars, when installed) in its own process only to
    recognise pandas objects among a job's params: when it checks whether they changed
    (``PersistenceBase._serialize_param_pandas``, building the DAG) and when it writes a
    script job's preamble (``Snakemake._safely_store_params``, before the first job starts).
    While pandas and polars are not imported no value can be one of their objects, so
    Snakemake's own handling of plain values gives exactly the same result: use it until then
    (tested against Snakemake's methods). Where those methods are missing (another
    Snakemake), nothing is changed."""
    try:
        from snakemake.iocontainers import Params, Snakemake
        from snakemake.persistence import PersistenceBase
    except ImportError:
        return
    with_pandas = getattr(PersistenceBase, "_serialize_param_pandas", None)
    builtin = getattr(PersistenceBase, "_serialize_param_builtin", None)
    if with_pandas is not None and builtin is not None and not getattr(with_pandas, "spares_pandas", False):
        def serialize(self, value):
            return builtin(self, value) if "pandas" not in sys.modules else with_pandas(self, value)

        serialize.spares_pandas = True
        PersistenceBase._serialize_param_pandas = serialize
    store = getattr(Snakemake, "_safely_store_params", None)
    if store is not None and not getattr(store, "spares_pandas", False):
        def safely_store_params(self, params):
            import numpy as np  # Snakemake has imported it already

            if "pandas" in sys.modules or "polars" in sys.modules or any(isinstance(v, np.ndarray) for v in params):
                return store(self, params)
            # what Snakemake stores when no value is a table or an array
            self._params_store = Params(toclone=list(params))
            self._params_types = {}
            self._params_store._take_names(params._get_names())

        safely_store_params.spares_pandas = True
        Snakemake._safely_store_params = safely_store_params
