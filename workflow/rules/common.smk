# Configuration: validation, run discovery, helpers shared by the rules.
# The library is found by being installed in the Python that runs Snakemake (pip install -e
# '.[workflow]' in a clone, or its wheel with the workflow extra) or in the rules' conda
# environment (--sdm conda, workflow/envs/inexflow.yaml); the workflow never edits sys.path.
import os
import re
import shlex
import sys
from pathlib import Path


def stop(message):
    """End the snakemake call on bad input or config: the message alone on stderr, in the form
    of the CLI's errors (inexflow: error: ...), exit status 1. A WorkflowError would add the
    Snakefile's file, line and stack frames to it."""
    sys.exit(f"inexflow: error: {message}")


try:
    from inexflow import __version__
    from inexflow.campaign.config import config_digest, prepare_config
    from inexflow.campaign.deploy import register_finish
    from inexflow.campaign.stage import (
        code_fingerprint,
        planning_logging,
        settings_of,
        task_settings,
    )
    from inexflow.campaign.tasks import runs_of, task_options
    from inexflow.errors import InputError, UsageError, counted
    from inexflow.io.content_keys import file_keys
    from inexflow.measures.registry import needs, table_cutoffs
    from inexflow.model.shard_plan import (
        folder_stamps,
        plan_path,
        plan_shards,
        read_plan,
        shard_path,
        unchanged_plan,
        write_members,
        write_plan,
    )
except ImportError as e:
    stop(
        f"the inexflow library is not installed in this Python ({e}): "
        "pip install -e '.[workflow]' in a clone of inexflow"
    )


# every rule's params hold the library's code fingerprint: a changed (upgraded, edited)
# library re-runs the jobs it wrote, as a changed stage script does (Snakemake tracks those)
CODE = code_fingerprint()

# one conda environment for every rule, relative to the rule files (--sdm conda)
ENV = "../envs/inexflow.yaml"

# the schema of this workflow, also when it is used as a module from another directory
SCHEMA = str(workflow.source_path("../schemas/config.schema.yaml"))
try:  # the checks `inexflow check-config` makes too; the campaign (inexflow.campaign.tasks.Campaign)
    planning_logging()
    CAMPAIGN = prepare_config(
        config,
        workflow.config_settings.overwrite_config,
        workflow.overwrite_configfiles,
        SCHEMA,
    )
except (UsageError, InputError) as e:  # a config error, an unreadable config file
    stop(e)
# its runs, the files of a simulated campaign still to be written by rule simulate_demo (else
# None), its evaluation tasks and the assessment sets they are scored against
RUNS = CAMPAIGN.runs
PLANNED = CAMPAIGN.planned
ETASKS = CAMPAIGN.eval_tasks
ASETS = CAMPAIGN.assessment_sets
# the evaluation tasks that have runs, in config order; each run is scored once per task
TASKS = [t for t in ETASKS if runs_of(RUNS, t)]
# those scored with the cutoff family: Hiemstra & Mihajlovic's tables
CUTOFF_TASKS = [t for t in TASKS if "cutoff" in ETASKS[t]["families"]]
COLLECTION = config.get("collection") or ""
# the collection indexed once (inexflow.model.shard_plan, collection_index): shards named by their
# documents' content keys, in a folder every campaign over the collection shares
INDEX_CACHE = config["collection_cache"]
_SHARDS = {}
# the main process's plan of the collection's shards, read by its jobs (collection_shards)
SHARD_PLAN = (
    plan_path(INDEX_CACHE, COLLECTION, config["campaign"]) if COLLECTION else ""
)


