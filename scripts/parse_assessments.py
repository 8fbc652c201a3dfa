"""Stage parse_assessments: assessment files -> results/assessments/*.parquet."""
from pathlib import Path

from inexflow.campaign.stage import run_stage
from inexflow.model.assessments import read_assessments


def main(smk, log):
    a = read_assessments(list(smk.input.assessments), smk.params.format)
    log.info("scale %s: %d elements, %d passages, %d documents, %d topics", a.scale, len(a.elements),
             len(a.passages), len(a.documents), len(a.topics))
    a.save(Path(smk.output.elements).parent)


run_stage(main, snakemake)  # noqa: F821
