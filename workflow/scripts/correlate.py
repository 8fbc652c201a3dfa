"""Stage correlate: Kendall tau-b between the run rankings of measures and quantisations."""
from inexflow.correlate import averaged_table, measure_correlations
from inexflow.stage import run_stage
from inexflow.tables import read_parquet, write_tsv


def main(smk, log):
    scores = read_parquet(smk.input.scores)
    corr = measure_correlations(scores, dict(smk.params.measures))
    log.info("%d measure pairs", len(corr))
    write_tsv(corr, smk.output.correlation)
    write_tsv(averaged_table(corr, "measure"), smk.output.by_measure)
    write_tsv(averaged_table(corr, "quant"), smk.output.by_quant)


run_stage(main, snakemake)  # noqa: F821
