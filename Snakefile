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
    finished()


rule all:
    default_target: True
    input:
        final_outputs(),
