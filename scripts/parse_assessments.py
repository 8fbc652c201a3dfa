"""Stage parse_assessments: assessment files -> results/assessments/*.parquet, recording the files' content
keys (checked by the stages that read the tables)."""
from pathlib import Path

from inexflow.campaign.stage import check_all_unchanged, run_stage
from inexflow.model.assessments import read_assessments


def main(smk, log):
    a = read_assessments(list(smk.input.assessments), smk.params.format)
    log.info("scale %s: %d elements, %d passages, %d documents, %d topics", a.scale, len(a.elements),
             len(a.passages), len(a.documents), len(a.topics))
    keys = smk.params.content  # {file: content key}, None while a simulated campaign is still to be written
    check_all_unchanged(keys)  # the files read are still those the job was planned for
    a.save(Path(smk.output.elements).parent, {"input_keys": keys})


run_stage(main, snakemake)  # noqa: F821
