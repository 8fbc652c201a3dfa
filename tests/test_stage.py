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


def test_a_job_process_ends_when_its_stage_is_done_with_its_log_and_output_flushed(tmp_path):
    """In a job's own process (the script is the main program, ``snakemake`` its job object) the
    stage ends the process once its outputs are written: exit status 0, the log and a pending
    stdout line flushed, nothing after run_stage run (the interpreter's teardown skipped)."""
    import subprocess
    import sys
    from pathlib import Path

    import inexflow

    src = str(Path(inexflow.__file__).resolve().parents[1])
    log, out, after = tmp_path / "job.log", tmp_path / "table.tsv", tmp_path / "after"
    script = tmp_path / "stage.py"
    script.write_text(f"""import sys
from types import SimpleNamespace
sys.path.insert(0, {src!r})
from inexflow.campaign.stage import run_stage
snakemake = SimpleNamespace(rule="r", input=[], output=[{str(out)!r}], log=[{str(log)!r}], params=SimpleNamespace())
def main(smk, log):
    open(smk.output[0], "w").write("x\\n")
    log.info("stage ran")
    sys.stdout.write("a pending line")
run_stage(main, snakemake)
open({str(after)!r}, "w").write("reached")
""")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "a pending line" and p.stderr == ""
    assert out.read_text() == "x\n" and "stage ran" in log.read_text() and "rule r done in" in log.read_text()
    assert not after.exists()


def test_a_stage_called_outside_a_job_process_returns(tmp_path):
    """run_stage in a process whose main program is not the job's script (a test, a notebook)
    returns to its caller."""
    ran = []
    run_stage(lambda smk, log: ran.append(1), job(tmp_path))
    assert ran == [1] and "rule r done in" in (tmp_path / "r.log").read_text()
