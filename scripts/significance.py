"""Stage significance: all-pairs tests with BY control, test error rates, agreement, and
where two quantisations disagree (Ogilvie & Lalmas, Figure 1)."""
import itertools

import pandas as pd

from inexflow.analysis import plots
from inexflow.analysis.aggregate import read_task_scores
from inexflow.analysis.matrix import answered_matrix
from inexflow.analysis.significance import (
    agreement,
    agreement_table,
    all_pairs,
    pvalue_table,
    quant_differences,
    test_error_rates,
)
from inexflow.campaign.stage import run_stage
from inexflow.errors import counted
from inexflow.io.tables import write_parquet, write_tsv


def main(smk, log):
    cfg = smk.params.cfg
    sc = cfg["significance"]
    scores = read_task_scores(smk.input.scores)
    tables, sig_sets, errors, mats, missing = [], {}, [], {}, {}
    for quant in sc["quants"]:
        for m in sc["measures"]:
            answered = answered_matrix(scores, sc["task"], m, quant)
            missing[(quant, m)] = answered.isna().sum(axis=1)  # topics a run has no value for: counted 0
            if missing[(quant, m)].any():
                short = int((missing[(quant, m)] > 0).sum())
                log.warning("quant %s measure %s: %s %s no value on some of the %d topics; the tests and "
                            "means here count those 0 (the official means leave them out unless "
                            "empty_topics_zero): columns missing_*_scored_0", quant, m, counted(short, "run"),
                            "has" if short == 1 else "have", answered.shape[1])
            mat = mats[(quant, m)] = answered.fillna(0.0)
            res = all_pairs(mat, sc["tests"], sc["bootstrap"], cfg["seed"], sc["alpha"])
            res.insert(0, "measure", m)
            res.insert(0, "quant", quant)
            tables.append(res)
            for test, g in res.groupby("test"):
                sig_sets[(quant, m, test)] = set(zip(g.run_a[g.significant], g.run_b[g.significant]))
            err = test_error_rates(mat, sc["tests"], sc["splits"], sc["error_rate_bootstrap"], cfg["seed"],
                                   sc["alpha"])
            err.insert(0, "measure", m)
            err.insert(0, "quant", quant)
            errors.append(err)
            log.info("quant %s measure %s: %d runs", quant, m, mat.shape[0])
    pairs = pd.concat(tables, ignore_index=True)
    write_parquet(pairs, smk.output.pairs)
    means = {k: mat.mean(axis=1) for k, mat in mats.items()}
    write_tsv(pvalue_table(pairs, means, missing), smk.output.pvalues, digits=4)  # for reading: the parquet is exact
    summary = pairs.groupby(["quant", "measure", "test"])["significant"].agg(["sum", "count"]).reset_index()
    key = list(zip(summary["quant"], summary["measure"]))
    summary["topics"] = [mats[k].shape[1] for k in key]
    summary["missing_scored_0"] = [int(missing[k].sum()) for k in key]  # (run, topic) cells without a value
    write_tsv(summary.rename(columns={"sum": "significant_pairs", "count": "ordered_pairs"}), smk.output.summary)
    write_tsv(pd.concat(errors, ignore_index=True), smk.output.errors)
    rows = []
    keys = sorted({(q, m) for q, m, _ in sig_sets})
    for test in sc["tests"]:
        for a, b in itertools.combinations(keys, 2):
            p, r, f = agreement(sig_sets[(*a, test)], sig_sets[(*b, test)])
            rows.append((test, a[0], a[1], b[0], b[1], p, r, f))
    write_tsv(pd.DataFrame(rows, columns=["test", "quant_a", "measure_a", "quant_b", "measure_b", "precision",
                                          "recall", "f1"]), smk.output.agreement)
    n_runs = {k: mat.shape[0] for k, mat in mats.items()}
    write_tsv(agreement_table(sig_sets, sc["comparisons"], sc["quants"], sc["measures"], sc["tests"], n_runs),
              smk.output.agreement_table)
    # Figure 1: per measure, each (reference, other) pair of analysis.significance.differences
    # on the bootstrap's decisions (the paper draws it from the bootstrap only), or the first
    # test's where the bootstrap is not configured
    test = "bootstrap" if "bootstrap" in sc["tests"] else sc["tests"][0]
    if test != "bootstrap":
        log.warning("analysis.significance.tests has no bootstrap: quant_differences (Ogilvie & Lalmas, Figure 1, "
                    "drawn from the bootstrap in the paper) uses the %s test's decisions", test)
    diffs = []
    for m in sc["measures"]:  # rows of panels by measure, then pair: the paper's (a)-(d) for the first measure
        for ref, other in sc["differences"]:
            d = quant_differences(mats[(ref, m)], mats[(other, m)], sig_sets[(ref, m, test)], sig_sets[(other, m, test)])
            diffs.append(d.assign(measure=m, test=test, quant_ref=ref, quant_other=other))
    cols = ["measure", "test", "quant_ref", "quant_other", "run_a", "run_b", "diff_ref", "diff_other",
            "significant_ref", "significant_other", "agreement"]
    diffs = pd.concat(diffs, ignore_index=True)[cols] if diffs else pd.DataFrame(columns=cols)
    write_tsv(diffs, smk.output.differences)
    plots.quant_differences(diffs, smk.output.differences_plot)


run_stage(main, snakemake)  # noqa: F821
