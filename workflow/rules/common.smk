# Configuration: validation, run discovery, helpers shared by the rules.
# The library is found by being installed in the Python that runs Snakemake (pip install
# inexflow[workflow], or pip install -e '.[workflow]' in a clone) or in the rules' conda
# environment (--sdm conda, workflow/envs/inexflow.yaml); the workflow never edits sys.path.
from pathlib import Path

from snakemake.exceptions import WorkflowError

try:
    from inexflow.config import prepare_config
    from inexflow.errors import UsageError
    from inexflow.measures import needs
    from inexflow.options import Options
    from inexflow.stage import code_fingerprint
except ImportError as e:
    raise WorkflowError(
        f"the inexflow library is not installed in this Python ({e}): "
        "pip install 'inexflow[workflow]', or pip install -e '.[workflow]' in a clone"
    ) from None

# every rule's params hold the library's code fingerprint: a changed (upgraded, edited)
# library re-runs the jobs it wrote, as a changed stage script does (Snakemake tracks those)
CODE = code_fingerprint()

# one conda environment for every rule, relative to the rule files (--sdm conda)
ENV = "../envs/inexflow.yaml"

# the schema of this workflow, also when it is used as a module from another directory
SCHEMA = str(workflow.source_path("../schemas/config.schema.yaml"))
try:  # the checks `inexflow check-config` makes too
    RUNS = prepare_config(
        config,
        workflow.config_settings.overwrite_config,
        workflow.overwrite_configfiles,
        SCHEMA,
    )
except UsageError as e:  # a config error: one message, no Python stack
    raise WorkflowError(str(e)) from None
# the files of a simulated campaign still to be written by rule simulate_demo (else None)
PLANNED = config["_planned"]
TASKS = sorted({r["task"] for r in RUNS.values()})
QUANTS = list(config["quantisations"])
COLLECTION = config.get("collection") or ""
# every campaign has its own folders: switching configs never overwrites or re-runs another's
RES = f"results/{config['campaign']}"
LOGS = f"logs/{config['campaign']}"


wildcard_constraints:
    run="[^/]+",
    family="[a-z_]+",
    quant="[A-Za-z0-9_]+",
    task="[a-z-]+",


def families_of(run):
    return config["tasks"][RUNS[run]["task"]]["families"]


def score_files():
    return [
        f"{RES}/scores/{run}/{fam}.parquet"
        for run in sorted(RUNS)
        for fam in families_of(run)
    ]


def final_outputs():
    extra = [f"{RES}/topics.parquet"] if config.get("topics") else []
    if config.get("analysis"):
        extra += [
            f"{RES}/analysis/summary.txt",
            f"{RES}/analysis/logo_runs.tsv",
            f"{RES}/analysis/significance.tsv",
            f"{RES}/analysis/swap_fit.tsv",
        ]
    return (
        [
            f"{RES}/report.html",
            f"{RES}/scores/means.tsv",
            f"{RES}/pool/depths.tsv",
            f"{RES}/analysis/correlation.tsv",
        ]
        + [f"{RES}/summary/{t}.tsv" for t in TASKS]
        + extra
        + [f"{RES}/plots/{t}.png" for t in TASKS]
        + [f"{RES}/report/tables/{name}.html" for name in report_tables()]
    )


def report_tables():
    """The tables of the Snakemake report, each rendered as an HTML page by rule
    report_tables: {name: (tsv, caption, category, subcategory, title)}."""
    tables = {
        f"ranking_{t}": (
            f"{RES}/summary/{t}.tsv",
            "summary.rst",
            "Scores",
            t,
            f"Runs of task {t} ranked by {config['tasks'][t]['main_measure']}",
        )
        for t in TASKS
    }
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
    groups = {
        "correlation.rst": (
            "measure correlation",
            [
                "correlation",
                "correlation_by_measure",
                "correlation_by_quant",
                "correlation_measures_table",
                "correlation_quants_table",
            ],
        ),
    }
    if config.get("analysis"):
        groups |= {
            "topic_tables.rst": (
                "topic sampling",
                ["topic_sampling", "topic_sampling_smallest"],
            ),
            "pool_tables.rst": (
                "pool size and depth",
                [
                    "pool_sampling",
                    "pool_sampling_smallest",
                    "pool_sampling_table",
                    "pool_depth",
                    "pool_depth_table",
                    "relevant_vs_depth",
                    "reduced_pools",
                ],
            ),
            "swap_tables.rst": ("swap rates", ["swap_rates", "swap_fit"]),
            "logo_tables.rst": (
                "leave one group out",
                ["logo_runs", "logo_overall", "logo_per_query", "logo_significance"],
            ),
            "significance.rst": (
                "significance",
                ["significance", "test_error_rates", "significance_agreement"],
            ),
        }
    for caption, (subcategory, names) in groups.items():
        for name in names:
            tables[name] = (
                f"{RES}/analysis/{name}.tsv",
                caption,
                "Analyses",
                subcategory,
                name.replace("_", " "),
            )
    return tables


def recallbases_for(w):
    if "recallbases" in needs([w.family]):
        return [f"{RES}/recallbase/{q}.parquet" for q in QUANTS]
    return []


def index_for(w):
    return (
        [f"{RES}/collection/index.parquet"]
        if COLLECTION and "index" in needs([w.family])
        else []
    )


# the meta-evaluation analyses; each has its own config under `analysis:`
ANALYSIS = config.get("analysis") or {}
ANALYSIS_RUNS = [r for r in sorted(RUNS) if RUNS[r]["task"] == ANALYSIS.get("task")]
POOL_RUNS = [r for r in sorted(RUNS) if RUNS[r]["task"] in config["pool"]["tasks"]]
ANALYSIS_KEYS = ("task", "measures", "seed", "samples")


def analysis_cfg(*keys):
    return {k: ANALYSIS.get(k) for k in ANALYSIS_KEYS + keys}
