"""Stage build_pool: parsed runs -> pooled documents and depth per topic, and every pooled (topic, doc) pair's
entry depth with and without the group that retrieves it first (for leave_one_group_out)."""
from pathlib import Path

from inexflow.campaign.stage import recorded_run_keys, run_stage
from inexflow.io.tables import read_parquet_metadata, write_parquet, write_tsv
from inexflow.model.pool import LazyTables, leave_group_out_entries, pool_from_entries


def main(smk, log):
    paths = {Path(p).stem: p for p in smk.input.runs}
    groups = {r: read_parquet_metadata(p)["participant"] for r, p in paths.items()}
    left_out = leave_group_out_entries(LazyTables(paths), groups, cached=True)  # read one at a time
    pool, depths = pool_from_entries(left_out.entries(), smk.params.target, smk.params.depth)
    log.info("pool of %d documents over %d topics from %d runs of %d groups", len(pool), len(depths), len(paths),
             len(left_out.gnames))
    made_from = {"run_keys": recorded_run_keys(smk.input.runs)}  # checked by the stages that read them
    write_parquet(pool, smk.output.pool, made_from)
    write_tsv(depths, smk.output.depths)
    table, meta = left_out.to_frame()
    write_parquet(table, smk.output.left_out, meta | made_from)


run_stage(main, snakemake)  # noqa: F821
