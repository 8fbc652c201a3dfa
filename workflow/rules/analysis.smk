# Analyses over the cached parsed runs and scores, and the report.


rule build_pool:
    input:
        runs=[f"{RES}/runs/{r}.parquet" for r in sorted(RUNS) if RUNS[r]["task"] in config["pool"]["tasks"]],
    output:
        pool=f"{RES}/pool/pool.parquet",
        depths=f"{RES}/pool/depths.tsv",
    params:
        target=config["pool"].get("target"),
        depth=config["pool"].get("depth"),
    log:
        "logs/build_pool.log",
    benchmark:
        "logs/benchmarks/build_pool.tsv"
    script:
        "../../scripts/build_pool.py"


rule correlate:
    input:
        scores=f"{RES}/scores/all.parquet",
    output:
        correlation=f"{RES}/analysis/correlation.tsv",
    params:
        measures=config["correlation"]["measures"],
    log:
        "logs/correlate.log",
    benchmark:
        "logs/benchmarks/correlate.tsv"
    script:
        "../../scripts/correlate.py"


rule report:
    input:
        summaries=[f"{RES}/summary/{t}.tsv" for t in TASKS],
        correlation=f"{RES}/analysis/correlation.tsv",
        depths=f"{RES}/pool/depths.tsv",
    output:
        html=f"{RES}/report.html",
    params:
        campaign=config["campaign"],
    log:
        "logs/report.log",
    script:
        "../../scripts/report.py"
