"""Stage build_pool: the pooled runs' first positions -> pooled documents and depth per topic (when the
pool analyses run, their job writes the pool instead: scripts/pool_analyses.py)."""
from inexflow.campaign.pool_stage import write_pool
from inexflow.campaign.stage import run_stage


def main(smk, log):
    write_pool(smk.input.runs, smk.params.target, smk.params.depth, smk.output, log)


run_stage(main, snakemake)  # noqa: F821
