"""The campaign model: evaluation tasks, each with its runs, assessments, topics and settings.

INEX evaluated a campaign as a set of *evaluation tasks*. INEX 2005 had ten (Kazai & Lalmas,
INEX 2005 evaluation measures, section 6): CO.Focussed, COS.Focussed, CO.Thorough,
COS.Thorough, CO.FetchBrowse, COS.FetchBrowse, SSCAS, SVCAS, VSCAS and VVCAS. Each had an
EvalJ block naming its TASK, METRICS, ALPHA, OVERLAP, QUANT_FUNCTIONS, DCV,
ASSESSMENTS_DIR, QUERY_TYPE and POOLS. In the workflow config an evaluation task is::

    evaluation_tasks:
      COS.Focussed:                 # TASK
        type: focused               # the scoring type (how runs are scored)
        runs: {labels: [COS.Focussed]}   # submissions by task label and/or {paths: [GLOB]}
        assessments: {path: ..., format: inex2005}   # ASSESSMENTS_DIR (default: the campaign's)
        query_type: CO+S            # QUERY_TYPE (recorded in evaluation_tasks.tsv)
        topic_subset: [202, 203]    # POOLS (default: the campaign's topic_subset)
        families: [xcg]             # METRICS
        main_measure: MAep
        overlap: "on"               # OVERLAP
        alpha: 1.0                  # ALPHA
        quantisations: [gen, strict, genLifted]   # QUANT_FUNCTIONS (default: the campaign's)
        cutoffs: [10, 25, 50]       # DCV (default: the campaign's)

Without ``runs`` an evaluation task takes the submissions whose task label is its name
(matched as :func:`inexflow.io.task_labels.task_key` matches labels). The older ``tasks:``
mapping stays as a shorthand: ``tasks.T`` is the evaluation task ``T`` of scoring type
``T`` holding every run of that type, on the campaign's assessments and settings.

A run is scored once per evaluation task it belongs to; assessments are parsed once per
*assessment set* (a distinct path and format) and recall-bases are built per (assessment
set, quantisation).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

from inexflow.errors import ConfigError
from inexflow.io.task_labels import TASKS, task_key
from inexflow.model.options import Options, default_overlap

# the keys an evaluation task may set that override the campaign's top-level scoring options
OPTION_KEYS = ("overlap", "alpha", "quantisations", "cutoffs", "topic_subset")
# the id of the campaign's own assessments (config ``assessments``)
MAIN_SET = "main"


def _error(message: str):
    return ConfigError(message)


def tasks_key(config: dict) -> str:
    """The config key the evaluation tasks come from: ``evaluation_tasks`` or the shorthand
    ``tasks``; giving both or neither is an error naming them."""
    has_full, has_short = bool(config.get("evaluation_tasks")), bool(config.get("tasks"))
    if has_full and has_short:
        raise _error("config: give either 'tasks' (the shorthand: one evaluation task per scoring type) or "
                     "'evaluation_tasks', not both")
    if not has_full and not has_short:
        raise _error("config: no evaluation task: give 'evaluation_tasks' (or the shorthand 'tasks', one entry per "
                     "scoring type)")
    return "evaluation_tasks" if has_full else "tasks"


def evaluation_tasks(config: dict) -> dict[str, dict]:
    """Every evaluation task of ``config`` with every key filled in: ``type``, ``labels``,
    ``paths``, ``assessments`` ({path, format}), ``query_type``, ``families``,
    ``main_measure`` and the :data:`OPTION_KEYS` (the campaign's values where the task has
    none). ``key`` is the config key it was given under (``evaluation_tasks.NAME`` or
    ``tasks.NAME``). Reads no file."""
    key = tasks_key(config)
    campaign_assessments = dict(config.get("assessments") or {})
    campaign_assessments.setdefault("format", "auto")
    out = {}
    for name, t in config[key].items():
        where = f"{key}.{name}"
        if key == "tasks":
            kind, labels, paths = name, None, None
        else:
            kind = t.get("type")
            runs = t.get("runs") or {}
            labels, paths = runs.get("labels"), runs.get("paths")
            if labels is None and paths is None:
                labels = [name]
        if kind not in TASKS:
            raise _error(f"config {where}{'' if key == 'tasks' else '.type'}: unknown scoring type {kind!r} "
                         f"(one of {', '.join(TASKS)})")
        a = dict(t.get("assessments") or campaign_assessments)
        a.setdefault("format", "auto")
        et = {"key": where, "type": kind, "labels": labels, "paths": paths, "assessments": a,
              "query_type": t.get("query_type"), "families": list(t["families"]),
              "main_measure": t["main_measure"]}
        for k in OPTION_KEYS:
            et[k] = t[k] if t.get(k) is not None else config.get(k)
        if et["topic_subset"] is not None:  # YAML reads 202 as a number: topic ids are strings
            et["topic_subset"] = [str(x) for x in et["topic_subset"]]
        out[name] = et
    return out


def task_options(config: dict, task: str | None = None, tasks: dict | None = None) -> Options:
    """The scoring options of one evaluation task of a workflow config: the top-level keys, then
    the task's own ``overlap``, ``alpha``, ``quantisations``, ``cutoffs`` and ``topic_subset``
    (:data:`OPTION_KEYS`). ``tasks``: the campaign's evaluation tasks, when they are built
    already (:attr:`Campaign.eval_tasks`)."""
    top = {k: config[k] for k in Options.names() if k in config and k not in ("overlap", "alpha")}
    if tasks is None:
        tasks = evaluation_tasks(config) if task else {}
    t = tasks.get(task) or {}
    return Options.from_dict({**top, **{k: t[k] for k in OPTION_KEYS if t.get(k) is not None}})


def assessment_sets(tasks: dict[str, dict], campaign_assessments: dict) -> dict[str, dict]:
    """The distinct assessment sets of the evaluation tasks, {id: {path, format}}: ``main``
    for the campaign's own, else the path's last component (made unique). Each task gets its
    set's id as ``aset``."""
    main = (campaign_assessments["path"], campaign_assessments.get("format", "auto"))
    sets: dict[tuple, str] = {main: MAIN_SET}
    for et in tasks.values():
        spec = (et["assessments"]["path"], et["assessments"]["format"])
        if spec not in sets:
            stem = re.sub(r"[^A-Za-z0-9._+-]", "_", Path(spec[0].rstrip("/*")).name) or "set"
            sid, i = stem, 2
            while sid in sets.values():
                sid, i = f"{stem}-{i}", i + 1
            sets[spec] = sid
        et["aset"] = sets[spec]
    used = {et["aset"] for et in tasks.values()}
    return {sid: {"path": p, "format": f} for (p, f), sid in sets.items() if sid in used}


