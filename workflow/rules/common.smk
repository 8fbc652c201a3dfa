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
except ImportError as e:
    raise WorkflowError(
        f"the inexflow library is not installed in this Python ({e}): "
        "pip install 'inexflow[workflow]', or pip install -e '.[workflow]' in a clone"
    ) from None

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
TASKS = sorted({r["task"] for r in RUNS.values()})
QUANTS = list(config["quantisations"])
COLLECTION = config.get("collection") or ""
RES = "results"


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
    )


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
