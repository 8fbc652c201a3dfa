"""The README and the reference pages stay true: every `inexflow` command they show parses with the
real parser, every --option they name exists in inexflow, Snakemake or the named other tool, every
relative link points to a file (and heading) in the repository, and no page points outside it."""
import argparse
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from conftest import ROOT
from inexflow.front.cli import build_parser

# the front door, the reference pages and the config's usage page (copied by `inexflow workflow init`)
PAGES = [ROOT / "README.md", ROOT / "config" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# options of the other tools the pages show: pip (--no-deps), snakedeploy (--tag), snakefmt (--check),
# the SLURM plugin's profile key (--slurm-no-account)
OTHER_TOOLS = {"--no-deps", "--tag", "--check", "--slurm-no-account"}


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def inexflow_commands(page: Path) -> list[str]:
    """`inexflow ...` lines of the page's sh code blocks and inline code spans, without placeholders."""
    md = text(page)
    blocks = re.findall(r"```sh\n(.*?)```", md, re.S)
    lines = [ln.split("#")[0] for b in blocks for ln in b.splitlines()]
    # inline spans that are commands (an option or an upper-case placeholder), not just a name
    lines += [s for s in re.findall(r"`(inexflow [^`]*)`", md) if "--" in s or re.search(r"\b[A-Z]{3,}\b", s)]
    out = []
    for ln in lines:
        for part in ln.split("&&"):
            part = part.strip()
            if part.startswith("inexflow ") and "..." not in part.replace("RUN...", "RUN") and "[" not in part:
                out.append(part)
    return sorted(set(out))


COMMANDS = [(name(p), c) for p in PAGES for c in inexflow_commands(p)]


def benchmark_options() -> set[str]:
    """The options of the scripts in benchmarks/ (the pages run benchmarks/campaign.py)."""
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


@cache
def snakemake_help() -> str:
    return subprocess.run([sys.executable, "-m", "snakemake", "--help"], capture_output=True, text=True).stdout


def test_the_pages_are_there():
    assert {"README.md", "configuration.md", "tasks.md", "analyses.md", "formats.md", "workflow.md", "slurm.md",
            "python-api.md", "cli.md", "benchmarks.md", "measures.md"} <= {p.name for p in PAGES[2:]}
    assert len(text(ROOT / "README.md").splitlines()) <= 150, "the README is a front door: under about 150 lines"
    assert len(COMMANDS) >= 8


@pytest.mark.parametrize(("page", "command"), COMMANDS)
def test_every_inexflow_command_shown_parses(page, command):
    try:
        build_parser().parse_args(shlex.split(command)[1:])
    except SystemExit as e:
        assert e.code == 0, f"{page}'s `{command}` does not parse"  # --version, --help exit 0


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_option_named_exists(page):
    if not snakemake_help():
        pytest.skip("Snakemake is not installed (pip install '.[workflow]')")
    ours = parser_options() | benchmark_options()
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text(page)))
    missing = sorted(o for o in named if o not in ours and o not in OTHER_TOOLS
                     and not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", snakemake_help()))
    assert not missing, f"{name(page)} names options that no tool has: {missing}"


def prose(md: str) -> str:
    """The page without fenced code blocks and inline code spans (where brackets are not links)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", md, flags=re.S | re.M))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as hyphens."""
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.sub(r"^```.*?^```", "", text(page), flags=re.S | re.M),
                              re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def relative_links(page: Path) -> list[str]:
    links = re.findall(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose(text(page)))
    return [t for t in links if not re.match(r"[a-z][a-z+.-]*:", t)]  # http:, https:, mailto: are not files


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_every_relative_link_points_into_the_repository(page):
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.is_relative_to(ROOT.resolve()) or not dest.exists():
            broken.append(f"{target} (no such file in the repository)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target} (no heading #{anchor} in {name(dest)})")
    assert not broken, f"{name(page)} has broken links: {broken}"


def test_the_reference_links_every_page():
    index = {t.partition("#")[0] for t in relative_links(ROOT / "docs" / "README.md")}
    unlinked = sorted(p.name for p in PAGES[2:] if p.name != "README.md" and p.name not in index)
    assert not unlinked, f"docs/README.md does not link {unlinked}"


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_no_page_points_outside_the_repository(page):
    assert "../shared" not in text(page), f"{name(page)} points at ../shared, which is not in the repository"


def schema_defaults(schema: dict, prefix: str = "") -> dict:
    """{dotted key: default} of every key of the config schema that has a default."""
    out = {}
    for key, sub in (schema.get("properties") or {}).items():
        dotted = f"{prefix}{key}"
        if "default" in sub and sub["default"] != {}:
            out[dotted] = sub["default"]
        out |= schema_defaults(sub, dotted + ".")
    return out


def test_the_key_table_shows_the_schema_defaults():
    import yaml

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    rows = {}
    for line in text(ROOT / "docs" / "configuration.md").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 3:
            for key in re.findall(r"`([a-z_.]+)`", cells[0].split(" ")[0]):
                rows[key] = cells[-1]
    for key, default in schema_defaults(schema).items():
        assert key in rows, f"docs/configuration.md has no row for {key}"
        shown = yaml.safe_dump(default, default_flow_style=True).strip().removesuffix("...").strip()
        assert f"`{shown}`" in rows[key], (key, shown, rows[key])


def test_the_configs_of_the_config_readme_are_valid():
    import yaml

    from inexflow.campaign.config import schema_errors

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    blocks = re.findall(r"```yaml\n(.*?)```", text(ROOT / "config" / "README.md"), re.S)
    assert len(blocks) >= 3
    for b in blocks:
        assert schema_errors(yaml.safe_load(b), schema) == []


def test_the_install_pages_say_what_make_installs_and_runs():
    """docs/workflow.md and the README say which extras `make` installs and how `make run` calls
    Snakemake: those of the Makefile, and the manual install it shows is the workflow alone."""
    makefile = (ROOT / "Makefile").read_text()
    extras = re.search(r"pip install --quiet -e '\.\[([a-z,]+)\]'", makefile).group(1)
    options = re.search(r"snakemake --cores \$\(CORES\) (.*)", makefile).group(1).strip()
    workflow = text(ROOT / "docs" / "workflow.md")
    assert f"`make` installs `.[{extras}]`" in workflow and f"`{options}`" in workflow
    assert f"snakemake --cores all {options}" in workflow
    assert "all `make run` does" not in workflow
    assert set(extras.split(",")) == {"test", "workflow", "lint"}  # the README's "with the test and lint extras too"
    assert "(with the test and lint extras too)" in text(ROOT / "README.md")
