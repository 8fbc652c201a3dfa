"""Stage parse_topics: topic file -> results/topics.parquet."""
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import write_parquet
from inexflow.io.topics import read_topics


def main(smk, log):
    topics = read_topics(smk.input.topics)
    log.info("%d topics", len(topics))
    write_parquet(topics, smk.output.topics)


run_stage(main, snakemake)  # noqa: F821