def collection_shards():
    """{key: number} of the collection's shards, planned once per snakemake call (listing and,
    where a document is new or changed, hashing it); on a fresh clone once simulate_demo has
    written the collection (a checkpoint). The main process records its plan in SHARD_PLAN; the
    processes that run its jobs (on a cluster each builds its job's part of the DAG again) read
    it there instead of listing and hashing the whole collection again, and each shard's
    documents and keys beside the shards: the only list an index_shard job reads. With
    collection_check: folders the main process reuses its last plan while no folder of the
    collection has changed (one stat per folder, not per document)."""
    if "plan" not in _SHARDS:
        if PLANNED:
            checkpoints.simulate_demo.get()
        per_shard = config["collection_shard_docs"]
        by_folders = config["collection_check"] == "folders"
        if not workflow.is_main_process:
            plan = read_plan(SHARD_PLAN, COLLECTION, per_shard)
        elif by_folders:
            plan = unchanged_plan(SHARD_PLAN, COLLECTION, per_shard, INDEX_CACHE)
        else:
            plan = None
        if plan is None:
            try:
                # the folders as they are before the plan: a change while it is made is seen next time
                folders = folder_stamps(COLLECTION) if by_folders else None
                shards = plan_shards(COLLECTION, INDEX_CACHE, per_shard)
            except (
                UsageError,
                InputError,
                OSError,
            ) as e:  # an unreadable document or folder
                stop(f"config collection: {e}")
            if workflow.is_main_process and not workflow.dryrun:
                write_plan(SHARD_PLAN, COLLECTION, per_shard, shards, folders)
                write_members(INDEX_CACHE, shards)  # what each index_shard job reads
            plan = {s.key: s.number for s in shards}
        _SHARDS["plan"] = plan
    return _SHARDS["plan"]


def simulated():
    """On a campaign still to be simulated, defer the calling job (from its input function)
    until rule simulate_demo has written the campaign (a checkpoint), so that the job's params
    can hold its inputs' content keys."""
    if PLANNED:
        checkpoints.simulate_demo.get()


_INPUT_KEYS = {}


def content_keys(files):
    """The content keys of input files (runs, assessments, topics), as a job's params: a file
    replaced by another, even an older-dated one that Snakemake's modification times miss,
    re-runs the jobs that read it. Keys are hashed once per change of a file and cached
    beside the collection's (inexflow.io.content_keys). A param that Snakemake compares must
    not be derived from the job's input (a function of `input` is not), hence the job's files
    come from the campaign here. None until a campaign still to be simulated is written (its
    jobs are created again then, keys and all: simulated())."""
    if PLANNED and not Path(PLANNED["marker"]).exists():
        return None
    if "keys" not in _INPUT_KEYS:
        inputs = [r["file"] for r in RUNS.values()]
        inputs += [f for a in ASETS.values() for f in a["files"]]
        inputs += [config["topics"]] if config.get("topics") else []
        try:
            _INPUT_KEYS["keys"] = file_keys(
                {f: f for f in inputs}, f"{INDEX_CACHE}/keys/inputs.arrow", "input"
            )
        except InputError as e:  # a file gone since the config was checked
            stop(e)
    return [_INPUT_KEYS["keys"][f] for f in files]


def shard_files(wildcards=None):
    """The collection's index shards in shard order (none without a collection): the same list
    whether the plan was made in this call or reused (evaluate_run's params compare it).
    """
    plan = collection_shards() if COLLECTION else {}
    return [shard_path(INDEX_CACHE, key) for key in sorted(plan, key=plan.get)]


# every campaign has its own folders: switching configs never overwrites or re-runs another's
RES = f"results/{config['campaign']}"
# the scheduling priority of the parsing jobs, of the analyses that need the parsed runs but
# no scores (build_pool, evaluate_analysed_run, pool_sampling) and of those that need one
# evaluation task's scores (aggregate_task, topic_sampling, swap_rates, significance): each starts
# as soon as its inputs are there, so the analyses overlap the scoring instead of waiting for all
# of it (the work is the same)
EARLY = 10
# the jobs the report waits for after the runs are scored (aggregate, pool_analyses): first among
# the jobs ready then, before the tasks' tables and curves (aggregate_task), which it does not wait for
REPORT_PATH = EARLY + 1
LOGS = f"logs/{config['campaign']}"
# the Snakemake report's landing page (`report:` in the Snakefile), written by rule report
LANDING = f"{RES}/report/landing.rst"
# what every report states, so that a number can be traced to what made it
PROVENANCE = (
    f"Made by inexflow {__version__} (code {CODE[:12]}) from the config with digest "
    f"{config_digest(config)} (SHA-256 of the resolved config)."
)


