"""The stage server (inexflow.stageserver): a served script runs in a child of the server with
the job's working directory, umask, environment, standard streams and exit status; without a
server of its own process tree a script runs itself; a killed job takes its child with it."""
import gc
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from inexflow import stageserver, stagesite

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the stage server runs on Linux only")

SCRIPT = '''\
from inexflow.stageserver import hand_over

hand_over()

import os, sys, time
from pathlib import Path

out = Path(sys.argv[0]).with_suffix(".out")
out.write_text(f"{os.getpid()} {os.getppid()} {os.getcwd()} {os.environ.get('STAGE_TEST', '-')} "
               f"{os.environ.get('INEXFLOW_STAGE_SERVER', '-')}")
if sum(len(v) for k, v in os.environ.items() if k.startswith("STAGE_BIG")) not in (0, 600_000):
    sys.exit(5)
(Path.cwd() / "made").write_text("x")
print("to stdout")
print("to stderr", file=sys.stderr)
if os.environ.get("STAGE_SLEEP"):
    time.sleep(60)
if os.environ.get("STAGE_RAISE"):
    raise ValueError("broken stage")
sys.exit(int(os.environ.get("STAGE_EXIT", "0")))
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One stage server for this module's tests (its preload takes a few seconds), on a socket
    in a temporary folder; the last test stops it."""
    path = tmp_path_factory.mktemp("server") / "socket"
    proc = subprocess.Popen([sys.executable, "-m", "inexflow.stageserver", str(path)], stdin=subprocess.PIPE)
    deadline = time.time() + 60
    while True:  # listening once the preload is done
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(path))
            break
        except OSError:
            assert proc.poll() is None and time.time() < deadline, "the stage server did not start"
            time.sleep(0.05)
    yield proc, path
    proc.stdin.close()
    proc.wait(timeout=20)


def spec(path, owner) -> dict:
    """The variable the Snakemake process sets (inexflow.stageserver.start), as JSON."""
    return {"socket": str(path), "owner": owner, "python": sys.executable}


def run_script(tmp_path, spec, umask=0o022, **env):
    script = tmp_path / "stage.py"
    script.write_text(SCRIPT)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    e = dict(os.environ, STAGE_TEST="from-the-job", **env)
    e.pop("INEXFLOW_STAGE_SERVER", None)
    if spec:
        e["INEXFLOW_STAGE_SERVER"] = json.dumps(spec)
    p = subprocess.run([sys.executable, str(script)], cwd=work, env=e, capture_output=True, text=True, umask=umask,
                       timeout=120)
    fields = script.with_suffix(".out").read_text().split() if script.with_suffix(".out").exists() else None
    return p, fields, work


def test_served_script_runs_in_a_child_of_the_server_with_the_jobs_settings(server, tmp_path):
    proc, path = server
    # this test process is an ancestor of the script's process: the server counts as its run's
    p, (pid, ppid, cwd, var, inner), work = run_script(tmp_path, spec(path, os.getpid()), umask=0o027,
                                                       STAGE_EXIT="3")
    assert int(ppid) == proc.pid  # run by a child of the server, not by the script's own process
    assert p.returncode == 3
    assert (p.stdout, p.stderr) == ("to stdout\n", "to stderr\n")
    assert cwd == str(work) and var == "from-the-job" and inner == "-"
    assert (work / "made").stat().st_mode & 0o777 == 0o666 & ~0o027


def test_a_large_environment_reaches_the_served_job_whole(server, tmp_path):
    proc, path = server
    # 600 kB of environment: the server reads the request in several pieces
    big = {f"STAGE_BIG{i}": "x" * 100_000 for i in range(6)}
    p, (pid, ppid, cwd, var, inner), _ = run_script(tmp_path, spec(path, os.getpid()), **big)
    assert int(ppid) == proc.pid and p.returncode == 0


def test_an_error_in_a_served_script_fails_the_job_with_its_traceback(server, tmp_path):
    proc, path = server
    p, (pid, ppid, *_), _ = run_script(tmp_path, spec(path, os.getpid()), STAGE_RAISE="1")
    assert int(ppid) == proc.pid
    assert p.returncode == 1
    assert "ValueError: broken stage" in p.stderr


@pytest.mark.parametrize("case", ["no server", "not its run", "another python", "no variable"])
def test_without_a_server_of_its_own_run_the_script_runs_itself(server, tmp_path, case):
    proc, path = server
    given = {"no server": spec(tmp_path / "missing", os.getpid()), "not its run": spec(path, proc.pid),
             "another python": dict(spec(path, os.getpid()), python="/usr/bin/python3"), "no variable": None}[case]
    p, (pid, ppid, *_), _ = run_script(tmp_path, given, STAGE_EXIT="4")
    assert p.returncode == 4 and p.stdout == "to stdout\n"
    assert int(ppid) != proc.pid  # its parent is this test's subprocess call


def start_sleeping_job(path, tmp_path):
    """A served job that sleeps: (its process, the server's child running it)."""
    script = tmp_path / "stage.py"
    script.write_text(SCRIPT)
    e = dict(os.environ, STAGE_SLEEP="1", INEXFLOW_STAGE_SERVER=json.dumps(spec(path, os.getpid())))
    job = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=e, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    out = script.with_suffix(".out")
    deadline = time.time() + 30
    while not out.exists() or not out.read_text():
        assert time.time() < deadline
        time.sleep(0.05)
    child = int(out.read_text().split()[0])
    assert child != job.pid
    return job, child


def test_ctrl_c_stops_a_served_job_as_it_stops_a_job_in_its_own_python(server, tmp_path):
    proc, path = server
    job, child = start_sleeping_job(path, tmp_path)
    os.kill(child, signal.SIGINT)
    assert job.wait(timeout=20) == 1 and "KeyboardInterrupt" in job.stderr.read()


def test_killed_job_takes_its_served_child_with_it(server, tmp_path):
    proc, path = server
    job, child = start_sleeping_job(path, tmp_path)
    os.kill(job.pid, signal.SIGKILL)
    job.wait()
    deadline = time.time() + 10
    while Path(f"/proc/{child}").exists() and b"zombie" not in Path(f"/proc/{child}/status").read_bytes():
        assert time.time() < deadline, "the served child outlived its job"
        time.sleep(0.05)


def test_ctrl_c_on_the_process_group_leaves_the_server_to_end_with_snakemake(server, tmp_path):
    proc, path = server
    os.kill(proc.pid, signal.SIGINT)  # what Ctrl-C sends to every process of Snakemake's group
    p, (pid, ppid, *_), _ = run_script(tmp_path, spec(path, os.getpid()))
    assert proc.poll() is None and int(ppid) == proc.pid and p.returncode == 0


PREAMBLE_THEN_STAGE = '''\
import os
with open(os.environ["PREAMBLE_LOG"], "a") as f:  # stands for Snakemake's preamble (imports Snakemake)
    f.write(f"{os.getpid()} {os.getppid()}\\n")
