# Parsing stages: assessments (one job per assessment set), topics, the collection's index shards
# (one job per shard) and the index of its assessed documents; before
# them, on a fresh clone, the simulated demo campaign. Runs are parsed by evaluate_run (score.smk).


if PLANNED:

    # a checkpoint: the collection's index shards are planned once it has written the collection
    checkpoint simulate_demo:
        output:
            marker=PLANNED["marker"],
            topics=PLANNED["topics"],
            assessments=PLANNED["assessments"],
            runs=list(PLANNED["runs"]),
        log:
            f"{LOGS}/simulate_demo.log",
        benchmark:
            f"{LOGS}/benchmarks/simulate_demo.tsv"
        conda:
            ENV
        threads: workflow.cores  # a wikipedia collection is written by this many processes
        params:
            settings=config["simulate"],
        script:
            "../../scripts/simulate_demo.py"


rule parse_assessments:
    input:
        assessments=lambda w: simulated() or ASETS[w.aset]["files"],
    output:
        **aset_tables("{aset}"),
    log:
        f"{LOGS}/parse_assessments/{{aset}}.log",
    benchmark:
        f"{LOGS}/benchmarks/parse_assessments/{{aset}}.tsv"
    conda:
        ENV
    params:
        code=CODE,
        format=lambda w: ASETS[w.aset]["format"],
        content=lambda w: aset_keys([w.aset]),
    script:
        "../../scripts/parse_assessments.py"


rule parse_topics:
    input:
        topics=lambda w: simulated() or config.get("topics") or [],
    output:
        topics=f"{RES}/topics.parquet",
    log:
        f"{LOGS}/parse_topics.log",
    benchmark:
        f"{LOGS}/benchmarks/parse_topics.tsv"
    conda:
        ENV
    params:
        code=CODE,
        content=lambda w: keys_of([config["topics"]] if config.get("topics") else []),
    script:
        "../../scripts/parse_topics.py"


rule index_shard:
    output:
        index=shard_path(INDEX_CACHE, "{key}"),
    log:
        f"{LOGS}/index_shard/{{key}}.log",
    benchmark:
        f"{LOGS}/benchmarks/index_shard/{{key}}.tsv"
    wildcard_constraints:
        key="[0-9a-f]{32}",
    conda:
        ENV
    params:
        # not the collection's path: the shard is named by its content, so two configs naming two
        # copies of one collection share it (the script reads the path from the config)
        code=CODE,
        cache=lambda w, output: str(Path(output.index).parents[1]),  # shard_path's folder
    script:
        "../../scripts/index_shard.py"


rule index_collection:
    input:
        documents=[aset_tables(a)["documents"] for a in ASETS],
        shards=shard_files,
    output:
        index=f"{RES}/collection/index.parquet",
    log:
        f"{LOGS}/index_collection.log",
    benchmark:
        f"{LOGS}/benchmarks/index_collection.tsv"
    conda:
        ENV
    params:
        code=CODE,
        table_runs=lambda w: aset_tables_runs(ASETS, ["documents"]),
        collection=COLLECTION,
    script:
        "../../scripts/index_collection.py"