wildcard_constraints:
    run="[^/]+",
    family="[a-z_]+",
    quant="[A-Za-z0-9_]+",
    task="[A-Za-z0-9._+-]+",
    aset="[A-Za-z0-9._+-]+",


def run_scores(run):
    """The scores of one run for every evaluation task it belongs to (rule evaluate_run)."""
    return f"{RES}/scores/by_run/{run}.parquet"


def task_score_files(task):
    """The score tables of the runs of one evaluation task."""
    return [run_scores(run) for run in runs_of(RUNS, task)]


def evaluated_runs():
    """The runs of the evaluation tasks, each once, in task order."""
    return list(dict.fromkeys(r for t in TASKS for r in runs_of(RUNS, t)))


def evaluated_runs_scores():
    """The score tables of the runs of the evaluation tasks (rule aggregate reads them)."""
    return [run_scores(r) for r in evaluated_runs()]


def run_keys(runs):
    """{run: content key of its file} of ``runs``, for the jobs that read their per-run tables
    (campaign.stage.check_run_keys refuses a table made from another version of the run);
    None until a simulated campaign is written."""
    keys = content_keys([RUNS[r]["file"] for r in runs])
    return dict(zip(runs, keys)) if keys is not None else None


def keys_of(files):
    """{file: content key} of input files other than runs (assessments, topics), as a job's
    params: parse_assessments and parse_topics record them in their tables; None until a
    simulated campaign is written."""
    keys = content_keys(files)
    return dict(zip(files, keys)) if keys is not None else None


def aset_keys(asets):
    """keys_of the files of the assessment sets ``asets``."""
    return keys_of(list(dict.fromkeys(f for a in asets for f in ASETS[a]["files"])))


def made_of(runs=None, asets=None, settings=None):
    """What a cached table made from the runs ``runs`` and the assessment sets ``asets`` (directly
    or through the tables it read) under the ``settings`` ({name: digest}) records of them
    ({field: {source: content key}}: the run files' keys as run_keys, the assessment files' as
    input_keys, the settings' digests as settings), for the jobs that read it: their params
    table_runs ({table: made_of(...)}), checked by campaign.stage.check_table_runs, which refuses
    a table made from other runs or files, other versions of them or under other settings.
    """
    made = {}
    if runs is not None:
        made["run_keys"] = run_keys(runs)
    if asets is not None:
        made["input_keys"] = aset_keys(asets)
    if settings is not None:
        made["settings"] = settings
    return made


def recallbase_settings():
    """The settings a recall-base is made with (rule ideal_recallbase's params)."""
    return settings_of({"ideal_tie": config["ideal_tie"]})


def run_settings(runs):
    """The settings the scores of ``runs`` are made with: their evaluation tasks' scoring
    (evaluate_run's params tasks) and, where they score with recall-bases, the recall-bases'.
    """
    tasks = list(dict.fromkeys(t for r in runs for t in RUN_TASKS[r]))
    rb = recallbase_settings() if any(run_recallbases(r) for r in runs) else {}
    return rb | task_settings({t: TASK_SCORING[t] for t in tasks})


def index_asets():
    """The assessment sets the collection index is made from: every set's assessed documents."""
    return list(ASETS) if COLLECTION else []


def scored_asets(runs):
    """The assessment sets that the scores of ``runs`` are made from: those of their
    evaluate_run jobs' tables (run_asets) and of the collection index."""
    return list(dict.fromkeys([a for r in runs for a in run_asets(r)] + index_asets()))


def aset_tables_runs(asets, kinds=("elements", "passages", "documents")):
    """{assessment table: made_of} of the parsed tables ``kinds`` of the assessment sets ``asets``."""
    return {aset_tables(a)[k]: made_of(asets=[a]) for a in asets for k in kinds}


