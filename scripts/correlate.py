"""Stage correlate: Kendall tau-b between the run rankings of measures and quantisations."""
from inexflow.correlate import measure_correlations
from inexflow.stage import run_stage
from inexflow.tables import read_parquet, write_tsv


def main(smk, log):
    scores = read_parquet(smk.input.scores)
    corr = measure_correlations(scores, dict(smk.params.measures))
    log.info("%d measure pairs", len(corr))
    write_tsv(corr, smk.output.correlation)


run_stage(main, snakemake)  # noqa: F821
