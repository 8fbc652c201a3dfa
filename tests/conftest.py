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
