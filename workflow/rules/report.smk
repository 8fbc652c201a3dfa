# Campaign outputs that are not analyses: the cut-off tables (the score curves are drawn by
# aggregate_task, the plain HTML report by the report job of the root Snakefile).


if CUTOFF_TASKS:

    rule cutoff_tables:
        input:
            scores=f"{RES}/scores/all.parquet",
        output:
            tables=cutoff_outputs(),
            pages=table_pages(*cutoff_outputs()),
        log:
            f"{LOGS}/cutoff_tables.log",
        benchmark:
            f"{LOGS}/benchmarks/cutoff_tables.tsv"
        conda:
            ENV
        params:
            code=CODE,
            table_runs=lambda w: all_scores_runs(),
            pages=page_sources,
            ks={
                t: table_cutoffs(task_options(config, t, ETASKS).cutoff_ks)
                for t in CUTOFF_TASKS
            },
            quants={
                t: list(task_options(config, t, ETASKS).quantisations)
                for t in CUTOFF_TASKS
            },
        script:
            "../../scripts/cutoff_tables.py"
