"""Campaign configuration beyond the JSON schema: run discovery and cross-key checks.

``runs`` is a list of entries ``{path: GLOB, task: TASK?, participant: NAME?,
participant_pattern: REGEX?}``. Each matching file is one run, named by its file name
without the extension (the name used in ``results/``). The task comes from the entry or,
for INEX XML runs, from the submission's ``task`` attribute; the participant from the
entry, from ``participant_pattern`` (a regex with a group ``participant`` matched against
the file name), from the XML ``participant-id``, or else the run name.
"""

from __future__ import annotations

import copy
import difflib
import fnmatch
import glob
import hashlib
import json
import os
import re
from pathlib import Path

import jsonschema
import yaml

from inexflow.campaign.analyses import resolve_analyses
from inexflow.campaign.deploy import workflow_dir
from inexflow.campaign.tasks import (
    DEFAULT_POOL_TARGET,
    OPTION_KEYS,
    Campaign,
    assessment_sets,
    check_task_name,
    evaluation_tasks,
    runs_of,
    select_runs,
    task_options,
    tasks_key,
)
from inexflow.errors import (  # noqa: F401  (ConfigError: also imported from here)
    ConfigError,
    InputError,
    Problems,
    UsageError,
    decode_text,
    log,
    read_bytes,
)
from inexflow.io.compressed import open_bytes
from inexflow.io.detect import detect_assessment_format, fol_head_problem, sniff_scale, xml_root
from inexflow.io.names import run_name
from inexflow.io.task_labels import TASKS, normalise_task, unknown_task
from inexflow.measures.registry import (
    DEFAULT_FAMILIES,
    FAMILIES,
    check_measures,
    headline_measures,
)
from inexflow.model.quantisation import QUANTISATIONS, get_quantisation
from inexflow.simulate.simconfig import simulation_config


def sniff_run(path: str) -> dict:
    """The ``task_label`` (its ``task`` attribute) and ``participant`` (``participant-id``) an
    INEX XML run names in its ``<inex-submission>`` element; nothing for a text run."""
    with open_bytes(path, "run file") as fh:
        head = fh.read(4096).decode("utf-8", "replace")
    if not head.lstrip().startswith("<"):
        return {}
    out = {}
    m = re.search(r"<inex-submission\b[^>]*>", head)
    if m:
        for key, name in (("task_label", "task"), ("participant", "participant-id")):
            a = re.search(rf'\b{name}\s*=\s*["\']([^"\']*)["\']', m.group(0))
            if a:
                out[key] = a.group(1)
    return out


# The keys that say what a campaign evaluates. Snakemake merges ``--configfile`` over the
# default config/config.yaml; with ``--configfile`` no key is taken from it (these would
# silently evaluate the demo campaign's files, the others its tasks and analyses).
DATA_KEYS = ("campaign", "assessments", "runs", "collection", "topics", "simulate")
OPTIONAL_DATA_KEYS = ("collection", "topics", "simulate")


def own_campaign_data(config: dict, given: dict, files, known=()) -> None:
    """With ``--configfile FILES`` (their merged content and ``--config`` values in
    ``given``), the config is theirs alone: nothing is inherited from config/config.yaml (the
    demo campaign), so a missing key is an error naming it, not the demo's value. A missing
    ``campaign``, ``assessments`` or ``runs`` is named here, with the key of ``given`` that
    looks like a misspelling of it (one not among the ``known`` config keys); a missing
    ``collection`` or ``topics`` means none; the other keys are checked by the schema."""
    missing = [k for k in DATA_KEYS if k not in given and k not in OPTIONAL_DATA_KEYS]
    if missing:
        misspelt = [f"{k!r} is not a config key: did you mean {close[0]!r}?" for k in given if known and k not in known
                    for close in [_close_keys(str(k), missing)] if close]
        raise ConfigError(f"config {', '.join(map(str, files))}: no {', '.join(repr(k) for k in missing)} given "
                          + (f"({'; '.join(misspelt)}) " if misspelt else "")
                          + "(with --configfile nothing is taken from config/config.yaml, the demo campaign: "
                          "give them in your config file)")
    config.clear()
    config.update(copy.deepcopy(given))
    for k in OPTIONAL_DATA_KEYS:
        config.setdefault(k, None)


