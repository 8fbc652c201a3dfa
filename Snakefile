# inexflow: evaluate an INEX-style campaign end to end.
#   snakemake --cores all                       (config/config.yaml: the demo campaign)
#   snakemake --cores 16 --configfile my.yaml   (your campaign)
# The rules live in workflow/rules/*.smk; each calls one thin script in scripts/.
# Snakemake finds its default profile (workflow/profiles/default) through profiles/, a link.
from snakemake.utils import min_version

min_version("9.1.4")


# the demo campaign, unless --configfile gives the campaign (then nothing is taken from it)
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/parse.smk"
include: "workflow/rules/score.smk"
include: "workflow/rules/analysis.smk"
include: "workflow/rules/report.smk"


# the report opens on the ranked runs of every task and links to every table and figure:
# a page rule report writes (snakemake --report after the run)
report: os.path.abspath(LANDING)


onsuccess:
    remove_stale()
    print(finished_message())


# the campaign's written summaries in one job: the HTML page, the Snakemake report's landing page
# and, with analyses, the summary of their tables (SUMMARY_INPUTS). The default target:
# it waits for every other final output (the tables and figures it links to), so that the
# campaign ends with it (its script is scripts/report.py)
rule report:
    default_target: True
    input:
        **SUMMARY_INPUTS,
        finished=report_waits_for(),
        summaries=summary_tables(),
        correlation=f"{RES}/analysis/correlation.tsv",
        depths=f"{RES}/pool/depths.tsv",
    output:
        **analysis_summary_outputs(),
        html=f"{RES}/report.html",
        landing=LANDING,
    log:
        f"{LOGS}/report.log",
    benchmark:
        f"{LOGS}/benchmarks/report.tsv"
    conda:
        ENV
    params:
        code=CODE,
        pages=page_sources,
        measures=ANALYSIS.get("measures"),
        campaign=config["campaign"],
        provenance=PROVENANCE,
        headline=CAMPAIGN.correlation,
        description=(
            "scores per task, curves, ranking tables and the meta-evaluation analyses. "
            "Every figure names the config keys it depends on."
        ),
    script:
        "scripts/report.py"
