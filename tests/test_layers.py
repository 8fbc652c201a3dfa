"""The layers: what the workflow's Snakefile imports (the measure registry, the config, the
campaign model, the options, the stage runtime) loads neither pandas nor the families' code."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from inexflow.measures import registry


def imported_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split())


@pytest.mark.parametrize("statement", [
    "import inexflow.measures.registry",
    "import inexflow.front.cli",  # --help, --version, check-config, workflow init
    "from inexflow.model.options import Options",
])
def test_what_the_snakefile_imports_loads_no_pandas(statement):
    modules = imported_after(statement)
    assert "pandas" not in modules
    assert not {m for m in modules if m.startswith("inexflow.measures.") and m != "inexflow.measures.registry"}


def test_the_report_job_loads_no_pandas():
    """The report job (scripts/report.py) reads a few small TSVs: pandas' import alone would be
    most of its time, on the last step of every re-run."""
    statement = "\n".join(line for line in (Path(__file__).parents[1] / "scripts" / "report.py").read_text().splitlines()
                          if line.startswith(("from ", "import ")))
    assert "pandas" not in imported_after(statement)


def test_the_workflows_own_process_loads_no_pandas():
    """Every import of workflow/rules/common.smk (the library's part of the Snakefile, which
    each snakemake call, and on a cluster each job's Snakemake process, runs), read from the
    file itself: it plans the collection's shards and hashes the inputs without pandas."""
    text = (Path(__file__).parents[1] / "workflow" / "rules" / "common.smk").read_text()
    block = text[text.index("try:\n") + len("try:\n"):text.index("except ImportError")]
    assert "from inexflow.model.shard_plan import" in block and "from inexflow.io.content_keys import" in block
    modules = imported_after(textwrap.dedent(block))
    assert "pandas" not in modules
    assert not {m for m in modules if m.startswith("inexflow.measures.") and m != "inexflow.measures.registry"}


def test_every_family_is_declared_with_a_loadable_scorer():
    for name, family in registry.FAMILIES.items():
        assert family.name == name and callable(family.score_function())
        assert family.measures({}) and set(family.defaults()) >= set(registry.TOPIC_OPTIONS)


def test_planning_a_campaign_and_hashing_its_inputs_loads_no_pandas(tmp_path):
    """What each snakemake call does before its first job on a campaign whose files are there,
    run for real: a config of two focused runs prepared (schema, tasks, the analyses the data
    allows), and the inputs' content keys hashed with a cold cache, read from it, and one file
    hashed again after a change. pyarrow imports pandas on its conversions from Python objects
    (``pa.array``, ``pa.scalar``, ``pq.read_table``), about a quarter of a second of every call.
    (A campaign still to be simulated loads the simulator, and pandas with it, until it is.)"""
    root = Path(__file__).parents[1]
    qrels = tmp_path / "q.fol"
    qrels.write_text("1 Q0 d1 10 100 1 0:10\n2 Q0 d2 5 50 1 5:5\n")
    files = [tmp_path / "runs" / f"r{i}.run" for i in range(2)]
    files[0].parent.mkdir()
    for i, f in enumerate(files):
        f.write_text(f"1 Q0 d1 1 1.0 r{i} {i} 10\n2 Q0 d2 1 1.0 r{i} 0 {5 + i}\n")
    config = {"campaign": "t", "assessments": {"path": str(qrels)},
              "runs": [{"path": str(tmp_path / "runs" / "*"), "task": "focused"}]}
    code = textwrap.dedent(f"""
        import sys
        from inexflow.campaign.config import prepare_config
        from inexflow.io.content_keys import file_keys
        campaign = prepare_config({config!r}, schema={str(root / 'workflow' / 'schemas' / 'config.schema.yaml')!r})
        assert campaign.analyses, campaign.analyses
        paths = {{p: p for p in {[str(f) for f in files]!r}}}
        cache = {str(tmp_path / 'keys.parquet')!r}
        first = file_keys(paths, cache)
        assert file_keys(paths, cache) == first
        open({str(files[0])!r}, "a").write("3 Q0 d3 1 1.0 r0 0 10\\n")
        assert file_keys(paths, cache)[{str(files[0])!r}] != first[{str(files[0])!r}]
        print(" ".join(sys.modules))
    """)
    modules = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                 cwd=tmp_path).stdout.split())
    assert "inexflow.campaign.analyses" in modules and "pandas" not in modules
