# Recall-bases (one job per quantisation) and scoring (one job per run x measure family).


rule ideal_recallbase:
    input:
        elements=f"{RES}/assessments/elements.parquet",
        passages=f"{RES}/assessments/passages.parquet",
        documents=f"{RES}/assessments/documents.parquet",
        index=[f"{RES}/collection/index.parquet"] if COLLECTION else [],
    output:
        recallbase=f"{RES}/recallbase/{{quant}}.parquet",
    params:
        ideal_tie=config["ideal_tie"],
    log:
        "logs/ideal_recallbase/{quant}.log",
    benchmark:
        "logs/benchmarks/ideal_recallbase/{quant}.tsv"
    script:
        "../../scripts/ideal_recallbase.py"


ELEMENT_FAMILIES = {"xcg", "cutoff", "precall", "fetchbrowse"}  # families that score against the recall-bases


def recallbases_for(w):
    if w.family in ELEMENT_FAMILIES:
        return [f"{RES}/recallbase/{q}.parquet" for q in QUANTS]
    return []


def TASK_CONFIG(w):
    t = config["tasks"][RUNS[w.run]["task"]]
    default = "on" if RUNS[w.run]["task"] == "focused" else "off"
    return {"overlap": t.get("overlap", default), "alpha": t.get("alpha", 1.0)}


rule score:
    input:
        run=f"{RES}/runs/{{run}}.parquet",
        elements=f"{RES}/assessments/elements.parquet",
        passages=f"{RES}/assessments/passages.parquet",
        documents=f"{RES}/assessments/documents.parquet",
        recallbases=recallbases_for,
        index=lambda w: [f"{RES}/collection/index.parquet"] if COLLECTION and w.family == "bepd" else [],
    output:
        scores=f"{RES}/scores/{{run}}/{{family}}.parquet",
    params:
        options=lambda w: {"overlap": TASK_CONFIG(w)["overlap"], "alpha": TASK_CONFIG(w)["alpha"],
                           "max_list_length": config["max_list_length"],
                           "per_topic_curves": config["per_topic_curves"],
                           "cutoffs": config["cutoffs"], "empty_topics_zero": config["empty_topics_zero"],
                           "all_qrels_topics": config["all_qrels_topics"], "topics": config.get("topic_subset"),
                           "beta": config["beta"], "bep_distance": config["bep_distance"],
                           "regroup": config["regroup"], "bepd_a": config["bepd_a"],
                           "mean_doc_length": config.get("mean_doc_length"), "cutoff_ks": config["cutoff_ks"]},
    log:
        "logs/score/{run}.{family}.log",
    benchmark:
        "logs/benchmarks/score/{run}.{family}.tsv"
    script:
        "../../scripts/score.py"


rule aggregate:
    input:
        scores=score_files(),
    output:
        scores=f"{RES}/scores/all.parquet",
        scores_tsv=f"{RES}/scores/per_topic.tsv",
        means=f"{RES}/scores/means.tsv",
        summaries=[report(f"{RES}/summary/{t}.tsv", caption="../report/summary.rst", category="Scores",
                          subcategory=t, labels={"table": f"{t} ranking"}) for t in TASKS],
    params:
        participants={r: v["participant"] for r, v in RUNS.items()},
        main_measures={t: config["tasks"][t]["main_measure"] for t in TASKS},
    log:
        "logs/aggregate.log",
    benchmark:
        "logs/benchmarks/aggregate.tsv"
    script:
        "../../scripts/aggregate.py"
