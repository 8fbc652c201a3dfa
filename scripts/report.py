"""Stage report: one HTML page with the ranked summaries, correlations and the pool, the Snakemake report's landing
page, and, when analyses run, the shape checks of the analyses printed from their tables and Pal et al.'s Tables
11-12 (tau at 60 % sampling); when the analyses of the pool run, their tables in the paper's shape and their figures
(inexflow.analysis.pool_shapes). The report pages of the tables of the aggregate and pool_analyses jobs are rendered
here too (the workflow's report_pages)."""
from inexflow.analysis.pool_shapes import depth_shapes, logo_shapes
from inexflow.analysis.summary import summarise, tau_at_60
from inexflow.campaign.report import landing_page, write_report
from inexflow.campaign.stage import run_stage
from inexflow.io.atomic import write_text
from inexflow.io.text_tables import write_rows


def pool_shapes(smk):
    """The tables in the paper's shape and the figures of the analyses of the pool that run, from their tables."""
    inp, out = smk.input, smk.output
    if "pool_depth_table" in out.keys():
        depth_shapes(inp.pool_table_pool_depth, inp.pool_table_relevant_vs_depth, out.pool_depth_table,
                     out.depth_plot, out.curve_plot, smk.params.analysis_task)
    if "logo_table" in out.keys():
        logo_shapes(inp.pool_table_logo_runs, inp.pool_table_logo_per_query, out.logo_overall, out.logo_table,
                    out.logo_plot, smk.params.measures)


def main(smk, log):
    pool_shapes(smk)
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