def index_runs():
    """{collection index: made_of} (nothing without a collection)."""
    if not COLLECTION:
        return {}
    return {f"{RES}/collection/index.parquet": made_of(asets=index_asets())}


def scored_tables_runs(asets):
    """{table: made_of} of what a job scoring against the assessment sets ``asets`` reads: their
    parsed tables and the collection index."""
    return aset_tables_runs(asets) | index_runs()


def score_tables_runs(scores):
    """{score table: made_of} of evaluation task score tables (a path or a list of them, as
    task_scores and analysis_scores give): the task's runs and what they were scored against.
    """
    paths = [scores] if isinstance(scores, str) else scores
    return {
        p: made_of(runs, scored_asets(runs), run_settings(runs))
        for p in paths
        for runs in [runs_of(RUNS, Path(p).stem)]
    }


def run_scores_runs(runs):
    """{scores/by_run/RUN.parquet: made_of} of ``runs``: what their scores were made against (each
    per-run table's own run is checked by params run_keys)."""
    return {
        run_scores(r): made_of(asets=scored_asets([r]), settings=run_settings([r]))
        for r in runs
    }


def all_scores_runs():
    """{scores/all.parquet: made_of}: the runs of every evaluation task."""
    runs = sorted({r for t in TASKS for r in runs_of(RUNS, t)})
    return {
        f"{RES}/scores/all.parquet": made_of(
            runs, scored_asets(runs), run_settings(runs)
        )
    }


def task_scores(task):
    """One evaluation task's scores in one table, written by aggregate_task. An analysis of
    that task reads it, so that a changed run of another task does not re-run the analysis.
    """
    return f"{RES}/scores/by_task/{task}.parquet"


def aset_tables(aset):
    """The parsed tables of one assessment set."""
    return {
        k: f"{RES}/assessments/{aset}/{k}.parquet"
        for k in ("elements", "passages", "documents")
    }


def task_tables(w):
    return aset_tables(ETASKS[w.task]["aset"])


# the campaign's topic set (rule parse_topics), when the config gives a topic file
TOPICS_TABLE = [f"{RES}/topics.parquet"] if config.get("topics") else []


def summary_tables():
    """The ranked summary of every evaluation task (rule aggregate)."""
    return [f"{RES}/summary/{t}.tsv" for t in TASKS]


def final_outputs():
    extra = list(TOPICS_TABLE)
    extra += [f"{RES}/analysis/{ANALYSIS_OUTPUT[a]}" for a in ANALYSES]
    extra += [f"{RES}/analysis/summary.txt"] if SUMMARY_INPUTS else []
    return (
        [
            f"{RES}/evaluation_tasks.tsv",
            f"{RES}/report.html",
            f"{RES}/scores/means.tsv",
            f"{RES}/pool/depths.tsv",
            f"{RES}/analysis/correlation.tsv",
        ]
        + summary_tables()
        + extra
        + [f"{RES}/plots/{t}.svg" for t in TASKS]
        + cutoff_outputs()
        + [f"{RES}/report/tables/{name}.html" for name in report_tables()]
    )


def finished_message():
    """What `snakemake` prints when the campaign is done: where its results are."""
    files = workflow.overwrite_configfiles
    options = "".join(f" --configfile {shlex.quote(str(f))}" for f in files)
    return "\n".join(
        [
            f"inexflow: campaign {config['campaign']} is evaluated.",
            *(
                f"  ranked runs of task {t}: {s}"
                for t, s in zip(TASKS, summary_tables())
            ),
            f"  every score: {RES}/scores/all.parquet (per topic: {RES}/scores/per_topic.tsv)",
            f"  a plain HTML page: {RES}/report.html",
            f"  the full report: snakemake --report {RES}/snakemake-report.html{options}",
        ]
    )


