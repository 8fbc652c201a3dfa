"""Stage analysis_summary: the shape checks of the analyses, printed from their tables, and Pal et al.'s
Tables 11-12 (tau at 60 % sampling)."""
from inexflow.analysis.summary import summarise, tau_at_60
from inexflow.campaign.stage import run_stage
from inexflow.io.atomic import write_text
from inexflow.io.tables import write_tsv


def main(smk, log):
    text = summarise(smk.input)
    log.info("\n%s", text)
    write_text(text, smk.output.text)
    write_tsv(tau_at_60(smk.input, smk.params.measures), smk.output.tau_at_60)


run_stage(main, snakemake)  # noqa: F821
