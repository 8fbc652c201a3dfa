"""The demo campaign through a real single-node SLURM (opt-in: ``pytest -m slurm``; .ci/run
starts SLURM with workflow/slurm/start-single-node.sh first). The results must be
byte-identical to a local run."""
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT, assert_same_tree, snakemake
from inexflow.simulate.simconfig import SimulationConfig
from inexflow.simulate.simulate import simulate

pytestmark = pytest.mark.slurm

TINY = SimulationConfig(seed=11, n_docs=40, n_topics=3, n_groups=2, results_per_topic=20, pool_target=10,
                        tasks=("thorough", "focused", "fol"))


def campaign(workdir):
    simulate(workdir / "demo", TINY)
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["pool"]["target"] = 10
    cfg["analysis"]["samples"] = 3
    cfg["analysis"]["significance"]["splits"] = 5
    cfg["analysis"]["significance"]["bootstrap"] = 500
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))


def test_demo_through_slurm_matches_local(tmp_path):
    if shutil.which("sinfo") is None or subprocess.run(["sinfo", "-h"], capture_output=True).returncode != 0:
        pytest.skip("no SLURM controller: run workflow/slurm/start-single-node.sh (as root) first")
    local, slurm = tmp_path / "local", tmp_path / "slurm"
    campaign(local)
    campaign(slurm)
    p = snakemake(local, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    p = snakemake(slurm, "--workflow-profile", str(ROOT / "workflow" / "profiles" / "slurm"), "--jobs", "8")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "slurm" in (p.stdout + p.stderr).lower()
    assert_same_tree(local / "results", slurm / "results")
