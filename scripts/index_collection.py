"""Stage index_collection: the assessed documents of the collection -> element index."""
from inexflow.formats.assessments import Assessments
from inexflow.formats.collection import index_collection
from inexflow.stage import run_stage
from inexflow.tables import write_parquet


def main(smk, log):
    from pathlib import Path
    a = Assessments.load(Path(smk.input.documents).parent)
    docs = sorted(set(a.documents["doc"]) | set(a.elements["doc"]) | set(a.passages["doc"]))
    log.info("indexing %d assessed documents of %s", len(docs), smk.params.collection)
    index = index_collection(smk.params.collection, docs, log=log)
    log.info("%d elements", len(index))
    write_parquet(index, smk.output.index)


run_stage(main, snakemake)  # noqa: F821
