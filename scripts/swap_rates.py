"""Stage swap_rates: swap error rates versus topic-set size, exponential fit."""
import pandas as pd

from inexflow.analysis.aggregate import read_task_scores
from inexflow.analysis.matrix import score_matrix
from inexflow.analysis.plots import error_rates
from inexflow.analysis.swap import fit_exponential, goodness_of_fit, swap_rates, table7, topic_set_sizes
from inexflow.campaign.stage import run_stage
from inexflow.io.tables import write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    sw = cfg["swap"]
    scores = read_task_scores(smk.input.scores)
    parts, fits = [], []
    for m in cfg["measures"]:
        mat = score_matrix(scores, cfg["task"], m, cfg["quant"])
        sizes = topic_set_sizes(mat.shape[1], sw["min_size"])
        r = swap_rates(mat.to_numpy(), sizes, sw["tolerances"], sw["iterations"], cfg["seed"])
        r.insert(0, "measure", m)
        parts.append(r)
        for p, g in r.groupby("tolerance"):
            a1, a2, z = fit_exponential(g["size"], g["error_rate"])
            chi2, df, critical = goodness_of_fit(g["size"], g["error_rate"], a1, a2, sw["iterations"])
            fits.append((m, p, a1, a2, z, chi2, df, critical, bool(chi2 <= critical)))
        log.info("measure %s: %d sizes", m, len(sizes))
    n_topics = mat.shape[1]
    table = pd.concat(parts, ignore_index=True)
    write_tsv(table, smk.output.table)
    fit = pd.DataFrame(fits, columns=["measure", "tolerance", "A1", "A2", "smallest_size_error_lt_5pct", "chi2",
                                      "chi2_df", "chi2_critical", "fits"])
    write_tsv(fit, smk.output.fit)
    write_tsv(table7(fit, cfg["measures"], n_topics), smk.output.paper_table)
    error_rates(table, fit, n_topics, smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
