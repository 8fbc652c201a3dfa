# Campaign outputs that are not analyses: measure correlations, score curves, the plain HTML report.


rule correlate:
    input:
        scores=f"{RES}/scores/all.parquet",
    output:
        correlation=f"{RES}/analysis/correlation.tsv",
        by_measure=f"{RES}/analysis/correlation_by_measure.tsv",
        by_quant=f"{RES}/analysis/correlation_by_quant.tsv",
    params:
        measures=config["correlation"]["measures"],
        seed=(config.get("analysis") or {}).get("seed", 0),
    log:
        "logs/correlate.log",
    benchmark:
        "logs/benchmarks/correlate.tsv"
    script:
        "../scripts/correlate.py"


rule plot_scores:
    input:
        scores=f"{RES}/scores/all.parquet",
    output:
        plots=[report(f"{RES}/plots/{t}.png", caption="../report/curves.rst", category="Scores", subcategory=t)
               for t in TASKS],
    log:
        "logs/plot_scores.log",
    benchmark:
        "logs/benchmarks/plot_scores.tsv"
    script:
        "../scripts/plot_scores.py"


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
    benchmark:
        "logs/benchmarks/report.tsv"
    script:
        "../scripts/report.py"
