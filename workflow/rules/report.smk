# Campaign outputs that are not analyses: cut-off tables, score curves, the plain HTML report.


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


# one job per evaluation task, from that task's table: a changed run re-plots only its task
rule plot_scores:
    input:
        scores=task_scores("{task}"),
    output:
        plot=report(
            f"{RES}/plots/{{task}}.png",
            caption="../report/curves.rst",
            category="Scores",
            subcategory="{task}",
        ),
    log:
        f"{LOGS}/plot_scores/{{task}}.log",
    benchmark:
        f"{LOGS}/benchmarks/plot_scores/{{task}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        table_runs=lambda w: score_tables_runs(task_scores(w.task)),
        main_measure=lambda w: ETASKS[w.task]["main_measure"],
    script:
        "../../scripts/plot_scores.py"


rule report:
    input:
        summaries=summary_tables(),
        correlation=f"{RES}/analysis/correlation.tsv",
        depths=f"{RES}/pool/depths.tsv",
    output:
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
        campaign=config["campaign"],
        provenance=PROVENANCE,
        headline=CAMPAIGN.correlation,
        description=(
            "scores per task, curves, ranking tables and the meta-evaluation analyses. "
            "Every figure names the config keys it depends on."
        ),
    script:
        "../../scripts/report.py"
