"""Stage swap_rates: swap error rates versus topic-set size, exponential fit."""
import pandas as pd

from inexflow.analysis.matrix import score_matrix
from inexflow.analysis.plots import error_rates
from inexflow.analysis.swap import fit_exponential, swap_rates
from inexflow.stage import run_stage
from inexflow.tables import read_parquet, write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    sw = cfg["swap"]
    scores = read_parquet(smk.input.scores)
    parts, fits = [], []
    for m in cfg["measures"]:
        mat = score_matrix(scores, cfg["task"], m, cfg["quant"])
        sizes = list(range(sw["min_size"], mat.shape[1] // 2 + 1))
        r = swap_rates(mat.to_numpy(), sizes, sw["tolerances"], sw["iterations"], cfg["seed"])
        r.insert(0, "measure", m)
        parts.append(r)
        for p, g in r.groupby("tolerance"):
            a1, a2, z = fit_exponential(g["size"], g["error_rate"])
            fits.append((m, p, a1, a2, z))
        log.info("measure %s: %d sizes", m, len(sizes))
    table = pd.concat(parts, ignore_index=True)
    write_tsv(table, smk.output.table)
    write_tsv(pd.DataFrame(fits, columns=["measure", "tolerance", "A1", "A2", "smallest_size_error_lt_5pct"]),
              smk.output.fit)
    error_rates(table, 0.0, smk.output.plot)


run_stage(main, snakemake)  # noqa: F821
