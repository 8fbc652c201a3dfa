"""The dependency lists agree: pyproject.toml is the truth, environment.yml and the rules'
conda environment (workflow/envs/inexflow.yaml) mirror it with the same floors."""
import re
import tomllib

import yaml

from conftest import ROOT

# conda-forge names of the PyPI packages where they differ
CONDA_NAME = {"snakemake": "snakemake-minimal"}


def floors(specs) -> dict[str, str]:
    out = {}
    for s in specs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", s.strip())
        assert m, f"not a NAME>=FLOOR spec: {s!r}"
        out[CONDA_NAME.get(m[1].lower(), m[1].lower())] = m[2]
    return out


def conda_floors(path) -> dict[str, str]:
    deps = yaml.safe_load(path.read_text())["dependencies"]
    return floors(d for d in deps if isinstance(d, str) and ">=" in d and not d.startswith(("python ", "setuptools")))


def test_environment_files_mirror_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = floors(project["dependencies"])
    assert conda_floors(ROOT / "workflow" / "envs" / "inexflow.yaml") == runtime
    assert conda_floors(ROOT / "environment.yml") == runtime | floors(project["optional-dependencies"]["workflow"])
