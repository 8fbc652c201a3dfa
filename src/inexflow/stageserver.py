"""Warm job start for local runs: a stage server that forks jobs with the library already imported.

Snakemake runs every job of a ``script:`` rule as a new Python process. A stage of this
workflow does little work per job (a run's scores take about 0.2 s) but importing pandas,
pyarrow and the library takes about 0.4 s, so on a campaign of 80 runs the imports are
half of the job time. For a local run (``snakemake --cores N``) the workflow therefore
starts one server process that imports the library once and then forks one child per job
(:func:`register`, called while the Snakefile is parsed, starts the process so that its
imports overlap the parse and the DAG; its ``onstart`` hook, :func:`start`, lets the jobs find
it once the run is known to be a local, non-dry one, and stops it otherwise):

1. a stage script calls :func:`hand_over` before its own imports; earlier still, as the job's
   Python starts, the ``sitecustomize`` that :func:`start` puts on the jobs' ``PYTHONPATH``
   (:mod:`inexflow.stagesite`) calls it before Snakemake's preamble imports Snakemake (a served
   job's own process then costs about 0.05 s instead of 0.15 s);
2. when a server of this very Snakemake run is listening, the script sends it its own path,
   working directory, umask, environment and its stdin/stdout/stderr (passed as file
   descriptors), and waits;
3. the server forks; the child takes over all of that and runs the script with
   :func:`runpy.run_path` (the same file, the same code, so the same outputs byte for byte),
   then sends back the exit status, which the script exits with;
4. when the script's process ends early (Snakemake kills it), the child sees its connection
   close and exits too; when the Snakemake run ends, the server exits (:func:`stop`, or its
   stdin closing when Snakemake itself was killed), and :func:`register`'s hooks also spare the
   end of the run what only delays it (Snakemake's idle scheduler timers, the interpreter's
   last garbage collections: about a second).

A job that comes while the server still imports waits for it (the server listens first).
Everything else runs as before: no server (``stage_server: false`` in the config,
``--no-hooks``, a dry run), another executor (SLURM: the jobs run
on other machines, and never reach a server of a different process tree), or a platform
without ``/proc`` and Unix sockets -- the script then imports and runs the stage itself.
Only the job's own process is visible to Snakemake's ``benchmark:`` records, so the
served child reports its peak memory and CPU time in the job's log.

The socket lies in a folder only its user can enter (``mkdtemp``, mode 0700), and the server
serves only connections of its own user (``SO_PEERCRED``): it runs the scripts it is sent,
which only that user could run anyway.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import sys

# ENV: the variable set in Snakemake and inherited by its jobs, {"socket", "owner" (Snakemake's pid),
# "python"}; named where the jobs' sitecustomize reads it
from inexflow.stagesite import ENV

# what the server imports before it listens: what parsing and scoring need (the first jobs)
PRELOAD = ("pandas", "numpy", "pyarrow", "pyarrow.parquet", "pyarrow.compute", "lxml.etree", "yaml",
           "snakemake.iocontainers", "snakemake.logging", "inexflow.stage", "inexflow.tables",
           "inexflow.formats.runs", "inexflow.formats.run_xml", "inexflow.formats.run_text",
           "inexflow.formats.assessments", "inexflow.formats.topics", "inexflow.formats.collection",
           "inexflow.measures", "inexflow.scoring", "inexflow.session", "inexflow.pool", "inexflow.aggregate")
# and then one at a time while no job waits: what the analyses and the report need (matplotlib
# takes about 0.35 s); a job served before they are in imports them itself. A job that comes during
# one of these imports waits for it, so scipy.stats (0.6 s), which only the significance stage
# imports, is left to that stage: preloaded, it held a changed run's score and build_pool jobs
# back by 0.35-0.45 s
PRELOAD_IDLE = ("inexflow.campaign", "inexflow.correlate", "inexflow.analysis.rejudge", "inexflow.analysis.logo",
                "inexflow.analysis.stability", "inexflow.analysis.swap", "inexflow.analysis.summary",
                "inexflow.report", "inexflow.analysis.plots", "scipy.special")
_HEADER = struct.Struct("!I")
_STATUS = struct.Struct("!i")
_server = None  # the server process started by :func:`register` or :func:`start` in this (Snakemake) process
_socket = ""  # and the path of its socket


# -- the job's side ---------------------------------------------------------------------------

def hand_over() -> None:
    """Have this stage script run by the stage server of the Snakemake run that started it,
    and exit with its status; return (and let the script run itself) when there is none."""
    try:
        spec = json.loads(os.environ.get(ENV) or "null")
        path, owner, python = spec["socket"], int(spec["owner"]), spec["python"]
    except (ValueError, TypeError, KeyError):
        return
    if python != sys.executable or not _descends_from(owner):
        return
    script = os.path.abspath(sys.argv[0])
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        body = json.dumps({"script": script, "cwd": os.getcwd(), "umask": _umask(),
                           "env": dict(os.environ)}).encode()
        message = _HEADER.pack(len(body)) + body
        sent = socket.send_fds(conn, [message], [0, 1, 2])
        conn.sendall(message[sent:])  # a large environment may not go in one message
    except OSError:  # not listening (yet, or any more): run here
        conn.close()
        return
    status = b""
    while len(status) < _STATUS.size:
        chunk = conn.recv(_STATUS.size - len(status))
        if not chunk:
            print(f"inexflow: error: the stage server ({path}) ended before the job {script} finished",
                  file=sys.stderr)
            sys.exit(1)
        status += chunk
    sys.stdout.flush()
    os._exit(_STATUS.unpack(status)[0])  # the child has flushed and closed everything this job wrote


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def _descends_from(pid: int) -> bool:
    """Whether this process is a descendant of ``pid`` (read from /proc; False without it)."""
    me = os.getpid()
    for _ in range(16):
        if me == pid:
            return True
        try:
            with open(f"/proc/{me}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return False
        me = int(stat[stat.rindex(b")") + 2:].split()[1])  # the field after the state: ppid
        if me <= 1:
            return False
    return False


# -- the Snakemake side -----------------------------------------------------------------------

def register(workflow, config: dict) -> None:
    """Have Snakemake start the stage server when a run starts (``config["stage_server"]``,
    read then, after the config's defaults are filled in) and stop it when the run ends.
    Snakemake runs only the main Snakefile's hooks: the workflow calls this from
    ``rules/common.smk``, and a deployment that uses the workflow as a module (``inexflow
    workflow init``) from its own Snakefile.

    Called while the Snakefile is parsed, it already starts the server's process (unless the
    config switches it off, or the jobs run elsewhere): the server then imports the library
    while Snakemake parses the rest and builds the DAG, and takes the first jobs as they
    come. Whether the run is local and not a dry run is only known when it starts (the
    ``onstart`` hook, :func:`start`): a server no run uses ends with the Snakemake process
    (its stdin closes) or at ``onstart``."""
    if config.get("stage_server") is not False and _may_serve(workflow):
        _spawn()
    workflow.onstart(lambda log: start(workflow, config["stage_server"]))
    workflow.onsuccess(lambda log: _run_ended())
    workflow.onerror(lambda log: _run_ended())


def _may_serve(workflow) -> bool:
    """Whether ``workflow``'s jobs may be served: on Linux, run by this Snakemake in this very
    Python (not by another executor, nor with ``--sdm conda`` or ``apptainer``), not a dry run.
    While the Snakefile is parsed Snakemake does not know its executor yet and says local and
    not dry."""
    deploy = getattr(getattr(workflow, "deployment_settings", None), "deployment_method", None)
    return sys.platform.startswith("linux") and workflow.local_exec and not (
        workflow.remote_exec or workflow.subprocess_exec or workflow.dryrun or deploy)


def _run_ended() -> None:
    """The end of a run (``onsuccess``, ``onerror``): stop the server, and spare the
    interpreter's exit what only delays it."""
    import gc

    stop()
    _drop_rescheduling_timers()
    if _snakemake_cli():
        # the interpreter's last garbage collections walk Snakemake's DAG, jobs and rules again
        # (about 0.4 s on the benchmark campaign's 182 jobs) just before the process exits
        gc.freeze()


