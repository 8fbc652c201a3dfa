"""Stage parse_topics: topic file -> results/topics.parquet."""
from inexflow.formats.topics import read_topics
from inexflow.stage import run_stage
from inexflow.tables import write_parquet


def main(smk, log):
    topics = read_topics(smk.input.topics)
    log.info("%d topics", len(topics))
    write_parquet(topics, smk.output.topics)


run_stage(main, snakemake)  # noqa: F821
