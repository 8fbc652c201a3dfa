import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = SHARED / "data" / "inex2009-2010"


@pytest.fixture
def shared_data():
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA


def run_cli(*args, check=None):
    """Run ``python -m inexflow ARGS``; returns CompletedProcess with text output."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.run([sys.executable, "-m", "inexflow", *map(str, args)], capture_output=True, text=True, env=env)
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def write(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def assert_same_tree(a, b):
    """Two directory trees hold the same files with the same bytes."""
    import filecmp

    d = filecmp.dircmp(a, b)
    assert not d.left_only and not d.right_only, (d.left_only, d.right_only)
    _, mismatch, errors = filecmp.cmpfiles(a, b, d.common_files, shallow=False)
    assert not mismatch and not errors, mismatch
    for sub in d.common_dirs:
        assert_same_tree(Path(a) / sub, Path(b) / sub)