def _snakemake_cli() -> bool:
    """Whether this process is Snakemake's command line, which exits after the run (not a
    Python that runs Snakemake through its API and carries on: there frozen objects would
    never be collected)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return getattr(spec, "name", None) == "snakemake.__main__" or os.path.basename(sys.argv[0]) == "snakemake"


def _drop_rescheduling_timers() -> None:
    """Cancel the timers Snakemake's scheduler left to wake itself up again (the hooks run
    once it has returned). With its default job rate limit (``--max-jobs-per-timespan
    100/1s``) the scheduler starts a one-second ``threading.Timer`` whenever it waits for a
    job, and the interpreter waits for the last one before it exits: up to a second at the
    end of every run, 10-20 % of a re-run after one changed run. Only the scheduler's own
    timers are cancelled (their function is the lambda of
    ``JobScheduler._schedule_reevalutation``, which only wakes the finished scheduler)."""
    import threading

    for thread in threading.enumerate():
        function = getattr(thread, "function", None)
        if isinstance(thread, threading.Timer) and "_schedule_reevalutation" in getattr(function, "__qualname__", ""):
            thread.cancel()


def start(workflow, enabled: bool) -> None:
    """Serve the jobs of a local, non-dry Snakemake run whose jobs run in this very Python
    (the ``onstart`` hook of :func:`register`; see :func:`_may_serve`): start the server
    unless :func:`register` did, and let the jobs find it. Otherwise stop a server
    :func:`register` started. The server imports :data:`PRELOAD` (about 0.6 s) before it takes
    the first job; jobs that start before that wait for it."""
    import shutil

    if not enabled or not _may_serve(workflow):
        stop()
        return
    _spawn()
    if _server is None:
        return
    # the jobs hand themselves over as their Python starts, before Snakemake's preamble (inexflow.stagesite)
    folder = os.path.dirname(_socket)
    try:
        shutil.copyfile(os.path.join(os.path.dirname(__file__), "stagesite.py"), os.path.join(folder, "sitecustomize.py"))
    except OSError:  # a full disk: the jobs hand over after the preamble, in the stage script itself
        pass
    os.environ["PYTHONPATH"] = os.pathsep.join([folder, *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ[ENV] = json.dumps({"socket": _socket, "owner": os.getpid(), "python": sys.executable})


def _spawn() -> None:
    """Start the server's process (once), on a socket in a new private folder."""
    global _server, _socket
    import subprocess
    import tempfile

    if _server is not None:
        return
    folder = None
    try:  # without a temporary folder or a process the jobs run themselves
        _sweep_stale(tempfile.gettempdir())
        folder = tempfile.mkdtemp(prefix="inexflow-stages-")  # a private folder (0700)
        _socket = os.path.join(folder, "socket")
        _server = subprocess.Popen([sys.executable, "-m", "inexflow.stageserver", _socket], stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL)
    except OSError:
        if folder:
            _remove_folder(folder)


