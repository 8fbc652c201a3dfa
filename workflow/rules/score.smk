# Recall-bases (one job per assessment set x quantisation), every run parsed, scored (for each
# evaluation task it belongs to and each measure family) and judged in one job of its own, and
# the score tables: one per evaluation task, then all.


rule ideal_recallbase:
    input:
        **aset_tables("{aset}"),
        index=[f"{RES}/collection/index.parquet"] if COLLECTION else [],
    output:
        recallbase=f"{RES}/recallbase/{{aset}}/{{quant}}.parquet",
    log:
        f"{LOGS}/ideal_recallbase/{{aset}}/{{quant}}.log",
    benchmark:
        f"{LOGS}/benchmarks/ideal_recallbase/{{aset}}/{{quant}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        table_runs=lambda w: scored_tables_runs([w.aset]),
        ideal_tie=config["ideal_tie"],
    script:
        "../../scripts/ideal_recallbase.py"


rule evaluate_run:
    input:
        unpack(evaluate_run_inputs),
    output:
        run=f"{RES}/runs/{{run}}.parquet",
        docs=f"{RES}/firstpos/{{run}}.parquet",
        scores=run_scores("{run}"),
    log:
        f"{LOGS}/evaluate_run/{{run}}.log",
    benchmark:
        f"{LOGS}/benchmarks/evaluate_run/{{run}}.tsv"
    wildcard_constraints:
        run=runs_regex(r for r in RUNS if r not in ANALYSED_RUNS),
    priority: EARLY
    conda:
        ENV
    params:
        code=CODE,
        scoring_type=lambda w: RUNS[w.run]["type"],
        participant=lambda w: RUNS[w.run]["participant"],
        collection=COLLECTION,
        shards=shard_files,
        tasks=lambda w: {t: TASK_SCORING[t] for t in RUN_TASKS[w.run]},
        aset_dirs={a: str(Path(aset_tables(a)["elements"]).parent) for a in ASETS},
        analysis_aset=ANALYSIS_ASET,
        content=lambda w: content_keys([RUNS[w.run]["file"]]),
        table_runs=evaluate_run_tables,
        topic_file=config.get("topics") or "",
    script:
        "../../scripts/evaluate_run.py"


# the runs of the analysed task are judged in the same job, for the analyses that re-judge
# them (pool_sampling, pool_depth, leave_one_group_out)
use rule evaluate_run as evaluate_analysed_run with:
    output:
        run=f"{RES}/runs/{{run}}.parquet",
        docs=f"{RES}/firstpos/{{run}}.parquet",
        scores=run_scores("{run}"),
        judged=f"{RES}/judged/{{run}}.parquet",
    wildcard_constraints:
        run=runs_regex(ANALYSED_RUNS),


# one job per evaluation task: its runs' scores in one table, and its score curves drawn from
# that table (a changed run re-draws only its tasks' curves)
rule aggregate_task:
    input:
        scores=lambda w: task_score_files(w.task),
    output:
        scores=task_scores("{task}"),
        plot=report(
            f"{RES}/plots/{{task}}.svg",
            caption="../report/curves.rst",
            category="Scores",
            subcategory="{task}",
        ),
    log:
        f"{LOGS}/aggregate_task/{{task}}.log",
    benchmark:
        f"{LOGS}/benchmarks/aggregate_task/{{task}}.tsv"
    priority: EARLY
    conda:
        ENV
    params:
        code=CODE,
        run_keys=lambda w: run_keys(runs_of(RUNS, w.task)),
        table_runs=lambda w: run_scores_runs(runs_of(RUNS, w.task)),
        main_measure=lambda w: ETASKS[w.task]["main_measure"],
    script:
        "../../scripts/aggregate_task.py"


rule aggregate:
    input:
        scores=evaluated_runs_scores(),
    output:
        scores=f"{RES}/scores/all.parquet",
        scores_tsv=f"{RES}/scores/per_topic.tsv",
        means=f"{RES}/scores/means.tsv",
        summaries=summary_tables(),
        tasks=f"{RES}/evaluation_tasks.tsv",
        correlation=f"{RES}/analysis/correlation.tsv",
        by_measure=f"{RES}/analysis/correlation_by_measure.tsv",
        by_quant=f"{RES}/analysis/correlation_by_quant.tsv",
        table1=f"{RES}/analysis/correlation_measures_table.tsv",
        table2=f"{RES}/analysis/correlation_quants_table.tsv",
        pages=table_pages(
            *summary_tables(),
            "evaluation_tasks",
            "means",
            "correlation",
            "correlation_by_measure",
            "correlation_by_quant",
            "correlation_measures_table",
            "correlation_quants_table",
        ),
    log:
        f"{LOGS}/aggregate.log",
    benchmark:
        f"{LOGS}/benchmarks/aggregate.tsv"
    # before the tasks' tables and plots, which the report does not wait for
    priority: REPORT_PATH
    conda:
        ENV
    params:
        code=CODE,
        task_runs={t: runs_of(RUNS, t) for t in TASKS},
        run_keys=lambda w: run_keys(evaluated_runs()),
        table_runs=lambda w: run_scores_runs(evaluated_runs()),
        pages=page_sources,
        participants={r: v["participant"] for r, v in RUNS.items()},
        main_measures={t: ETASKS[t]["main_measure"] for t in TASKS},
        eval_tasks=ETASKS,
        run_counts={t: len(runs_of(RUNS, t)) for t in ETASKS},
        measures=CAMPAIGN.correlation,
        quants=config["quantisations"],
    script:
        "../../scripts/aggregate.py"
