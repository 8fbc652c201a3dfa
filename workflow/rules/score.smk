# Recall-bases (one job per assessment set x quantisation), scoring (one job per evaluation
# task x run x measure family) and the score tables: one per evaluation task, then all.


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
        ideal_tie=config["ideal_tie"],
    script:
        "../scripts/ideal_recallbase.py"


rule score:
    input:
        unpack(task_tables),
        run=f"{RES}/runs/{{run}}.parquet",
        recallbases=recallbases_for,
        index=index_for,
    output:
        scores=f"{RES}/scores/{{task}}/{{run}}/{{family}}.parquet",
    log:
        f"{LOGS}/score/{{task}}/{{run}}.{{family}}.log",
    benchmark:
        f"{LOGS}/benchmarks/score/{{task}}/{{run}}.{{family}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        type=lambda w: ETASKS[w.task]["type"],
        options=lambda w: task_options(config, w.task).as_dict(),
    script:
        "../scripts/score.py"


rule aggregate_task:
    input:
        scores=lambda w: task_score_files(w.task),
    output:
        scores=task_scores("{task}"),
    log:
        f"{LOGS}/aggregate_task/{{task}}.log",
    benchmark:
        f"{LOGS}/benchmarks/aggregate_task/{{task}}.tsv"
    priority: EARLY
    conda:
        ENV
    params:
        code=CODE,
    script:
        "../scripts/aggregate_task.py"


rule aggregate:
    input:
        scores=[task_scores(t) for t in TASKS],
    output:
        scores=f"{RES}/scores/all.parquet",
        scores_tsv=f"{RES}/scores/per_topic.tsv",
        means=f"{RES}/scores/means.tsv",
        summaries=summary_tables(),
        tasks=f"{RES}/evaluation_tasks.tsv",
        pages=table_pages(*summary_tables(), "evaluation_tasks", "means"),
    log:
        f"{LOGS}/aggregate.log",
    benchmark:
        f"{LOGS}/benchmarks/aggregate.tsv"
    conda:
        ENV
    params:
        code=CODE,
        pages=page_sources,
        participants={r: v["participant"] for r, v in RUNS.items()},
        main_measures={t: ETASKS[t]["main_measure"] for t in TASKS},
        eval_tasks=ETASKS,
        run_counts={t: len(runs_of(RUNS, t)) for t in ETASKS},
    script:
        "../scripts/aggregate.py"
