"""Stage report: one HTML page with the ranked summaries, correlations and the pool, and the Snakemake
report's landing page."""
from inexflow.campaign.report import landing_page, write_report
from inexflow.campaign.stage import run_stage
from inexflow.io.atomic import write_text


def main(smk, log):
    write_report(smk.output.html, list(smk.input.summaries), smk.input.correlation, smk.input.depths,
                 smk.params.campaign)
    write_text(landing_page(list(smk.input.summaries), smk.params.campaign, smk.params.provenance,
                            smk.params.description, smk.params.headline), smk.output.landing)


run_stage(main, snakemake)  # noqa: F821
