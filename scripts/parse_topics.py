"""Stage parse_topics: topic file -> results/topics.parquet, recording the file's content key."""
from inexflow.campaign.stage import check_all_unchanged, run_stage
from inexflow.io.tables import write_parquet
from inexflow.io.topics import read_topics


def main(smk, log):
    topics = read_topics(smk.input.topics)
    log.info("%d topics", len(topics))
    keys = smk.params.content  # {file: content key}, None while a simulated campaign is still to be written
    check_all_unchanged(keys)  # the file read is still the one the job was planned for
    write_parquet(topics, smk.output.topics, {"input_keys": keys})


run_stage(main, snakemake)  # noqa: F821
