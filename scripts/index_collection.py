"""Stage index_collection: the assessed documents of the collection (of every assessment set) -> element index."""
from pathlib import Path

from inexflow.campaign.stage import run_stage
from inexflow.io.tables import write_parquet
from inexflow.model.assessments import Assessments, index_assessed


def main(smk, log):
    sets = [Assessments.load(Path(p).parent) for p in smk.input.documents]
    log.info("indexing the assessed documents of %s", smk.params.collection)
    index = index_assessed(smk.params.collection, sets, log=log)
    log.info("%d elements", len(index))
    write_parquet(index, smk.output.index)


run_stage(main, snakemake)  # noqa: F821
