"""Stage aggregate: the runs' score tables -> one tidy table of every evaluation task, the means, one ranked summary
per evaluation task (for reading: scores at 4 decimals, counts as integers, the warnings about each run), and the
table of the evaluation tasks; and the correlations between the run rankings of measures and quantisations
(Kendall tau-b and tau_AP; INEX 2005 measures paper, Tables 1-2), from the same table in memory. It reads the runs'
own tables, not the tasks' (aggregate_task, which the analyses read), so that it starts as soon as the runs are
scored."""
from pathlib import Path

from inexflow.analysis.aggregate import read_run_scores, summary_counts, task_summary
from inexflow.analysis.correlate import averaged_table, measure_correlations, paper_matrix
from inexflow.campaign.stage import merged_keys, recorded_run_keys, run_stage
from inexflow.campaign.tasks import task_table
from inexflow.io.tables import write_parquet, write_tsv


def main(smk, log):
    task_runs = {t: list(runs) for t, runs in smk.params.task_runs.items()}
    scores, warnings = read_run_scores(smk.input.scores, task_runs)
    by_run = {Path(p).stem: p for p in smk.input.scores}
    # what the table was made from: every run's content key, input files and settings
    tables = [by_run[r] for runs in task_runs.values() for r in runs]
    write_parquet(scores, smk.output.scores, {"run_keys": recorded_run_keys(tables),
                                              **merged_keys(tables, ["input_keys", "settings"])} if task_runs else {})
    write_tsv(scores, smk.output.scores_tsv)
    write_tsv(scores[scores["topic"] == "all"], smk.output.means)
    participants = dict(smk.params.participants)
    for path in smk.output.summaries:
        task = Path(path).stem
        summary = task_summary(scores, task, smk.params.main_measures[task], participants, warnings.get(task))
        log.info("task %s: %d ranked rows, %d runs with warnings", task, len(summary), len(warnings.get(task, {})))
        write_tsv(summary, path, digits=4, counts=summary_counts(summary))  # for reading: all.parquet is exact
    write_tsv(task_table(dict(smk.params.eval_tasks), dict(smk.params.run_counts)), smk.output.tasks)
    correlate(scores, smk, log)


def correlate(scores, smk, log):
    """Kendall tau-b and tau_AP between the run rankings of every (quant, measure) pair per task, averaged
    measure by measure and quant by quant, also in the paper's matrix shape (INEX 2005, Tables 1 and 2)."""
    corr = measure_correlations(scores, dict(smk.params.measures))
    log.info("%d measure pairs", len(corr))
    write_tsv(corr, smk.output.correlation)
    by_measure, by_quant = averaged_table(corr, "measure"), averaged_table(corr, "quant")
    write_tsv(by_measure, smk.output.by_measure)
    write_tsv(by_quant, smk.output.by_quant)
    measures = [m for ms in smk.params.measures.values() for m in ms]
    write_tsv(paper_matrix(by_measure, "measure", measures), smk.output.table1)
    write_tsv(paper_matrix(by_quant, "quant", smk.params.quants), smk.output.table2)


run_stage(main, snakemake)  # noqa: F821