# the files of one run and of one evaluation task: those of a run or task no longer in the
# config are removed when a run succeeds (remove_stale), so that no table under results/
# describes a run the campaign no longer has
PER_RUN = (
    f"{RES}/runs/{{}}.parquet",
    f"{RES}/firstpos/{{}}.parquet",
    f"{RES}/scores/by_run/{{}}.parquet",
    f"{RES}/judged/{{}}.parquet",
    f"{LOGS}/evaluate_run/{{}}.log",
    f"{LOGS}/benchmarks/evaluate_run/{{}}.tsv",
)
PER_TASK = (
    f"{RES}/summary/{{}}.tsv",
    f"{RES}/scores/by_task/{{}}.parquet",
    f"{RES}/plots/{{}}.svg",
    f"{RES}/cutoff/{{}}_runs.tsv",
    f"{RES}/cutoff/{{}}_ranked.tsv",
    f"{RES}/report/tables/ranking_{{}}.html",
    f"{RES}/report/tables/cutoff_runs_{{}}.html",
    f"{RES}/report/tables/cutoff_ranked_{{}}.html",
    f"{LOGS}/aggregate_task/{{}}.log",
    f"{LOGS}/benchmarks/aggregate_task/{{}}.tsv",
)


def stale_files():
    """The files of runs and evaluation tasks no longer in the config (PER_RUN, PER_TASK)."""
    out = []
    for patterns, keep in ((PER_RUN, set(RUNS)), (PER_TASK, set(TASKS))):
        for pattern in patterns:
            head, tail = pattern.split("{}")
            folder, prefix = os.path.split(head)
            for f in sorted(Path(folder).glob(f"{prefix}*{tail}")):
                name = f.name[len(prefix) : len(f.name) - len(tail)]
                if name not in keep:
                    out.append(f)
    return out


def remove_stale():
    """Remove the files of runs and tasks no longer in the config, saying which."""
    stale = stale_files()
    for f in stale:
        f.unlink()
    if stale:
        print(
            f"inexflow: removed {counted(len(stale), 'file')} of runs or tasks no longer in the "
            f"config (e.g. {stale[0]})"
        )


def finished():
    """What a successful `snakemake` call ends with: the files of runs and tasks no longer in
    the config removed, and where the results are. The root Snakefile's onsuccess runs it,
    and a deployment's (inexflow workflow init) through inexflow.campaign.deploy.finish, as
    Snakemake runs no onsuccess of a module."""
    remove_stale()
    print(finished_message())


register_finish(finished)


def cutoff_outputs():
    """Hiemstra & Mihajlovic's tables per task scored with the cutoff family."""
    return [
        f"{RES}/cutoff/{t}_{kind}.tsv"
        for t in CUTOFF_TASKS
        for kind in ("runs", "ranked")
    ]


def report_tables():
    """The tables of the Snakemake report, each rendered as an HTML page by the rule that
    writes it (table_pages): {name: (tsv, caption, category, subcategory, title)}."""
    tables = {
        f"ranking_{t}": (
            tsv,
            "summary.rst",
            "Scores",
            t,
            f"Runs of task {t} ranked by {ETASKS[t]['main_measure']}",
        )
        for t, tsv in zip(TASKS, summary_tables())
    }
    for t in CUTOFF_TASKS:
        tables[f"cutoff_runs_{t}"] = (
            f"{RES}/cutoff/{t}_runs.tsv",
            "cutoff.rst",
            "Scores",
            t,
            f"Precision and overlap at cut-offs per run, task {t}",
        )
        tables[f"cutoff_ranked_{t}"] = (
            f"{RES}/cutoff/{t}_ranked.tsv",
            "cutoff.rst",
            "Scores",
            t,
            f"Runs of task {t} ranked by precision averaged over the quantisations",
        )
    tables["evaluation_tasks"] = (
        f"{RES}/evaluation_tasks.tsv",
        "tasks.rst",
        "Scores",
        "evaluation tasks",
        "The campaign's evaluation tasks and their settings",
    )
    tables["means"] = (
        f"{RES}/scores/means.tsv",
        "means.rst",
        "Scores",
        "means",
        "Mean scores",
    )
    tables["pool_depths"] = (
        f"{RES}/pool/depths.tsv",
        "pool.rst",
        "Pool",
        "pool depths",
        "Pool depth and size per topic",
    )
    groups = [
        (
            "correlation.rst",
            "measure correlation",
            [
                "correlation",
                "correlation_by_measure",
                "correlation_by_quant",
                "correlation_measures_table",
                "correlation_quants_table",
            ],
        )
    ]
    groups += [v for a, v in ANALYSIS_REPORT.items() if a in ANALYSES]
    if SUMMARY_INPUTS:
        groups.append(("topic_tables.rst", "topic sampling", ["tau_at_60_table"]))
    for caption, subcategory, names in groups:
        for name in names:
            tables[name] = (
                f"{RES}/analysis/{name}.tsv",
                caption,
                "Analyses",
                subcategory,
                name.replace("_", " "),
            )
    return tables