def demo_plan(config: dict) -> dict | None:
    """With a ``simulate:`` block whose campaign is not there yet (no ``OUT/campaign.json``):
    the files rule ``simulate_demo`` will write (:func:`inexflow.simulate.simulate.planned_files`),
    so the DAG can be built on a fresh clone. None otherwise."""
    sim = config.get("simulate")
    if not sim or (Path(sim["out"]) / "campaign.json").exists():
        return None
    from inexflow.simulate.simulate import planned_files  # pandas: the Snakefile imports this module without it

    try:
        return planned_files(sim["out"], simulation_config(sim))
    except ValueError as e:
        raise ConfigError(f"config simulate: {e}") from None


def _matching(pattern: str, paths) -> list[str]:
    """The planned paths a config path (file, directory or glob) stands for."""
    d = pattern.rstrip("/") + "/"
    return sorted(p for p in paths if p == pattern or fnmatch.fnmatchcase(p, pattern)
                  or (p.startswith(d) and "/" not in p[len(d):]))


def discover_runs(config: dict, tasks: dict | None = None, planned: dict | None = None,
                  problems: Problems | None = None) -> dict[str, dict]:
    """The campaign's runs, {name: {file, task, label, participant, eval_tasks}}: the files the
    ``runs`` entries match (of the ``planned`` ones when the campaign is still to be
    simulated), each assigned to the evaluation tasks ``tasks`` that select it. A file's error
    is collected in ``problems`` and the others go on (raised at once without it)."""
    p = problems or Problems()
    before = len(p.lines)
    runs: dict[str, dict] = {}
    planned = (planned or {}).get("runs", {})
    for i, entry in enumerate(config["runs"]):
        files = _matching(entry["path"], planned) if planned else sorted(glob.glob(entry["path"]))
        if not files:
            raise ConfigError(f"config runs[{i}]: path {entry['path']!r} matches no file" + (
                " (for the demo campaign run 'make demo' or 'inexflow simulate --out demo' first)"
                if Path(entry["path"]).parts[:1] == ("demo",) else _in_parentheses(looked_in(entry["path"], planned))))
        untasked = []  # the files no task is given for: said once for the entry
        for f in files:
            with p.check():
                if not _add_run(runs, i, entry, f, planned):
                    untasked.append(f)
        if untasked:
            more = f" and {len(untasked) - 1} more of the files it matches" if len(untasked) > 1 else ""
            with p.check():
                raise ConfigError(f"config runs[{i}]: no task for {untasked[0]}{more}: give 'task' in the entry "
                                  "(text runs do not name their task)")
    if problems is None:
        p.raise_any()
    if len(p.lines) == before:
        select_runs(tasks if tasks is not None else evaluation_tasks(config), runs, tasks_key(config))
    return runs


def _add_run(runs: dict, i: int, entry: dict, f: str, planned: dict) -> bool:
    """The run of file ``f``, matched by ``runs[i]`` (``entry``), added to ``runs``; False, and
    nothing added, when neither the entry nor the file names its task."""
    name, stem = Path(f).name, run_name(f)
    if stem in runs:
        raise ConfigError(f"config runs[{i}]: run name {stem!r} of {f} is already used by "
                          f"{runs[stem]['file']} (run names are file names without extension, nor compression suffix)")
    sniff = planned[f] if planned else sniff_run(f)
    task_name = entry.get("task") or sniff.get("task_label")
    if not task_name:
        return False
    scoring_type = normalise_task(task_name)
    if scoring_type is None:  # the entry's task is wrong for all its files alike, a file's for that file
        raise ConfigError(f"config runs[{i}].task: {unknown_task(task_name)}" if entry.get("task") else
                          f"config runs[{i}] ({f}): {unknown_task(task_name)}")
    participant = entry.get("participant")
    if not participant and entry.get("participant_pattern"):
        try:
            m = re.search(entry["participant_pattern"], name)
        except re.error as e:
            raise ConfigError(f"config runs[{i}].participant_pattern {entry['participant_pattern']!r} is not "
                              f"a valid regular expression: {e}") from None
        if not m or "participant" not in m.groupdict():
            raise ConfigError(f"config runs[{i}]: participant_pattern {entry['participant_pattern']!r} "
                              f"does not match {name!r} with a group named 'participant'")
        participant = m.group("participant")
    participant = participant or sniff.get("participant") or stem
    runs[stem] = {"file": f, "type": scoring_type, "label": task_name, "participant": str(participant)}
    return True