def _restore_pythonpath(environ, path: str) -> None:
    """Take the server's folder (of its socket ``path``) off ``PYTHONPATH`` in ``environ``,
    as :func:`start` found it."""
    entries = environ.get("PYTHONPATH", "").split(os.pathsep)
    if entries[0] == os.path.dirname(path):
        if len(entries) > 1:
            environ["PYTHONPATH"] = os.pathsep.join(entries[1:])
        else:
            del environ["PYTHONPATH"]


def _sweep_stale(tmp: str) -> None:
    """Remove the folders of this user's servers that were killed (SIGKILL leaves the socket
    behind): their socket refuses connections. A folder without a socket yet (a server still
    importing) is left alone."""
    import glob

    for folder in glob.glob(os.path.join(tmp, "inexflow-stages-*")):
        path = os.path.join(folder, "socket")
        try:
            if os.stat(folder).st_uid != os.getuid() or not os.path.exists(path):
                continue
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(path)
        except ConnectionRefusedError:
            _remove_folder(folder)
        except OSError:
            pass


def _remove_folder(folder: str) -> None:
    """Remove a server's folder made by :func:`_spawn` (socket, ``sitecustomize.py`` and its
    bytecode cache)."""
    import shutil

    if os.path.basename(folder).startswith("inexflow-stages-"):
        shutil.rmtree(folder, ignore_errors=True)


def stop() -> None:
    """Stop the stage server (the ``onsuccess`` and ``onerror`` hooks); it removes its
    socket and folder. Jobs still running finish as they would have."""
    global _server
    os.environ.pop(ENV, None)
    if _server is None:
        return
    _restore_pythonpath(os.environ, _socket)
    _server.stdin.close()  # the server exits when its stdin closes (also when Snakemake is killed)
    try:
        _server.wait(timeout=10)
    except Exception:
        _server.kill()
    _server = None


