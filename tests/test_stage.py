"""A stage's errors and warnings as a Snakemake job shows them (campaign.stage.run_stage)."""

from types import SimpleNamespace

import pytest

from inexflow.campaign.stage import run_stage
from inexflow.errors import InputError


def job(tmp_path):
    return SimpleNamespace(rule="r", input=[], output=[], log=[str(tmp_path / "r.log")], params=SimpleNamespace())


def test_a_stages_error_is_said_once_on_stderr_and_kept_in_its_log(tmp_path, capsys):
    def bad_input(smk, log):
        log.warning("an odd but legal input")
        raise InputError("runs/a.run", "line 7", "7 columns", "8 as on the first line")

    with pytest.raises(SystemExit) as e:
        run_stage(bad_input, job(tmp_path))
    err = capsys.readouterr().err.splitlines()
    message = "rule r failed: runs/a.run:line 7: 7 columns (expected 8 as on the first line)"
    assert e.value.code == 1 and err == ["inexflow: warning: rule r: an odd but legal input", f"inexflow: error: {message}"]
    logged = (tmp_path / "r.log").read_text()
    assert f"ERROR {message}" in logged and "WARNING an odd but legal input" in logged


def test_an_internal_error_is_one_line_on_stderr_and_its_traceback_goes_to_the_log(tmp_path, capsys):
    def broken(smk, log):
        return {}["missing"]

    with pytest.raises(SystemExit) as e:
        run_stage(broken, job(tmp_path))
    err = capsys.readouterr().err.splitlines()
    assert e.value.code == 1 and len(err) == 1
    assert err[0].startswith("inexflow: internal error: rule r failed: KeyError: 'missing' (traceback in ")
    assert "Traceback (most recent call last)" in (tmp_path / "r.log").read_text()
