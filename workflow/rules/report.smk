# Campaign outputs that are not analyses: cut-off tables and the plain HTML report (the score
# curves are drawn by aggregate_task).


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


# the campaign's written summaries in one job: the HTML page, the Snakemake report's landing page
# and, with analyses, the summary of their tables (SUMMARY_INPUTS) and the report pages of the
# analyses of the pool (pool_pages)
rule report:
    input:
        **SUMMARY_INPUTS,
        **pool_pages()[0],
        summaries=summary_tables(),
        correlation=f"{RES}/analysis/correlation.tsv",
        depths=f"{RES}/pool/depths.tsv",
    output:
        **analysis_summary_outputs(),
        html=f"{RES}/report.html",
        landing=LANDING,
    log:
        f"{LOGS}/report.log",
    benchmark:
        f"{LOGS}/benchmarks/report.tsv"
    conda:
        ENV
    params:
        code=CODE,
        pages=page_sources,
        measures=ANALYSIS.get("measures"),
        campaign=config["campaign"],
        provenance=PROVENANCE,
        headline=CAMPAIGN.correlation,
        description=(
            "scores per task, curves, ranking tables and the meta-evaluation analyses. "
            "Every figure names the config keys it depends on."
        ),
    script:
        "../../scripts/report.py"