# -- the server -------------------------------------------------------------------------------

def serve(path: str) -> None:
    """Listen, import :data:`PRELOAD` (the jobs that come meanwhile wait), then fork a child
    per connection until stdin closes, importing :data:`PRELOAD_IDLE` whenever no connection
    waits."""
    import importlib
    import selectors
    import signal

    # Ctrl-C reaches the whole process group: the jobs stop, Snakemake ends, and the server
    # then leaves when its stdin closes (no traceback of its own)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    try:
        listener.listen(64)
        for name in PRELOAD:
            importlib.import_module(name)
        later = list(PRELOAD_IDLE)
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
        sel = selectors.DefaultSelector()
        sel.register(listener, selectors.EVENT_READ)
        sel.register(sys.stdin, selectors.EVENT_READ)
        while True:
            ready = sel.select(timeout=0 if later else None)
            if not ready and later:
                importlib.import_module(later.pop(0))
            for key, _ in ready:
                if key.fileobj is not listener:
                    if not os.read(sys.stdin.fileno(), 1):
                        return
                    continue
                conn, _ = listener.accept()
                if _peer_uid(conn) != os.getuid():  # the folder is private already; never serve another user
                    conn.close()
                    continue
                if os.fork() == 0:
                    sel.close()
                    listener.close()
                    _run_child(conn)  # never returns
                conn.close()
    finally:
        os.unlink(path)
        _remove_folder(os.path.dirname(path))


def _peer_uid(conn: socket.socket) -> int:
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return uid


def _run_child(conn: socket.socket) -> None:
    import resource
    import runpy
    import signal
    import threading

    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a job's own Python
        data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        while len(data) < _HEADER.size or len(data) < _HEADER.size + _HEADER.unpack_from(data)[0]:
            more = conn.recv(1 << 16)
            if not more:
                os._exit(1)
            data += more
        req = json.loads(data[_HEADER.size:])
        for fd, target in zip(fds, (0, 1, 2)):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(req["cwd"])
        os.umask(req["umask"])
        os.environ.clear()
        os.environ.update(req["env"])
        # the script (and anything it starts) runs here, not handed over again
        spec = os.environ.pop(ENV, None)
        if spec:
            _restore_pythonpath(os.environ, json.loads(spec)["socket"])
        sys.argv = [req["script"]]

        def watch():  # the job's process went away: so does its work
            try:
                conn.recv(1)
            except OSError:
                pass
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
        before = resource.getrusage(resource.RUSAGE_SELF)
        try:
            runpy.run_path(req["script"], run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
        except BaseException:
            import traceback

            traceback.print_exc()
            code = 1
        _report_usage(before)
    finally:
        import logging

        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            conn.sendall(_STATUS.pack(code))
        finally:
            os._exit(code)


def _report_usage(before) -> None:
    """The served job's CPU time and peak memory, in its log (Snakemake's ``benchmark:``
    records see only the job's own process)."""
    import logging
    import resource

    now = resource.getrusage(resource.RUSAGE_SELF)
    log = logging.getLogger("inexflow")
    if log.handlers:
        log.info(_USAGE_LINE, now.ru_utime + now.ru_stime - before.ru_utime - before.ru_stime, now.ru_maxrss / 1024)


_USAGE_LINE = "served by the stage server: %.2f s CPU, peak memory %.0f MB"


def served_usage(log_text: str) -> tuple[float, float] | None:
    """(CPU seconds, peak memory in MB) of a served job from its log's text; None when the
    stage server did not run it (the line :func:`_report_usage` writes)."""
    import re

    pattern = re.escape(_USAGE_LINE).replace(re.escape("%.2f"), "([0-9.]+)").replace(re.escape("%.0f"), "([0-9]+)")
    m = re.search(pattern, log_text)
    return (float(m.group(1)), float(m.group(2))) if m else None


if __name__ == "__main__":  # python -m inexflow.stageserver SOCKET (started by :func:`_spawn`)
    serve(sys.argv[1])
    # nothing is left to write: skip the interpreter's teardown of pandas, scipy and matplotlib
    # (about 0.4 s that the end of the Snakemake run would wait for, in :func:`stop`)
    os._exit(0)
