"""Stage index_collection: the assessed documents of the collection (of every assessment set) -> their
element index, read from the collection's index shards (the collection is parsed only by index_shard)."""
from pathlib import Path

from inexflow.campaign.stage import merged_keys, run_stage
from inexflow.io.tables import write_parquet
from inexflow.model.assessments import Assessments, index_assessed
from inexflow.model.collection_index import read_documents


def main(smk, log):
    sets = [Assessments.load(Path(p).parent) for p in smk.input.documents]
    collection = smk.params.collection
    log.info("the assessed documents of %s, from %d index shards", collection, len(smk.input.shards))
    index = index_assessed(collection, sets, read=lambda docs: read_documents(smk.input.shards, docs, collection))
    log.info("%d elements", len(index))
    write_parquet(index, smk.output.index, merged_keys(smk.input.documents))  # the assessment files' keys


run_stage(main, snakemake)  # noqa: F821
