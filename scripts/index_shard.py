"""Stage index_shard: one shard of the collection (the documents the workflow's planning listed for it,
read from that list alone) -> its element index, a file named by the shard's content key in the folder
every campaign over the collection shares (inexflow.model.collection_index)."""
from inexflow.campaign.stage import run_stage
from inexflow.model.collection_index import build_shard


def main(smk, log):
    collection = smk.config["collection"]  # not a param: the shard's key names its content, whatever its path
    p = build_shard(collection, smk.params.cache, smk.wildcards.key, log=log)
    log.info("shard of %s: %s", collection, p)


run_stage(main, snakemake)  # noqa: F821