from inexflow.stageserver import hand_over

hand_over()
import sys
with open(os.environ["PREAMBLE_LOG"], "a") as f:
    f.write(f"stage {os.environ.get('PYTHONPATH', '-')} {int(any('inexflow-site' in p for p in sys.path))}\\n")
'''


def site_folder(tmp_path) -> Path:
    """The folder start() puts first on PYTHONPATH: the server's, with inexflow.stagesite as
    its sitecustomize.py."""
    folder = tmp_path / "inexflow-site"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(Path(stagesite.__file__).read_text())
    return folder


def run_with_site(tmp_path, folder, script_dir, text, pythonpath, server_spec):
    script = tmp_path / script_dir / "tmpabc.stage.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(text)
    log = tmp_path / "preamble.log"
    e = dict(os.environ, PREAMBLE_LOG=str(log), PYTHONPATH=pythonpath,
             INEXFLOW_STAGE_SERVER=json.dumps(server_spec))
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=e, capture_output=True, text=True, timeout=60)
    return p, log.read_text().splitlines()


def test_a_snakemake_stage_script_is_handed_over_before_its_preamble_runs(server, tmp_path):
    proc, path = server
    folder = site_folder(tmp_path)
    # the server's child restores PYTHONPATH as the job had it before start() added the folder
    sp = dict(spec(path, os.getpid()), socket=str(folder / "socket"))
    os.symlink(path, folder / "socket")
    p, lines = run_with_site(tmp_path, folder, ".snakemake/scripts", PREAMBLE_THEN_STAGE,
                             os.pathsep.join([str(folder), "/elsewhere"]), sp)
    assert p.returncode == 0, p.stderr
    # the preamble ran once, in the server's child: the job's own Python never ran it
    (_pid, ppid), stage = lines[0].split(), lines[1]
    assert len(lines) == 2 and int(ppid) == proc.pid
    assert stage == "stage /elsewhere 0"


@pytest.mark.parametrize("case", ["not a Snakemake script", "not a stage", "no server variable"])
def test_anything_else_starts_as_usual_and_runs_the_interpreters_own_sitecustomize(server, tmp_path, case):
    proc, path = server
    folder = site_folder(tmp_path)
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import os\nopen(os.environ['PREAMBLE_LOG'], 'a').write('own site\\n')\n")
    text = PREAMBLE_THEN_STAGE.replace("from inexflow.stageserver import hand_over\n\nhand_over()", "") \
        if case == "not a stage" else PREAMBLE_THEN_STAGE
    sp = spec(path, os.getpid()) if case != "no server variable" else None
    p, lines = run_with_site(tmp_path, folder, "scripts" if case != "not a Snakemake script" else "bin", text,
                             os.pathsep.join([str(folder), str(own)]), sp)
    assert p.returncode == 0, p.stderr
    assert lines[0] == "own site"
    preambles = [int(line.split()[1]) for line in lines[1:-1]]  # the parent of each process that ran it
    assert preambles[0] != proc.pid  # the job's own Python ran the preamble
    if case == "not a Snakemake script":  # then its own hand_over() served it (the late path, as before)
        assert preambles[1:] == [proc.pid]
    else:
        assert len(preambles) == 1
    assert lines[-1].endswith(" 0")  # the folder is off sys.path again


def test_every_stage_script_hands_itself_over_as_the_jobs_sitecustomize_recognises():
    scripts = sorted((Path(__file__).parents[1] / "workflow" / "scripts").glob("*.py"))
    assert len(scripts) > 10
    for script in scripts:
        head = script.read_bytes().split(b"\nhand_over()")[0]
        assert stagesite._MARK in head, f"{script.name} does not hand itself over before its imports"


def test_the_end_of_a_run_restores_pythonpath_and_cancels_only_the_schedulers_timers(monkeypatch):
    from snakemake.scheduling.job_scheduler import JobScheduler

    class Workflow:
        local_exec, remote_exec, subprocess_exec, dryrun = True, False, False, False
        deployment_settings = type("Deployment", (), {"deployment_method": frozenset()})

    monkeypatch.setenv("PYTHONPATH", "/a" + os.pathsep + "/b")
    stageserver.start(Workflow(), enabled=True)
    folder = Path(json.loads(os.environ[stageserver.ENV])["socket"]).parent
    assert os.environ["PYTHONPATH"] == os.pathsep.join([str(folder), "/a", "/b"])
    assert (folder / "sitecustomize.py").read_bytes() == Path(stagesite.__file__).read_bytes()

    class Scheduler:  # what JobScheduler._schedule_reevalutation wakes up
        _open_jobs = threading.Semaphore(0)

    JobScheduler._schedule_reevalutation(Scheduler, 30)  # Snakemake's own timer, as its scheduler leaves it
    theirs = [t for t in threading.enumerate() if isinstance(t, threading.Timer)]
    ours = threading.Timer(30, lambda: None)
    ours.start()
    stageserver._run_ended()
    for t in theirs:
        t.join(5)
        assert not t.is_alive()
    assert not Scheduler._open_jobs.acquire(blocking=False)  # cancelled, not fired
    assert ours.is_alive()
    ours.cancel()
    assert os.environ["PYTHONPATH"] == "/a" + os.pathsep + "/b" and stageserver.ENV not in os.environ
    assert stageserver._server is None and not folder.exists()
    assert gc.get_freeze_count() == 0  # not Snakemake's command line: this Python carries on


@pytest.mark.parametrize("how", [["-m", "snakemake"], ["/venv/bin/snakemake"]])
def test_only_snakemakes_command_line_freezes_its_objects_at_the_end(how):
    code = "import sys; from inexflow import stageserver; stageserver._run_ended(); import gc; print(gc.get_freeze_count() > 0)"
    if how[0] == "-m":  # as python -m snakemake runs: __main__ is snakemake.__main__
        code = ("import importlib.util, sys; "
                "sys.modules['__main__'].__spec__ = importlib.util.find_spec('snakemake.__main__'); " + code)
    else:
        code = f"import sys; sys.argv[0] = {how[0]!r}; " + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "True", out.stderr


def test_the_server_listens_before_its_preload_and_serves_the_jobs_that_came_meanwhile(tmp_path):
    # a preload that holds until the test says go: jobs that connect meanwhile wait for it
    (tmp_path / "slowpreload.py").write_text(
        "import os, time\nwhile not os.path.exists(os.environ['PRELOAD_GO']):\n    time.sleep(0.02)\n")
    path, go = tmp_path / "socket", tmp_path / "go"
    env = dict(os.environ, PRELOAD_GO=str(go),
               PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    code = "import sys, inexflow.stageserver as s; s.PRELOAD = ('slowpreload',); s.serve(sys.argv[1])"
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, env=env)
    try:
        deadline = time.time() + 60
        while not path.exists():  # listening while its preload still holds
            assert proc.poll() is None and time.time() < deadline
            time.sleep(0.02)
        script = tmp_path / "stage.py"
        script.write_text(SCRIPT)
        e = dict(os.environ, INEXFLOW_STAGE_SERVER=json.dumps(spec(path, os.getpid())))
        job = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=e, stdout=subprocess.DEVNULL)
        time.sleep(0.5)  # the job connects meanwhile (were it not to, it would run itself: asserted below)
        assert job.poll() is None
        go.touch()
        assert job.wait(timeout=60) == 0
        assert int(script.with_suffix(".out").read_text().split()[1]) == proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)


def test_parsing_starts_the_server_and_a_run_that_is_no_local_one_stops_it(monkeypatch):
    class Workflow:  # as Snakemake's workflow says while the Snakefile is parsed: local, not dry
        local_exec, remote_exec, subprocess_exec, dryrun = True, False, False, False
        deployment_settings = type("Deployment", (), {"deployment_method": frozenset()})

        def onstart(self, f):
            self.hook = f

        def onsuccess(self, f):
            pass

        def onerror(self, f):
            pass

    for config in ({"stage_server": False}, {}):
        wf = Workflow()
        stageserver.register(wf, config)
        assert (stageserver._server is None) == (config == {"stage_server": False})
    server, folder = stageserver._server, Path(stageserver._socket).parent
    deadline = time.time() + 30
    while not (folder / "socket").exists():
        assert time.time() < deadline
        time.sleep(0.02)
    config["stage_server"] = True  # the schema's default, filled in by the rest of the parse
    wf.dryrun = True  # known once the run starts: a dry run (or another executor) uses no server
    wf.hook(None)
    assert server.wait(timeout=20) == 0 and not folder.exists()
    assert stageserver._server is None and stageserver.ENV not in os.environ


def test_without_a_temporary_folder_the_jobs_run_themselves(monkeypatch, tmp_path):
    import tempfile

    class Workflow:
        local_exec, remote_exec, subprocess_exec, dryrun = True, False, False, False
        deployment_settings = type("Deployment", (), {"deployment_method": frozenset()})

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    stageserver.start(Workflow(), enabled=True)  # no error: Snakemake's onstart must not fail for it
    assert stageserver._server is None and stageserver.ENV not in os.environ


def test_start_starts_nothing_for_other_executors_or_when_disabled():
    class Workflow:
        local_exec, remote_exec, subprocess_exec, dryrun = False, False, False, False
        deployment_settings = type("Deployment", (), {"deployment_method": frozenset()})

    stageserver.start(Workflow(), enabled=True)  # SLURM and other remote executors: local_exec is False
    Workflow.local_exec = True
    stageserver.start(Workflow(), enabled=False)
    Workflow.deployment_settings.deployment_method = frozenset(["conda"])  # the jobs run another Python
    stageserver.start(Workflow(), enabled=True)
    assert stageserver._server is None and stageserver.ENV not in os.environ


def test_the_usage_line_a_served_job_logs_reads_back():
    line = "12:00:01 INFO " + stageserver._USAGE_LINE % (1.234, 301.6)  # as _report_usage logs it
    assert stageserver.served_usage(f"first line\n{line}\nlast line\n") == (1.23, 302.0)
    assert stageserver.served_usage("12:00:01 INFO rule score done in 0.48s") is None


def test_start_removes_the_folders_of_killed_servers_only(tmp_path):
    dead, live, starting = (tmp_path / f"inexflow-stages-{k}" for k in ("dead", "live", "starting"))
    for d in (dead, live, starting):
        d.mkdir()
    with socket.socket(socket.AF_UNIX) as s:  # bound, then closed: what a killed server leaves
        s.bind(str(dead / "socket"))
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(live / "socket"))
        s.listen(1)
        stageserver._sweep_stale(str(tmp_path))
    assert not dead.exists() and live.is_dir() and starting.is_dir()


def test_server_exits_when_its_stdin_closes(server):  # last: it stops the module's server
    proc, path = server
    proc.stdin.close()
    assert proc.wait(timeout=20) == 0
    assert not path.exists()
