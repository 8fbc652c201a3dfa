"""inexflow: evaluation of INEX-style XML element and passage retrieval campaigns.

The library is organised as one module per input format (:mod:`inexflow.formats`),
per measure family (:mod:`inexflow.measures`) and per analysis, with the Snakemake
workflow (``Snakefile``, ``workflow/rules``) calling thin stage scripts in ``scripts/``.
"""

__version__ = "0.1.0"