def table_pages(*names):
    """The HTML pages of the report tables ``names`` (report_tables(); a table's file names it
    too), as report outputs of the rule that writes those tables; its stage renders them once
    its own work is done (params ``pages=page_sources``; inexflow.campaign.stage.run_stage), so that no
    job waits for every table of the campaign. A table that this config's report does not show
    has no page.
    """
    tables = report_tables()
    by_file = {v[0]: n for n, v in tables.items()}
    names = [by_file.get(n, n) for n in names]
    flag = report  # Snakemake's report() (snakefmt reads a line that starts with it as the directive)
    return [
        flag(
            f"{RES}/report/tables/{n}.html",
            caption=f"../report/{tables[n][1]}",
            category=tables[n][2],
            subcategory=tables[n][3],
            labels={"table": tables[n][4]},
        )
        for n in names
        if n in tables
    ]


def page_sources(wildcards, output):
    """A rule's params ``pages``: (table, page, title) of each of its ``table_pages`` outputs."""
    tables = report_tables()
    pages = output.pages if "pages" in output.keys() else []
    return [(tables[Path(p).stem][0], p, tables[Path(p).stem][4]) for p in pages]


# the meta-evaluation analyses that run (inexflow.campaign.analyses), with their settings
# under `analysis:`, defaults filled in
ANALYSIS = config.get("analysis") or {}
ANALYSES = CAMPAIGN.analyses
SIGNIFICANCE = "significance" in ANALYSES
ANALYSIS_RUNS = runs_of(RUNS, ANALYSIS["task"]) if ANALYSES else []
# the assessments the analyses re-judge: those of the analysed evaluation task
ANALYSIS_TABLES = aset_tables(ETASKS[ANALYSIS["task"]]["aset"]) if ANALYSES else {}
POOL_RUNS = sorted({r for t in CAMPAIGN.pool["tasks"] for r in runs_of(RUNS, t)})
# the analyses that re-judge passages (pool sampling and depth, leave one group out) need
# FOL qrels; with analysis.rejudge false only those over the scores run (topic sampling,
# swap rates, significance), on the analysed task's measures under analysis.quant
REJUDGE = bool(ANALYSES) and ANALYSIS["rejudge"]
ANALYSIS_KEYS = ("task", "measures", "seed", "samples", "quant")
# each analysis' report tables: (caption, subcategory, tables), and the output that stands for it
ANALYSIS_REPORT = {
    "topic_sampling": (
        "topic_tables.rst",
        "topic sampling",
        ["topic_sampling", "topic_sampling_smallest"],
    ),
    "swap_rates": (
        "swap_tables.rst",
        "swap rates",
        ["swap_rates", "swap_fit", "swap_table"],
    ),
    "significance": (
        "significance.rst",
        "significance",
        [
            "significance",
            "significance_pvalues",
            "test_error_rates",
            "significance_agreement",
            "significance_agreement_table",
            "quant_differences",
        ],
    ),
    "pool_sampling": (
        "pool_tables.rst",
        "pool size and depth",
        ["pool_sampling", "pool_sampling_smallest", "pool_sampling_table"],
    ),
    "pool_depth": (
        "pool_tables.rst",
        "pool size and depth",
        [
            "pool_depth",
            "pool_depth_table",
            "relevant_vs_depth",
            "reduced_pools",
            "adaptive_pool",
            "adaptive_pool_summary",
        ],
    ),
    "leave_one_group_out": (
        "logo_tables.rst",
        "leave one group out",
        [
            "logo_runs",
            "logo_overall",
            "logo_per_query",
            "logo_significance",
            "logo_table",
        ],
    ),
}
ANALYSIS_OUTPUT = {a: f"{v[2][0]}.tsv" for a, v in ANALYSIS_REPORT.items()}
# the analyses of the pool that run, in one job (rule pool_analyses)
POOL_ANALYSES = [a for a in ("pool_depth", "leave_one_group_out") if a in ANALYSES]


