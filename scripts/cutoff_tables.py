"""Stage cutoff_tables: Hiemstra & Mihajlovic's tables for every task scored with the cutoff
family: precision per quantisation and overlap per cut-off for each run (their Tables 1-4,
6-8) and the runs ranked by precision at 10 and 100 averaged over the quantisations (Tables
5 and 9), at 4 decimals."""
from pathlib import Path

from inexflow.campaign.stage import run_stage
from inexflow.io.tables import read_parquet, write_tsv
from inexflow.measures.cutoff import ranked_runs, runs_cutoff_tables


def main(smk, log):
    scores = read_parquet(smk.input.scores)
    for path in smk.output.tables:
        task, kind = Path(path).stem.rsplit("_", 1)
        own = scores[scores["task"] == task]
        table = runs_cutoff_tables(own, smk.params.quants[task]) if kind == "runs" else ranked_runs(own, smk.params.ks[task])
        log.info("task %s: %s table, %d rows", task, kind, len(table))
        counts = {c for c in table.columns if c == "cutoff" or str(c).startswith("rank")}
        write_tsv(table, path, digits=4, counts=counts)  # for reading, as the paper prints them: the scores are exact


run_stage(main, snakemake)  # noqa: F821
