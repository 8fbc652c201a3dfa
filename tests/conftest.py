import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST_DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def shared_data(tmp_path_factory):
    """The real INEX 2009/2010 files (qrels, topics, three runs and the official tool's
    outputs for them), committed gzipped under ``tests/data/inex2009-2010`` and unpacked
    once per test session."""
    import gzip

    src = TEST_DATA / "inex2009-2010"
    out = tmp_path_factory.mktemp("inex2009-2010")
    for gz in src.rglob("*.gz"):
        dest = out / gz.relative_to(src).with_suffix("")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(gzip.decompress(gz.read_bytes()))
    return out


def run_cli(*args, check=None):
    """``inexflow ARGS`` run in this process (fast: no interpreter start-up); returns an object
    with ``returncode``, ``stdout`` and ``stderr`` (the warnings included) like
    ``subprocess.run``. ``test_entry_point`` covers the real ``python -m inexflow``."""
    from types import SimpleNamespace

    code, out, err = cli(*args)
    if check is not None:
        assert code == check, err
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def run_cli_process(*args):
    """``python -m inexflow ARGS`` in a subprocess (CompletedProcess with text output)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-m", "inexflow", *map(str, args)], capture_output=True, text=True, env=env)


def cli(*args) -> tuple[int, str, str]:
    """``inexflow ARGS`` in process: (exit code, stdout, stderr with the warnings)."""
    import contextlib
    import io
    import logging

    from inexflow.front.cli import main

    out, err = io.StringIO(), io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("inexflow: warning: %(message)s"))
    log = logging.getLogger()  # where the command's own messages go, as in a real process
    log.addHandler(handler)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as e:  # argparse: usage errors (2), --version and --help (0)
                code = e.code if isinstance(e.code, int) else 1
    finally:
        log.removeHandler(handler)
    return code, out.getvalue(), err.getvalue()


def score_values(tmp_path, qrels: str, run: str, *flags) -> dict:
    """Write ``qrels`` and ``run`` to files and score them in process with ``inexflow score
    FLAGS -q``: {(measure, topic): value}."""
    import contextlib
    import io

    from inexflow.front.cli import main

    q, r = write(tmp_path / "q.fol", qrels), write(tmp_path / "r.run", run)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["score", *map(str, flags), "--assessments", str(q), "-q", "-j", "1", str(r)]) == 0
    return parse_out(out.getvalue())


def parse_out(text: str) -> dict:
    """``measure<TAB>topic<TAB>value`` lines (the tool's output) -> {(measure, topic): value}."""
    vals = {}
    for line in text.splitlines():
        parts = [p for p in line.split("\t") if p != ""]
        if len(parts) == 3:
            vals[(parts[0], parts[1])] = float(parts[2])
    return vals


def snakemake(workdir, *args):
    """``snakemake -s Snakefile --directory WORKDIR ARGS`` in a subprocess, with the library
    from src/ as the workflow sets it up (PYTHONPATH of the test run removed)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"),
                           "--directory", str(workdir), *map(str, args)], capture_output=True, text=True, env=env)


def write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def assert_same_tree(a, b, unless=()):
    """Two directory trees hold the same files with the same bytes; the files named in
    ``unless`` need only be in both."""
    import filecmp

    d = filecmp.dircmp(a, b)
    assert not d.left_only and not d.right_only, (d.left_only, d.right_only)
    _, mismatch, errors = filecmp.cmpfiles(a, b, [f for f in d.common_files if f not in unless], shallow=False)
    assert not mismatch and not errors, mismatch
    for sub in d.common_dirs:
        assert_same_tree(Path(a) / sub, Path(b) / sub, unless)


def mount_small_tmpfs(d: Path, size: str) -> None:
    """Mount a tmpfs of ``size`` (e.g. ``64k``) on the directory ``d`` (a full disk to write
    to); skip the test where mounting is not allowed (it needs root). Unmount with ``umount``."""
    d.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")


def run_scores(run_lines) -> dict:
    """{topic: {doc: score}} of 6-column TREC run lines (pytrec_eval's run)."""
    run: dict = {}
    for line in run_lines:
        t, _, d, _, score, _ = line.split()
        run.setdefault(t, {})[d] = float(score)
    return run