# the figures of the analyses of the pool: {analysis: {output: (figure, its caption)}}; their
# tables are those ANALYSIS_REPORT lists
POOL_FIGURES = {
    "pool_depth": {
        "depth_plot": ("tau_vs_depth", "pool_tables.rst"),
        "curve_plot": ("relevant_vs_depth", "pool_tables.rst"),
    },
    "leave_one_group_out": {"logo_plot": ("logo_histogram", "logo.rst")},
}


# the campaign's pool and its depth per topic (model.pool), written by the build_pool job, or by
# the pool_analyses job when the pool analyses run: they read the same runs
POOL_OUTPUTS = {"pool": f"{RES}/pool/pool.parquet", "depths": f"{RES}/pool/depths.tsv"}


# the tables of the analyses of the pool that run
POOL_TABLES = [t for a in POOL_ANALYSES for t in ANALYSIS_REPORT[a][2]]


def pool_analyses_outputs():
    """The outputs of the pool_analyses job: the pool (POOL_OUTPUTS), then the tables (each named by its table) and
    figures of each analysis in POOL_ANALYSES. The report job renders their pages (pool_pages): Snakemake hashes each
    small input of a job once per output (docs/snakemake-upstream.md), here about a hundred first-positions tables,
    and twelve fewer outputs take 0.1-0.2 s off every re-run.
    """
    flag = report  # Snakemake's report() (snakefmt reads a line that starts with it as the directive)
    figures = {
        k: flag(
            f"{RES}/analysis/{name}.svg",
            caption=f"../report/{caption}",
            category="Analyses",
            subcategory=ANALYSIS_REPORT[a][1],
        )
        for a in POOL_ANALYSES
        for k, (name, caption) in POOL_FIGURES[a].items()
    }
    return POOL_OUTPUTS | {t: f"{RES}/analysis/{t}.tsv" for t in POOL_TABLES} | figures


def pool_pages():
    """The report pages of the pool and of the analyses of the pool, rendered by the report job
    (pool_analyses_outputs), from these inputs."""
    if not POOL_ANALYSES:
        return {}, []
    tables = {f"pool_table_{t}": f"{RES}/analysis/{t}.tsv" for t in POOL_TABLES}
    return tables, table_pages("pool_depths", *POOL_TABLES)


# the tables the analysis summary reads (rule report), of the analyses that run
SUMMARY_INPUTS = {
    key: f"{RES}/analysis/{table}.tsv"
    for key, (rule, table) in {
        "topics": ("topic_sampling", "topic_sampling"),
        "swap": ("swap_rates", "swap_rates"),
        "sampling": ("pool_sampling", "pool_sampling"),
        "depth": ("pool_depth", "pool_depth"),
        "significance": ("significance", "significance"),
        "logo": ("leave_one_group_out", "logo_significance"),
    }.items()
    if rule in ANALYSES
}


def analysis_summary_outputs():
    """The analysis summary's outputs (written by the report job) when analyses run, the text restating
    their tables and Pal et al.'s Tables 11-12 (tau at 60 % sampling), and the report pages the report
    job renders (pool_pages)."""
    pages = pool_pages()[1]
    if not SUMMARY_INPUTS:
        return {"pages": pages} if pages else {}
    return {
        "summary": f"{RES}/analysis/summary.txt",
        "tau_at_60": f"{RES}/analysis/tau_at_60_table.tsv",
        "pages": table_pages("tau_at_60_table") + pages,
    }


