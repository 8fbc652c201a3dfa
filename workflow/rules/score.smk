# Recall-bases (one job per quantisation) and scoring (one job per run x measure family).


rule ideal_recallbase:
    input:
        elements=f"{RES}/assessments/elements.parquet",
        passages=f"{RES}/assessments/passages.parquet",
        documents=f"{RES}/assessments/documents.parquet",
        index=[f"{RES}/collection/index.parquet"] if COLLECTION else [],
    output:
        recallbase=f"{RES}/recallbase/{{quant}}.parquet",
    log:
        f"{LOGS}/ideal_recallbase/{{quant}}.log",
    benchmark:
        f"{LOGS}/benchmarks/ideal_recallbase/{{quant}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        ideal_tie=config["ideal_tie"],
    script:
        "../scripts/ideal_recallbase.py"


rule score:
    input:
        run=f"{RES}/runs/{{run}}.parquet",
        elements=f"{RES}/assessments/elements.parquet",
        passages=f"{RES}/assessments/passages.parquet",
        documents=f"{RES}/assessments/documents.parquet",
        recallbases=recallbases_for,
        index=index_for,
    output:
        scores=f"{RES}/scores/{{run}}/{{family}}.parquet",
    log:
        f"{LOGS}/score/{{run}}.{{family}}.log",
    benchmark:
        f"{LOGS}/benchmarks/score/{{run}}.{{family}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        task=lambda w: RUNS[w.run]["task"],
        options=lambda w: Options.from_config(config, RUNS[w.run]["task"]).as_dict(),
    script:
        "../scripts/score.py"


rule aggregate:
    input:
        scores=score_files(),
    output:
        scores=f"{RES}/scores/all.parquet",
        scores_tsv=f"{RES}/scores/per_topic.tsv",
        means=f"{RES}/scores/means.tsv",
        summaries=[f"{RES}/summary/{t}.tsv" for t in TASKS],
    log:
        f"{LOGS}/aggregate.log",
    benchmark:
        f"{LOGS}/benchmarks/aggregate.tsv"
    conda:
        ENV
    params:
        code=CODE,
        participants={r: v["participant"] for r, v in RUNS.items()},
        main_measures={t: config["tasks"][t]["main_measure"] for t in TASKS},
    script:
        "../scripts/aggregate.py"
