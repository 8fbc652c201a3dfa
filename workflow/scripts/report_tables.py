"""Stage report_tables: every table of the Snakemake report as an HTML page."""
from inexflow.stageserver import hand_over

hand_over()  # a local run's stage server runs this script with the library imported (inexflow.stageserver)

from inexflow.report import write_table_page
from inexflow.stage import run_stage


def main(smk, log):
    for tsv, page, title in zip(smk.input.tables, smk.output.pages, smk.params.titles, strict=True):
        write_table_page(tsv, page, title)


run_stage(main, snakemake)  # noqa: F821
