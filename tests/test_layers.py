"""The layers: what the workflow's Snakefile imports (the measure registry, the config, the
campaign model, the options, the stage runtime) loads neither pandas nor the families' code."""
import subprocess
import sys

import pytest

from inexflow.measures import registry


def imported_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split())


@pytest.mark.parametrize("statement", [
    "import inexflow.measures.registry",
    "import inexflow.front.cli",  # --help, --version, check-config, workflow init
    # workflow/rules/common.smk's imports
    "from inexflow.campaign.config import prepare_config\nfrom inexflow.campaign.stage import code_fingerprint\n"
    "from inexflow.campaign.tasks import runs_of, task_options\nfrom inexflow.measures.registry import needs, "
    "table_cutoffs\nfrom inexflow.model.options import Options",
])
def test_what_the_snakefile_imports_loads_no_pandas(statement):
    modules = imported_after(statement)
    assert "pandas" not in modules
    assert not {m for m in modules if m.startswith("inexflow.measures.") and m != "inexflow.measures.registry"}


def test_every_family_is_declared_with_a_loadable_scorer():
    for name, family in registry.FAMILIES.items():
        assert family.name == name and callable(family.score_function())
        assert family.measures({}) and set(family.defaults()) >= set(registry.TOPIC_OPTIONS)