def select_runs(tasks: dict[str, dict], runs: dict[str, dict], key: str) -> None:
    """Every run's evaluation tasks (``runs[name]['eval_tasks']``, in config order). A run in
    none is an error, as is a run whose scoring type differs from its evaluation task's."""
    for r in runs.values():
        r["eval_tasks"] = []
    for name, et in tasks.items():
        for stem, r in runs.items():
            if et["labels"] is None and et["paths"] is None:
                chosen = r["type"] == et["type"]
            else:
                chosen = any(task_key(lab) == task_key(r.get("label") or "") for lab in et["labels"] or ()) or any(
                    fnmatch.fnmatchcase(r["file"], g) for g in et["paths"] or ())
            if not chosen:
                continue
            if r["type"] != et["type"]:
                raise _error(f"config {et['key']}: run {stem} ({r['file']}) is a {r['type']} run but the evaluation "
                             f"task scores {et['type']} runs")
            r["eval_tasks"].append(name)
    for stem, r in runs.items():
        if not r["eval_tasks"]:
            what = f"a {r['type']} run" + (f" labelled {r['label']!r}" if r.get("label") else "")
            raise _error(f"config: run {stem} ({r['file']}) is {what} but no entry of '{key}' takes it "
                         f"(configured: {', '.join(tasks)})")


