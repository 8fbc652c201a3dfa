"""Stage index_collection: the assessed documents of the collection -> element index."""
from pathlib import Path

from inexflow.formats.assessments import Assessments
from inexflow.scoring import index_assessed
from inexflow.stage import run_stage
from inexflow.tables import write_parquet


def main(smk, log):
    a = Assessments.load(Path(smk.input.documents).parent)
    log.info("indexing the assessed documents of %s", smk.params.collection)
    index = index_assessed(smk.params.collection, a, log=log)
    log.info("%d elements", len(index))
    write_parquet(index, smk.output.index)


run_stage(main, snakemake)  # noqa: F821
