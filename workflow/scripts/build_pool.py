"""Stage build_pool: parsed runs -> pooled documents and depth per topic."""
from inexflow.stageserver import hand_over

hand_over()  # a local run's stage server runs this script with the library imported (inexflow.stageserver)

from inexflow.pool import LazyTables, entries_from_first_positions, pool_from_entries
from inexflow.stage import run_stage
from inexflow.tables import write_parquet, write_tsv


def main(smk, log):
    runs = LazyTables({p: p for p in smk.input.runs})  # read one at a time
    pool, depths = pool_from_entries(entries_from_first_positions(runs), smk.params.target, smk.params.depth)
    log.info("pool of %d documents over %d topics from %d runs", len(pool), len(depths), len(runs))
    write_parquet(pool, smk.output.pool)
    write_tsv(depths, smk.output.depths)


run_stage(main, snakemake)  # noqa: F821
