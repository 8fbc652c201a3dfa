"""Stage build_pool: the pooled runs' first positions -> pooled documents and depth per topic."""
from pathlib import Path

from inexflow.campaign.stage import recorded_run_keys, run_stage, settings_of
from inexflow.io.tables import write_parquet, write_tsv
from inexflow.model.pool import LazyTables, entries_from_first_positions, pool_from_entries


def main(smk, log):
    paths = {Path(p).stem: p for p in smk.input.runs}
    entries = entries_from_first_positions(LazyTables(paths))  # read one at a time
    pool, depths = pool_from_entries(entries, smk.params.target, smk.params.depth)
    log.info("pool of %d documents over %d topics from %d runs", len(pool), len(depths), len(paths))
    # checked by the stages that read it against the runs' current content keys
    write_parquet(pool, smk.output.pool, {"run_keys": recorded_run_keys(smk.input.runs),
                                          "settings": settings_of({"pool": [smk.params.target, smk.params.depth]})})
    write_tsv(depths, smk.output.depths)


run_stage(main, snakemake)  # noqa: F821