def assessment_files(spec: str, planned=None, key="assessments.path") -> list[str]:
    """A file, a directory (its files, sorted) or a glob -> the assessment files (of the
    ``planned`` ones when the campaign is still to be simulated)."""
    p = Path(spec)
    if planned:
        files = _matching(spec, planned)
    elif p.is_dir():
        files = sorted(str(f) for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
    elif p.is_file():
        files = [spec]
    else:
        files = sorted(glob.glob(spec))
    if not files:
        raise ConfigError(f"config {key} {spec!r}: no assessment file found{_in_parentheses(looked_in(spec, planned))}")
    return files


def looked_in(spec: str, planned=None) -> str:
    """Where a relative path of the config that names nothing was looked for, as a clause to add to
    its error: the working folder (the one snakemake or ``inexflow check-config`` runs in), not the
    config file's folder; nothing for an absolute path, or when the path was matched against the
    files a campaign still to be simulated will have (``planned``)."""
    if Path(spec).is_absolute() or planned:
        return ""
    return f"a relative path is read from the working folder, {os.getcwd()}, not from the config file's"


def _in_parentheses(clause: str) -> str:
    return f" ({clause})" if clause else ""


def _safe_load(text):
    """YAML as ``yaml.safe_load`` reads it, by libyaml's parser where PyYAML has it (8x faster
    on the config schema, which every ``snakemake`` call reads)."""
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """The safe loader, refusing a key given twice in one mapping (PyYAML keeps the last one
    silently)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice (first on line {seen[key] + 1})", key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


# the most values a config may expand to: a YAML alias bomb ("billion laughs") expands to
# billions from a few lines, which every later step would walk
MAX_CONFIG_VALUES = 1_000_000


def check_size(data, path) -> None:
    """A config that expands (through YAML aliases) to more than :data:`MAX_CONFIG_VALUES`
    values is an :class:`InputError`, found without expanding it."""
    count, stack = 0, [data]
    while stack:
        v = stack.pop()
        count += 1
        if count > MAX_CONFIG_VALUES:
            raise InputError(path, None, f"expands to more than {MAX_CONFIG_VALUES:,} values (YAML aliases "
                             "repeating each other?)", "a campaign config")
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _flow(value) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()


def _close_keys(key: str, keys) -> list[str]:
    """The keys of ``keys`` that ``key`` is most likely a misspelling of (at most one)."""
    return difflib.get_close_matches(key, [str(k) for k in keys], n=1, cutoff=0.75)


def key_lines(configfiles):
    """A function giving where a config key was written: for a key path (``("runs", 0,
    "task")``) and the value the merged config holds there, ``FILE:line N`` of the last of
    ``configfiles`` that gives the key (with that value, where one is given and the file's is a
    plain scalar: a ``--config`` value given over the file's is not the file's); None where none
    does (a default, a ``--config`` value). The files are read as nodes, with their lines, at the first
    question (a valid config asks none)."""
    where_any = object()  # no value to compare: any the file gives
    trees: list | None = None

    def read():
        out = []
        for f in configfiles:
            try:
                node = yaml.compose(decode_text(f, read_bytes(f, "config file")),
                                    Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            except (InputError, yaml.YAMLError):
                continue  # an unreadable file is reported by load_yaml
            if isinstance(node, yaml.MappingNode):
                out.append((f, node))
        return out

    def where(path, value=where_any) -> str | None:
        nonlocal trees
        trees = read() if trees is None else trees
        for f, node in reversed(trees):
            line = None
            for k in path:
                if isinstance(node, yaml.MappingNode):
                    entry = next(((kn, vn) for kn, vn in node.value if kn.value == str(k)), None)
                    if entry is None:
                        break
                    line, node = entry[0].start_mark.line, entry[1]
                elif isinstance(node, yaml.SequenceNode) and isinstance(k, int) and 0 <= k < len(node.value):
                    node = node.value[k]
                    line = node.start_mark.line
                else:
                    break
            else:
                if line is None:
                    continue
                if value is not where_any and not _same(node, value):
                    return None  # the value was given elsewhere (--config), over this file's
                return f"{f}:line {line + 1}"
        return None

    return where


def _same(node, value) -> bool:
    """Whether the YAML ``node`` writes ``value`` (scalars compared as text, lists and mappings
    item by item)."""
    if isinstance(node, yaml.ScalarNode):
        return not isinstance(value, (dict, list)) and node.value == str(value)
    if isinstance(node, yaml.SequenceNode):
        return isinstance(value, list) and len(node.value) == len(value) \
            and all(_same(n, v) for n, v in zip(node.value, value))
    if isinstance(node, yaml.MappingNode):
        return isinstance(value, dict) and len(node.value) == len(value) \
            and all(k.value in value and _same(n, value[k.value]) for k, n in node.value)
    return False


def _key_in_message(where, config: dict):
    """``FILE:line N`` of the config key a check's message starts with (``config
    runs[0].task: ...``, ``config assessments.path '...': ...``), by :func:`key_lines`' ``where``
    with the value ``config`` holds there (a value given by ``--config`` over a file's is not
    the file's); None where the message names no key a file gives (a key with a dot, as a task
    named ``CO.Focussed``, is looked up as dotted parts and so not found)."""
    def locate(message: str) -> str | None:
        m = re.match(r"config ([A-Za-z_][^\s:'(]*)", message)
        if m is None:
            return None
        path: list = []
        for part in m.group(1).split("."):
            name = re.fullmatch(r"([^\[\]]+)((?:\[\d+\])*)", part)
            if name is None:
                return None
            path += [name.group(1), *map(int, re.findall(r"\[(\d+)\]", name.group(2)))]
        value = config
        for k in path:
            try:
                value = value[k]
            except (KeyError, IndexError, TypeError):
                return None
        return where(tuple(path), value)
    return locate


def schema_errors(config: dict, schema: dict, where=None) -> list[str]:
    """Every violation of the JSON schema as one line ``config.KEY.PATH: problem``, with what
    is allowed (the keys of a mapping, or the one a misspelt key is closest to) and an example
    (the schema's, or its default); with ``where`` (:func:`key_lines`), the line starts with the
    file and line that give the key."""
    validator = jsonschema.Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(err.absolute_path)
        sub = err.schema if isinstance(err.schema, dict) else {}
        hint = []
        if err.validator == "additionalProperties" and sub.get("properties"):
            unexpected = [k for k in err.instance if k not in sub["properties"]] if isinstance(err.instance, dict) \
                else []
            close = {k: c[0] for k in unexpected for c in [_close_keys(str(k), sub["properties"])] if c}
            if len(close) == 1 == len(unexpected):
                hint.append(f"did you mean {close[unexpected[0]]!r}?")
            elif close:
                hint.append("; ".join(f"{k!r}: did you mean {c!r}?" for k, c in close.items()))
            else:
                hint.append(f"allowed: {', '.join(sub['properties'])}")
            path += tuple(unexpected[:1])  # the line of the (first) unexpected key
        example = (sub.get("examples") or [sub.get("default")])[0]
        if example not in (None, {}, []) and err.validator != "additionalProperties":
            hint.append(f"e.g. {_flow(example)}")
        at = (where(path, err.instance) if len(path) == len(err.absolute_path) else where(path)) if where else None
        key = ".".join(str(p) for p in err.absolute_path)
        out.append(f"{at + ': ' if at else ''}config{'.' + key if key else ''}: {err.message}"
                   + (f" ({'; '.join(hint)})" if hint else ""))
    return out


def validate_config(config: dict, problems: Problems | None = None) -> tuple[dict, dict, dict | None]:
    """Checks the schema cannot express. Returns the campaign's evaluation tasks, its
    assessment sets and the files a simulated campaign will write (None when it is there).
    Errors are collected in ``problems`` (raised at once without it)."""
    p = problems or Problems()
    known_quants = sorted({n for _, n in QUANTISATIONS})
    for q in config["quantisations"]:
        if q not in known_quants:
            p.lines.append(f"config quantisations: unknown {q!r} (known: {', '.join(known_quants)}; e.g. [gen])")
    tasks = evaluation_tasks(config)
    for t in tasks.values():
        for fam in t["families"]:
            if fam not in FAMILIES:
                p.lines.append(f"config {t['key']}.families: unknown family {fam!r} "
                               f"(one of {', '.join(sorted(FAMILIES))})")
        for q in t["quantisations"]:
            if q not in known_quants and q not in config["quantisations"]:  # those reported once above
                p.lines.append(f"config {t['key']}.quantisations: unknown {q!r} (known: {', '.join(known_quants)})")
    pool = config.get("pool") or {}
    if "target" in pool and "depth" in pool:
        p.lines.append("config pool: give one of 'target' (documents per topic) or 'depth', not both "
                       "(e.g. pool: {target: 600})")
    for t in pool.get("tasks", []):
        with p.check():
            check_task_name(config, tasks, "pool.tasks", t)
    plan = demo_plan(config)
    planned = (plan or {}).get("assessments")
    for key in ("collection", "topics"):  # what a later job would fail on, named before anything runs
        path = config.get(key)
        if path and not plan and not (Path(path).is_dir() if key == "collection" else Path(path).is_file()):
            what = "a directory of XML documents" if key == "collection" else "a topic file"
            problem = "not found" if not Path(path).exists() else f"is not {what}"
            where = looked_in(path) if problem == "not found" else ""
            with p.check():  # named with the config's file and line, as the other checks' errors
                raise ConfigError(f"config {key}: {path!r} {problem} (give the path of {what}, or leave the key out"
                                  + (f"; {where})" if where else ")"))
    sets = assessment_sets(tasks, config["assessments"])
    for sid, aset in sets.items():
        users = [t for t in tasks.values() if t["aset"] == sid]
        key = f"{users[0]['key']}.assessments.path" if sid != "main" else "assessments.path"
        with p.check():
            aset["files"] = assessment_files(aset["path"], planned, key)
            if not plan:  # the scale is sniffed from the first file, once it exists
                check_quantisations(aset, list(dict.fromkeys(q for t in users for q in t["quantisations"])), key)
    for name, t in tasks.items():  # what the scoring options refuse and the schema cannot say
        try:
            task_options(config, name, tasks)
        except UsageError as e:
            m = re.match(r"option (\w+): (.*)", str(e))
            key = m and (f"{t['key']}.{m.group(1)}" if t.get(m.group(1)) is not None and m.group(1) in OPTION_KEYS
                         else m.group(1))
            with p.check():  # located at the key's line; a top-level key's problem said once, not once per task
                raise ConfigError(f"config {key}: {m.group(2)}" if m else f"config {t['key']}: {e}") from None
    if all(f in FAMILIES for t in tasks.values() for f in t["families"]):
        check_measure_keys(config, tasks, p)
    if problems is None:
        p.raise_any()
    return tasks, sets, plan


def assessment_format(aset: dict, plan: dict | None) -> str:
    """The format of an assessment set (``aset["files"]`` found): the configured one, else the
    simulation's (``plan``), else sniffed from its first file."""
    fmt = aset.get("format", "auto")
    if fmt != "auto":
        return fmt
    first = aset["files"][0]
    if plan:
        return plan["formats"][first]
    try:
        return detect_assessment_format(first)
    except OSError as e:
        raise ConfigError(f"config assessments.path: cannot read {first}: {e.strerror or e}") from None


def default_tasks(config: dict) -> dict[str, dict]:
    """The ``tasks:`` of a config that names no evaluation task: one per scoring type, scored with
    the type's default families for the campaign's kind of assessments (the table of scoring
    types, :data:`inexflow.io.task_labels.SCORING_TYPES`; TREC qrels: the ``trec`` family), ranked
    by the first of their headline measures. A type without runs is left out of the workflow."""
    a = config["assessments"]
    fmt = a.get("format", "auto")
    if fmt == "auto":
        first = assessment_files(a["path"])[0]
        try:
            fmt = detect_assessment_format(first)
        except OSError as e:
            raise ConfigError(f"config assessments.path: cannot read {first}: {e.strerror or e}") from None
    kind = {"fol": "passage", "trec": "document"}.get(fmt, "element")
    out = {}
    for t in TASKS:
        fams = ["trec"] if kind == "document" else DEFAULT_FAMILIES.get((t, kind))
        if fams:
            out[t] = {"families": fams, "main_measure": headline_measures(fams, measure_options(config))[0]}
    return out


def check_quantisations(aset: dict, quants, key="assessments.path"):
    """Every quantisation in ``quants`` is defined on the scale of the assessment set
    ``aset`` ({path, format, files}; the scale sniffed from the first file that shows an
    element, as the parse stage will read it)."""
    fmt = aset.get("format", "auto")
    for first in aset["files"][:1]:  # a topic file or a run given for the qrels: said before anything runs
        root = xml_root(first) if fmt in ("auto", "inex2002", "inex2005", "inex2006") else None
        if root and "topic" in root.lower():
            raise ConfigError(f"config {key}: {first} is a topic file (root <{root}>), not assessments (expected INEX "
                              "assessments, FOL or TREC qrels)")
        odd = fol_head_problem(first) if fmt == "fol" or (fmt == "auto" and detect_assessment_format(first) == "fol") \
            else None
        if odd:
            raise ConfigError(f"config {key}: {first}:{odd}: not FOL qrels (a run file? expected topic Q0 doc "
                              "rel_chars doc_chars [bep [offset:length ...]])")
    scale = None
    for first in aset["files"]:  # the first file that tells (a topic may have no element)
        try:
            scale = sniff_scale(first) if fmt in ("auto", "inex2005", "inex2006") else fmt
        except OSError as e:
            raise ConfigError(f"config {key}: cannot read {first}: {e.strerror or e}") from None
        if scale is not None:
            break
    if scale is None:
        return  # no file shows an element yet: the parse stage reads them all
    known = {n for _, n in QUANTISATIONS}
    for q in quants:
        if q not in known:
            continue  # an unknown name is said once, by the check of the names
        try:
            get_quantisation(scale, q)
        except UsageError as e:
            raise ConfigError(f"config quantisations: {e} ({first})") from None


def measure_options(config: dict, task: dict | None = None) -> dict:
    """The config keys that decide which measure names the families emit (an evaluation
    task's own ``cutoffs`` first)."""
    opts = {k: config.get(k) for k in ("cutoffs", "cutoff_ks", "bepd_a", "max_list_length")}
    if task and task.get("cutoffs") is not None:
        opts["cutoffs"] = task["cutoffs"]
    return opts


def check_measure_keys(config: dict, tasks: dict | None = None, problems: Problems | None = None):
    """Every key that names measures (but those of ``analysis``:
    :func:`inexflow.campaign.analyses.resolve_analyses`) is checked against the measure
    catalogue of the task's families (``inexflow.measures.registry.measure_names``) before
    anything runs. Errors are collected in ``problems`` (raised at once without it)."""
    p = problems or Problems()
    tasks = tasks if tasks is not None else evaluation_tasks(config)
    for t in tasks.values():
        with p.check():
            check_measures([t["main_measure"]], t["families"], measure_options(config, t),
                           f"config {t['key']}.main_measure")
    for task, names in (config.get("correlation") or {}).get("measures", {}).items():
        key = f"correlation.measures.{task}"
        with p.check():
            t = check_task_name(config, tasks, key, task)
            check_measures(names, t["families"], measure_options(config, t), f"config {key}")
    if problems is None:
        p.raise_any()


SCHEMA = Path("workflow") / "schemas" / "config.schema.yaml"
DEFAULT_CONFIG = Path("config") / "config.yaml"


def schema_path() -> Path:
    """The workflow's config schema: the one of this installation's workflow (the wheel's or
    the source tree's, :func:`inexflow.campaign.deploy.workflow_dir`), else the one of the workflow
    directory the command runs in."""
    try:
        own = workflow_dir() / SCHEMA
    except UsageError:
        own = None
    for p in (own, Path.cwd() / SCHEMA):
        if p is not None and p.is_file():
            return p
    raise ConfigError(f"the workflow's config schema ({SCHEMA}) is not here: run this in the inexflow workflow "
                      "directory (the one holding workflow/ and config/)")


def load_yaml(path) -> dict:
    """A YAML config file as a dict; a syntax error names the file and line (Snakemake's own
    message names neither)."""
    text = decode_text(path, read_bytes(path, "config file"))
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e)
        raise InputError(path, f"line {mark.line + 1}" if mark else None, f"not valid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(path, None, f"a YAML {type(data).__name__}, not a mapping of config keys")
    check_size(data, path)
    return data


def merge(base: dict, new: dict) -> dict:
    """``new`` merged into ``base`` (nested mappings key by key), as Snakemake merges configs."""
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def _unknown_keys(config: dict, schema: dict) -> list[tuple] | None:
    """The paths of the keys the schema does not know, when those are all the schema finds
    wrong (else None: a value of the wrong shape stops the other checks)."""
    out = []
    for err in jsonschema.Draft202012Validator(schema).iter_errors(config):
        if err.validator != "additionalProperties" or not isinstance(err.instance, dict):
            return None
        known = set(err.schema.get("properties") or {})
        out += [(*err.absolute_path, k) for k in err.instance if k not in known]
    return out


def config_digest(config: dict) -> str:
    """The first 12 hex digits of the SHA-256 of the config as the workflow resolved it (defaults
    filled in, keys sorted): what the report states so that a number can be traced to its config."""
    text = json.dumps(config, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def fill_defaults(config: dict, schema: dict) -> dict:
    """The schema's ``default`` values for absent keys, at every level (as Snakemake's
    ``validate`` does), without importing Snakemake."""
    for key, sub in (schema.get("properties") or {}).items():
        if key not in config and "default" in sub:
            config[key] = copy.deepcopy(sub["default"])
        if isinstance(config.get(key), dict):
            fill_defaults(config[key], sub)
    return config


def load_config(configfiles=(), default=DEFAULT_CONFIG) -> tuple[dict, Campaign]:
    """The config the workflow would build from ``default`` and ``--configfile`` files, with
    every check made before a job runs: (config, :class:`Campaign`). Errors are :class:`ConfigError` or
    :class:`~inexflow.errors.InputError`."""
    if not configfiles and not Path(default).is_file():
        raise ConfigError(f"no config: {default} is not here and no --configfile was given")
    config = load_yaml(default) if Path(default).is_file() else {}
    given: dict = {}
    for f in configfiles:
        merge(given, load_yaml(f))
    merge(config, given)
    return config, prepare_config(config, given, configfiles)


# config keys that changed meaning, with what replaced them
RENAMED = [("depth_reductions", "pool_depth_percents",
            "X% is now Pal et al.'s X% pool (the depth where each topic's regenerated pool first holds X% of the "
            "original pool's documents), no longer the share of depth removed; e.g. [5, 10, 20, ..., 90, 100]")]
# config keys that no longer do anything, with why: accepted with a warning for one release
RETIRED = {"stage_server": "every job is now its own process, as Snakemake runs it; remove the key"}


def prepare_config(config: dict, given: dict | None = None, configfiles=(), schema=None) -> Campaign:
    """Everything the workflow checks and fills in before a job runs, in place: the
    campaign's own data keys with ``--configfile`` (``given`` = their merged content), the
    schema (errors name the key; defaults filled in), :func:`validate_config`. Returns the
    :class:`~inexflow.campaign.tasks.Campaign`, with its runs (:func:`discover_runs`)."""

    for f in configfiles:  # what Snakemake's loader lets through: a key given twice, an alias bomb
        if Path(f).is_file():
            load_yaml(f)
    with open(schema or schema_path(), encoding="utf-8") as fh:
        schema_doc = _safe_load(fh)
    if configfiles:
        own_campaign_data(config, given or {}, configfiles, set(schema_doc.get("properties") or ()))
    for old, new, why in RENAMED:
        if old in (config.get("analysis") or {}):
            raise ConfigError(f"config analysis.{old} was replaced by analysis.{new}: {why}")
    for key, why in RETIRED.items():
        if key in config:
            del config[key]
            log.warning("config %s no longer has an effect: %s", key, why)
    # the keys' lines: in the --configfile files, else in the demo's config/config.yaml the workflow read
    located = [f for f in configfiles if Path(f).is_file()] or ([DEFAULT_CONFIG] if DEFAULT_CONFIG.is_file() else [])
    errors = schema_errors(config, schema_doc, key_lines(located))
    unknown = _unknown_keys(config, schema_doc) if errors else []
    if unknown is None:  # a value of the wrong shape: the other checks cannot run
        files = f" {', '.join(map(str, configfiles))}" if configfiles else ""
        raise ConfigError(f"config{files} is invalid (see docs/configuration.md):\n  " + "\n  ".join(errors))
    for path in unknown:  # misspelt keys are named with the errors the other checks find
        parent = config
        for k in path[:-1]:
            parent = parent[k]
        del parent[path[-1]]
    problems = Problems(errors, locate=_key_in_message(key_lines(located), config))
    fill_defaults(config, schema_doc)
    if not config.get("tasks") and not config.get("evaluation_tasks") and not demo_plan(config):
        with problems.check():  # the defaults, as the schema's are filled in (read from the assessments)
            config["tasks"] = default_tasks(config)
        if not config.get("tasks"):
            problems.raise_any()
    tasks, sets, planned = validate_config(config, problems)
    runs, analyses = {}, []
    before = len(problems.lines)
    with problems.check():
        runs = discover_runs(config, tasks, planned, problems)
    if runs and len(problems.lines) == before and all("files" in aset for aset in sets.values()):
        with problems.check():
            formats = {sid: assessment_format(aset, planned) for sid, aset in sets.items()}
            analyses = resolve_analyses(config, tasks, runs, formats, lambda t: measure_options(config, t), problems)
    problems.raise_any()
    pool = dict(config.get("pool") or {})
    if "target" not in pool and "depth" not in pool:
        pool["target"] = DEFAULT_POOL_TARGET
    pool.setdefault("tasks", list(tasks))
    correlation = (config.get("correlation") or {}).get("measures")
    if correlation is None:
        correlation = {t: headline_measures(et["families"], measure_options(config, et)) for t, et in tasks.items()
                       if runs_of(runs, t)}
    return Campaign(config["campaign"], tasks, sets, runs, planned, pool, correlation, analyses)
