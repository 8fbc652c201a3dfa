"""Stage parse_run: one run file -> results/runs/RUN.parquet (element extents resolved)."""
from inexflow.campaign.stage import made_from, run_stage
from inexflow.io.tables import read_parquet, write_parquet
from inexflow.model.pool import first_positions
from inexflow.model.runs import read_run, resolve_extents


def main(smk, log):
    run = read_run(smk.input.run, task=smk.params.task, participant=smk.params.participant)
    run.name = smk.wildcards.run  # runs are filed under their file name: run ids need not be unique
    if smk.params.collection:
        run = resolve_extents(run, smk.params.collection, read_parquet(smk.input.index))
    log.info("run %s (participant %s, task %s, %s): %d results, %d topics", run.run_id, run.participant,
             run.task, run.format, len(run.results), run.results["topic"].nunique())
    run.save(smk.output.run, made_from(smk))
    # the first position of every document per topic: all that pooling needs from a run
    write_parquet(first_positions(run.results), smk.output.docs, {"participant": run.participant})


run_stage(main, snakemake)  # noqa: F821
