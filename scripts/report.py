"""Stage report: one HTML page with the ranked summaries, correlations and the pool, the Snakemake report's landing
page, and, when analyses run, the shape checks of the analyses printed from their tables and Pal et al.'s Tables
11-12 (tau at 60 % sampling)."""
from inexflow.analysis.summary import summarise, tau_at_60
from inexflow.campaign.report import landing_page, write_report
from inexflow.campaign.stage import run_stage
from inexflow.io.atomic import write_text
from inexflow.io.text_tables import write_rows


def main(smk, log):
    write_report(smk.output.html, list(smk.input.summaries), smk.input.correlation, smk.input.depths,
                 smk.params.campaign)
    write_text(landing_page(list(smk.input.summaries), smk.params.campaign, smk.params.provenance,
                            smk.params.description, smk.params.headline), smk.output.landing)
    if "summary" in smk.output.keys():
        text = summarise(smk.input)
        log.info("\n%s", text)
        write_text(text, smk.output.summary)
        write_rows(*tau_at_60(smk.input, smk.params.measures), smk.output.tau_at_60)


run_stage(main, snakemake)  # noqa: F821
