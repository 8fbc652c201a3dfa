"""Stage report: one HTML page with the ranked summaries, correlations and the pool."""
from inexflow.campaign.report import write_report
from inexflow.campaign.stage import run_stage


def main(smk, log):
    write_report(smk.output.html, list(smk.input.summaries), smk.input.correlation, smk.input.depths,
                 smk.params.campaign)


run_stage(main, snakemake)  # noqa: F821
