"""The README stays true: every `inexflow` command it shows parses with the real parser, and
every --option it names exists in inexflow, Snakemake or the named other tool."""
import argparse
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT
from inexflow.front.cli import build_parser

README = (ROOT / "README.md").read_text()
# options of the other tools the README shows: pip (--no-deps), snakedeploy (--tag), snakefmt (--check),
# the SLURM plugin's profile key (--slurm-no-account)
OTHER_TOOLS = {"--no-deps", "--tag", "--check", "--slurm-no-account"}


def inexflow_commands() -> list[str]:
    """`inexflow ...` lines of the code blocks and inline code spans, without placeholders."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    lines = [ln.split("#")[0] for b in blocks for ln in b.splitlines()]
    # inline spans that are commands (an option or an upper-case placeholder), not just a name
    lines += [s for s in re.findall(r"`(inexflow [^`]*)`", README) if "--" in s or re.search(r"\b[A-Z]{3,}\b", s)]
    out = []
    for ln in lines:
        for part in ln.split("&&"):
            part = part.strip()
            if part.startswith("inexflow ") and "..." not in part.replace("RUN...", "RUN") and "[" not in part:
                out.append(part)
    return sorted(set(out))


def benchmark_options() -> set[str]:
    """The options of the scripts in benchmarks/ (the README runs benchmarks/campaign.py)."""
    return {o for f in (ROOT / "benchmarks").glob("*.py")
            for o in re.findall(r"add_argument\(\"(--[a-z][a-z-]*)\"", f.read_text())}


def parser_options() -> set[str]:
    p = build_parser()
    opts = set(p._option_string_actions)
    stack = [p]
    while stack:
        for action in stack.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sp in action.choices.values():
                    opts |= set(sp._option_string_actions)
                    stack.append(sp)
    return opts


@pytest.mark.parametrize("command", inexflow_commands())
def test_every_inexflow_command_in_the_readme_parses(command):
    assert len(inexflow_commands()) >= 8
    try:
        build_parser().parse_args(shlex.split(command)[1:])
    except SystemExit as e:
        assert e.code == 0, f"the README's `{command}` does not parse"  # --version, --help exit 0


def test_every_option_the_readme_names_exists():
    snakemake_help = subprocess.run([sys.executable, "-m", "snakemake", "--help"], capture_output=True,
                                    text=True).stdout
    if not snakemake_help:
        pytest.skip("Snakemake is not installed (pip install '.[workflow]')")
    ours = parser_options() | benchmark_options()
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", README))
    missing = sorted(o for o in named if o not in ours and o not in OTHER_TOOLS
                     and not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", snakemake_help))
    assert not missing, f"the README names options that no tool has: {missing}"
