#!/usr/bin/env bash
# Snakemake runs this once inside the new environment of inexflow.yaml (--sdm conda).
# It installs the inexflow library from the checkout of inexflow the workflow runs in (editable,
# so the rules run the same code as the Snakemake process): the one holding this script, or,
# where Snakemake runs a copy of it from elsewhere (--conda-prefix), the working directory.
# Without a checkout (a deployment made by inexflow workflow init) there is nothing to install
# from: inexflow is not on PyPI yet.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
for root in "$here" "$PWD"; do
  if [ -f "$root/pyproject.toml" ] && [ -f "$root/src/inexflow/__init__.py" ]; then
    python -m pip install --quiet --no-deps --no-build-isolation -e "$root"
    python -c "import inexflow; print('inexflow', inexflow.__version__, 'installed in', __import__('sys').prefix)"
    exit 0
  fi
done
echo "inexflow: error: no checkout of inexflow holds this workflow ($here) or the working directory ($PWD)," \
  "and inexflow is not on PyPI yet: run snakemake --sdm conda in a clone of inexflow" >&2
exit 1
