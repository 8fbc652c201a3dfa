#!/usr/bin/env bash
# Snakemake runs this once inside the new environment of inexflow.yaml (--sdm conda).
# It installs the inexflow library: from the checkout this workflow lives in (editable, so
# the rules run the same code as the Snakemake process); without a checkout (a deployment made
# by inexflow workflow init) there is nothing to install from: inexflow is not on PyPI yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -f "$root/pyproject.toml" ] && [ -f "$root/src/inexflow/__init__.py" ]; then
  python -m pip install --quiet --no-deps --no-build-isolation -e "$root"
else
  echo "inexflow: error: no checkout of inexflow holds this workflow ($root), and inexflow is not on PyPI" \
    "yet: run snakemake --sdm conda in a clone of inexflow" >&2
  exit 1
fi
python -c "import inexflow; print('inexflow', inexflow.__version__, 'installed in', __import__('sys').prefix)"