# the analysis' assessment set; the runs it re-judges, judged where they are evaluated
ANALYSIS_ASET = ETASKS[ANALYSIS["task"]]["aset"] if ANALYSES else None
ANALYSED_RUNS = ANALYSIS_RUNS if REJUDGE else []
# the evaluation tasks of each run, and each task's scoring settings (rule evaluate_run)
RUN_TASKS = {r: [] for r in RUNS}
for _t in TASKS:
    for _r in runs_of(RUNS, _t):
        RUN_TASKS[_r].append(_t)
TASK_SCORING = {
    t: {
        "type": ETASKS[t]["type"],
        "families": ETASKS[t]["families"],
        "aset": ETASKS[t]["aset"],
        "options": task_options(config, t, ETASKS).as_dict(),
    }
    for t in TASKS
}


def runs_regex(runs):
    """A wildcard constraint that matches exactly the run names ``runs`` (none: nothing)."""
    runs = sorted(runs)
    return "|".join(re.escape(r) for r in runs) if runs else "(?!)"


def run_asets(run):
    """The assessment sets whose tables a run's evaluate_run job reads: those of its evaluation
    tasks, and the analysis' set when the run is judged for the analyses."""
    asets = list(dict.fromkeys([TASK_SCORING[t]["aset"] for t in RUN_TASKS[run]]))
    if run in ANALYSED_RUNS and ANALYSIS_ASET not in asets:
        asets.append(ANALYSIS_ASET)
    return asets


def run_recallbases(run):
    """The recall-bases a run's evaluation tasks score with."""
    tasks = RUN_TASKS[run]
    return list(
        dict.fromkeys(
            f"{RES}/recallbase/{ETASKS[t]['aset']}/{q}.parquet"
            for t in tasks
            if "recallbases" in needs(ETASKS[t]["families"])
            for q in ETASKS[t]["quantisations"]
        )
    )


def evaluate_run_inputs(w):
    """The inputs of one run's evaluate_run job: the run file, the collection index, the
    assessment tables and recall-bases of its evaluation tasks (and of the analysis' set when
    the run is judged for the analyses; the campaign's topic set, for the warning about topics
    outside it). The collection's shards are not among them but in its
    params (named by their content keys: a changed shard re-runs the job); the collection
    index is made after every shard, so the job still runs after them, and Snakemake resolves
    one input per job instead of one per shard (5,280 at 659,388 articles: about 0.4 s of
    every call's DAG)."""
    simulated()
    return {
        "run": RUNS[w.run]["file"],
        "index": [f"{RES}/collection/index.parquet"] if COLLECTION else [],
        "tables": [f for a in run_asets(w.run) for f in aset_tables(a).values()],
        "recallbases": run_recallbases(w.run),
        "topics": TOPICS_TABLE,
    }


def evaluate_run_tables(w):
    """{table: made_of} of the cached tables a run's evaluate_run job reads (its params
    table_runs): the assessment tables, the collection index and the recall-bases, each made from
    the assessment files."""
    recallbases = {
        rb: made_of(
            asets=[Path(rb).parent.name] + index_asets(),
            settings=recallbase_settings(),
        )
        for rb in run_recallbases(w.run)
    }
    topics = {t: {"input_keys": keys_of([config["topics"]])} for t in TOPICS_TABLE}
    return scored_tables_runs(run_asets(w.run)) | recallbases | topics


def analysis_scores(*path):
    """The score table of the evaluation task an analysis reads, at ``path`` in the config's
    ``analysis`` (``task``, or ``significance``, ``task``); none when there are no analyses.
    """
    task = ANALYSIS
    for key in path:
        task = (task or {}).get(key)
    return task_scores(task) if task else []


def analysis_tables_runs():
    """{table: made_of} of the analysis' assessment tables, for the analyses that re-judge the
    runs."""
    return aset_tables_runs([ANALYSIS_ASET])


def analysis_cfg(*keys):
    return {k: ANALYSIS.get(k) for k in ANALYSIS_KEYS + keys}
