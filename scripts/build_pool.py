"""Stage build_pool: parsed runs -> pooled documents and depth per topic."""
from inexflow.formats.runs import Run
from inexflow.pool import build_pool
from inexflow.stage import run_stage
from inexflow.tables import write_parquet, write_tsv


def main(smk, log):
    runs = {}
    for p in smk.input.runs:
        r = Run.load(p)
        runs[p] = r.results
    pool, depths = build_pool(runs, target=smk.params.target, depth=smk.params.depth)
    log.info("pool of %d documents over %d topics from %d runs", len(pool), len(depths), len(runs))
    write_parquet(pool, smk.output.pool)
    write_tsv(depths, smk.output.depths)


run_stage(main, snakemake)  # noqa: F821
