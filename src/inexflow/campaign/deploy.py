"""Where the Snakemake workflow lives, and ``inexflow workflow init DIR``: deploy it as a module.

The workflow files reach a user two ways, found in this order:

- the wheel carries them as ``inexflow/_workflow`` (the repository's ``Snakefile``, ``workflow/``
  and ``scripts/``, laid out as in the repository) and ``inexflow/_config`` (its ``config/``);
- a source checkout (``pip install -e .``) has them in the repository root, beside ``src/``.

:func:`init` writes what ``snakedeploy deploy-workflow`` writes (a ``workflow/Snakefile`` that
uses the inexflow workflow as a Snakemake ``module``, plus a copy of ``config/``) but with the
module's Snakefile found by :func:`workflow_snakefile` when the deployment runs: the workflow
of the inexflow installed in the Python that runs Snakemake, whose library its rules import, so
the two always come from one installation, and no absolute path is written into the deployment
(``snakemake --lint`` refuses one). (snakedeploy 0.17 writes ``"workflow/Snakefile"`` for a
local source, which Snakemake resolves against the deployment's own ``workflow/`` folder, where
it is not.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from inexflow import __version__
from inexflow.errors import UsageError
from inexflow.io.atomic import write_text

_HERE = Path(__file__).resolve().parents[1]  # the inexflow package

# what a successful `snakemake` call of the workflow loaded in this process ends with (the files
# of runs no longer in the config removed, and where the results are): the workflow's common.smk
# registers it, and a deployment's Snakefile (module_snakefile) runs it from its onsuccess, since
# Snakemake runs the onsuccess of the main Snakefile alone, not the module's
_FINISH: list = []


def register_finish(step) -> None:
    """Make ``step`` (no arguments) what :func:`finish` runs."""
    _FINISH[:] = [step]


def finish() -> None:
    """Run the step the workflow registered (:func:`register_finish`), if any."""
    for step in _FINISH:
        step()


def _first_dir(candidates, marker: str) -> Path | None:
    for d in candidates:
        if (d / marker).is_file():
            return d
    return None


def workflow_dir() -> Path:
    """The directory holding the workflow's entry ``Snakefile``, ``workflow/`` (rules, schemas,
    envs, report, profiles) and ``scripts/``: the repository root, or its copy in the wheel."""
    d = _first_dir((_HERE / "_workflow", _HERE.parents[1]), "Snakefile")
    if d is None:
        raise UsageError(f"this inexflow installation ({_HERE}) holds no workflow files: reinstall it from a wheel "
                         "or a source checkout")
    return d


def config_dir() -> Path:
    """The directory of the config templates (``config.yaml``, ``README.md``, ``campaigns/``)."""
    d = _first_dir((_HERE / "_config", _HERE.parents[1] / "config"), "config.yaml")
    if d is None:
        raise UsageError(f"this inexflow installation ({_HERE}) holds no config templates")
    return d


def workflow_snakefile() -> str:
    """The workflow's entry ``Snakefile`` in this installation (:func:`workflow_dir`): the module
    a deployment made by :func:`init` uses."""
    return str(workflow_dir() / "Snakefile")


def module_snakefile(version: str) -> str:
    """The deployment's ``workflow/Snakefile``: the inexflow workflow used as a Snakemake module."""
    return f'''# An inexflow campaign, deployed by `inexflow workflow init` (inexflow {version}).
# The rules are those of the inexflow workflow, used as a Snakemake module; edit
# config/config.yaml (see config/README.md) and run `snakemake --cores all` here.
from snakemake.utils import min_version

min_version("9.1.4")

# the workflow of the inexflow installed in this Python (its rules import that library)
try:
    from inexflow.campaign.deploy import finish, workflow_snakefile
except ImportError as e:
    raise SystemExit(
        f"inexflow: error: the inexflow library is not installed in this Python ({{e}}): "
        "pip install '.[workflow]' in a clone of inexflow"
    )


configfile: "config/config.yaml"


module inexflow:
    snakefile:
        workflow_snakefile()
    config:
        config


use rule * from inexflow


# as the workflow's own Snakefile ends (Snakemake runs this Snakefile's onsuccess, not the
# module's): the files of runs no longer in the config removed, and where the results are.
# Snakemake keeps one onsuccess: to add your own, call finish() in it, or that step is skipped.
onsuccess:
    finish()
'''


def init(dest, force: bool = False) -> list[Path]:
    """Deploy the workflow into ``dest``: ``workflow/Snakefile`` (the module declaration),
    ``workflow/profiles/`` and ``config/``. Existing files are kept unless ``force``; returns
    the paths written."""
    dest = Path(dest)
    wf, cfg = workflow_dir(), config_dir()
    targets = [dest / "workflow" / "Snakefile", dest / "workflow" / "profiles", dest / "config"]
    existing = [str(t) for t in targets if t.exists()]
    if existing and not force:
        raise UsageError(f"{', '.join(existing)} already exist{'s' if len(existing) == 1 else ''}: "
                         "deploy into a new directory, or give --force to overwrite")
    write_text(module_snakefile(__version__), targets[0])
    shutil.copytree(wf / "workflow" / "profiles", targets[1], dirs_exist_ok=True)
    shutil.copytree(cfg, targets[2], dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    return targets
