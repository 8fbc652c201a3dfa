"""Stage correlate: Kendall tau-b between the run rankings of measures and quantisations."""
from inexflow.analysis.correlate import averaged_table, measure_correlations, paper_matrix
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet, write_tsv


def main(smk, log):
    scores = read_parquet(smk.input.scores)
    corr = measure_correlations(scores, dict(smk.params.measures))
    log.info("%d measure pairs", len(corr))
    write_tsv(corr, smk.output.correlation)
    by_measure, by_quant = averaged_table(corr, "measure"), averaged_table(corr, "quant")
    write_tsv(by_measure, smk.output.by_measure)
    write_tsv(by_quant, smk.output.by_quant)
    # INEX 2005 measures paper, Tables 1 and 2, in their shape
    measures = [m for ms in smk.params.measures.values() for m in ms]
    write_tsv(paper_matrix(by_measure, "measure", measures), smk.output.table1)
    write_tsv(paper_matrix(by_quant, "quant", smk.params.quants), smk.output.table2)


run_stage(main, snakemake)  # noqa: F821
