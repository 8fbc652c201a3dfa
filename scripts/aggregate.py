"""Stage aggregate: the evaluation tasks' score tables -> one tidy table, the means, one ranked summary per
evaluation task (for reading: scores at 4 decimals, counts as integers, the warnings about each run), and the
table of the evaluation tasks; and the correlations between the run rankings of measures and quantisations
(Kendall tau-b and tau_AP; INEX 2005 measures paper, Tables 1-2), from the same table in memory."""
from pathlib import Path

from inexflow.analysis.aggregate import combine_scores, read_task_scores, summary_counts, task_summary, task_warnings
from inexflow.analysis.correlate import averaged_table, measure_correlations, paper_matrix
from inexflow.campaign.stage import merged_keys, run_stage
from inexflow.campaign.tasks import task_table
from inexflow.io.tables import write_parquet, write_tsv


def main(smk, log):
    scores = combine_scores([read_task_scores(p) for p in smk.input.scores])
    warnings = {Path(p).stem: task_warnings(p) for p in smk.input.scores}
    write_parquet(scores, smk.output.scores, merged_keys(smk.input.scores))
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
