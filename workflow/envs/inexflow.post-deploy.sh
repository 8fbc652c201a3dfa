#!/usr/bin/env bash
# Snakemake runs this once inside the new environment of inexflow.yaml (--sdm conda).
# It installs the inexflow library: from the checkout this workflow lives in (editable, so
# the rules run the same code as the Snakemake process), or, when the workflow was used as
# a remote module and no checkout is at hand, the release from PyPI.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -f "$root/pyproject.toml" ] && [ -f "$root/src/inexflow/__init__.py" ]; then
  python -m pip install --quiet --no-deps --no-build-isolation -e "$root"
else
  python -m pip install --quiet --no-deps inexflow
fi
python -c "import inexflow; print('inexflow', inexflow.__version__, 'installed in', __import__('sys').prefix)"
