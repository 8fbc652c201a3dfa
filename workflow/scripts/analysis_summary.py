"""Stage analysis_summary: the shape checks of the analyses, printed from their tables."""
from inexflow.analysis.summary import summarise
from inexflow.stage import run_stage
from inexflow.tables import write_text


def main(smk, log):
    text = summarise(smk.input)
    log.info("\n%s", text)
    write_text(text, smk.output.text)


run_stage(main, snakemake)  # noqa: F821