# documents judged per topic when the config gives neither pool.target nor pool.depth: "the
# number of documents judged per query is roughly constant (just over 600 articles)" at INEX
# 2007 (Pal, Mitra & Kamps, section 4)
DEFAULT_POOL_TARGET = 600


@dataclass(frozen=True)
class Campaign:
    """One campaign as its config describes it, checked and resolved once
    (:func:`inexflow.campaign.config.prepare_config`) and read by the workflow, the CLI and the
    tests; nothing of it is written back into the config.

    - ``eval_tasks``: {evaluation task: its settings} (:func:`evaluation_tasks`), each with the
      id of its assessment set (``aset``);
    - ``assessment_sets``: {id: {path, format, files}} (:func:`assessment_sets`);
    - ``runs``: {run name: {file, type (its scoring type), label (its submission's task label),
      participant, eval_tasks}};
    - ``planned``: the files rule simulate_demo will write when the campaign is still to be
      simulated, else None;
    - ``pool``: the config's ``pool`` with its defaults (every evaluation task; a target of
      :data:`DEFAULT_POOL_TARGET` documents per topic when neither target nor depth is given);
    - ``correlation``: {evaluation task: the measures correlated}, the config's or, by default,
      each task with runs and its families' headline measures;
    - ``analyses``: the meta-evaluation analyses that run, by rule name
      (:func:`inexflow.campaign.analyses.resolve_analyses`; the config's ``analysis`` holds
      their settings, its defaults filled in).
    """

    name: str
    eval_tasks: dict[str, dict]
    assessment_sets: dict[str, dict]
    runs: dict[str, dict]
    planned: dict | None = None
    pool: dict = field(default_factory=dict)
    correlation: dict[str, list[str]] = field(default_factory=dict)
    analyses: list[str] = field(default_factory=list)

    def runs_of(self, task: str) -> list[str]:
        return runs_of(self.runs, task)


def runs_of(runs: dict[str, dict], task: str) -> list[str]:
    """The runs of evaluation task ``task``, sorted by name."""
    return sorted(r for r, v in runs.items() if task in v["eval_tasks"])


def check_task_name(config: dict, tasks: dict, key: str, task: str):
    """The evaluation task ``task`` named by config ``key``; an unknown name is an error."""
    if task not in tasks:
        raise _error(f"config {key}: task {task!r} is not configured under '{tasks_key(config)}' "
                     f"(configured: {', '.join(tasks)})")
    return tasks[task]


def used_quantisations(config: dict, tasks: dict[str, dict]) -> list[str]:
    """The quantisations of the campaign: the top-level ones, then any other an evaluation
    task names, in config order."""
    return list(dict.fromkeys(list(config.get("quantisations") or []) +
                              [q for et in tasks.values() for q in et["quantisations"] or ()]))


def task_table(tasks: dict[str, dict], counts: dict[str, int]):
    """One row per evaluation task: its settings and how many runs it scores (``counts``; the
    campaign's EvalJ blocks side by side; written as ``evaluation_tasks.tsv``)."""
    import pandas as pd  # pandas: the Snakefile imports this module without it

    def join(v):
        return "" if v is None else ",".join(map(str, v))

    return pd.DataFrame([{
        "task": n, "type": et["type"], "runs": counts.get(n, 0), "query_type": et["query_type"] or "",
        "assessments": et["assessments"]["path"], "format": et["assessments"]["format"],
        "topics": join(et["topic_subset"]) or "all", "families": join(et["families"]),
        "main_measure": et["main_measure"], "overlap": et["overlap"] or default_overlap(et["type"]),
        "alpha": Options().alpha if et["alpha"] is None else et["alpha"],
        "quantisations": join(et["quantisations"]), "cutoffs": join(et["cutoffs"])} for n, et in tasks.items()])

