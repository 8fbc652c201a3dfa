# Analyses over the cached parsed runs and scores (issue 5 and the papers' meta-evaluation).


# the campaign's pool, in a job of its own unless the pool analyses run: their job writes it
if not POOL_ANALYSES:

    rule build_pool:
        input:
            runs=[f"{RES}/firstpos/{r}.parquet" for r in POOL_RUNS],
        output:
            **POOL_OUTPUTS,
            pages=table_pages("pool_depths"),
        log:
            f"{LOGS}/build_pool.log",
        benchmark:
            f"{LOGS}/benchmarks/build_pool.tsv"
        priority: EARLY
        conda:
            ENV
        params:
            code=CODE,
            pages=page_sources,
            target=CAMPAIGN.pool.get("target"),
            depth=CAMPAIGN.pool.get("depth"),
            run_keys=lambda w: run_keys(POOL_RUNS),
        script:
            "../../scripts/build_pool.py"


# --- the meta-evaluation analyses; each has its own config under `analysis:` ---------------------


if "topic_sampling" in ANALYSES:

    rule topic_sampling:
        input:
            scores=analysis_scores("task"),
        output:
            table=f"{RES}/analysis/topic_sampling.tsv",
            smallest=f"{RES}/analysis/topic_sampling_smallest.tsv",
            plot=report(
                f"{RES}/analysis/tau_vs_topics.svg",
                caption="../report/tau_topics.rst",
                category="Analyses",
                subcategory="topic sampling",
            ),
            pages=table_pages("topic_sampling", "topic_sampling_smallest"),
        log:
            f"{LOGS}/topic_sampling.log",
        benchmark:
            f"{LOGS}/benchmarks/topic_sampling.tsv"
        priority: EARLY
        conda:
            ENV
        params:
            code=CODE,
            table_runs=lambda w: score_tables_runs(analysis_scores("task")),
            pages=page_sources,
            cfg=analysis_cfg("topic_fractions"),
        script:
            "../../scripts/topic_sampling.py"


# Pal et al.'s random pool sampling reads only the judged runs: a changed run that is not
# analysed (it only changes the pool) does not re-run it
if "pool_sampling" in ANALYSES:

    rule pool_sampling:
        input:
            **ANALYSIS_TABLES,
            judged=[f"{RES}/judged/{r}.parquet" for r in ANALYSIS_RUNS],
        output:
            sampling=f"{RES}/analysis/pool_sampling.tsv",
            smallest=f"{RES}/analysis/pool_sampling_smallest.tsv",
            sampling_table=f"{RES}/analysis/pool_sampling_table.tsv",
            plot=report(
                f"{RES}/analysis/tau_vs_pool.svg",
                caption="../report/tau_pool.rst",
                category="Analyses",
                subcategory="pool size and depth",
            ),
            pages=table_pages(
                "pool_sampling", "pool_sampling_smallest", "pool_sampling_table"
            ),
        log:
            f"{LOGS}/pool_sampling.log",
        benchmark:
            f"{LOGS}/benchmarks/pool_sampling.tsv"
        priority: EARLY
        conda:
            ENV
        params:
            run_keys=lambda w: run_keys(ANALYSIS_RUNS),
            code=CODE,
            table_runs=lambda w: analysis_tables_runs(),
            pages=page_sources,
            cfg=analysis_cfg("pool_fractions"),
        script:
            "../../scripts/pool_sampling.py"


# the analyses of the pool itself (pool_depth, leave_one_group_out), in one job as they read the
# same judged runs and the same pool regenerated from the analysed runs; the job builds the
# campaign's pool too (build_pool's work), from the pooled runs
if POOL_ANALYSES:

    rule pool_analyses:
        input:
            **ANALYSIS_TABLES,
            judged=[f"{RES}/judged/{r}.parquet" for r in ANALYSIS_RUNS],
            firstpos=[f"{RES}/firstpos/{r}.parquet" for r in ANALYSIS_RUNS],
            # the other pooled runs' (each input once: Snakemake hashes every small input
            # again for each output, docs/snakemake-upstream.md)
            pooled=[
                f"{RES}/firstpos/{r}.parquet"
                for r in POOL_RUNS
                if r not in ANALYSIS_RUNS
            ],
        output:
            **pool_analyses_outputs(),
        log:
            f"{LOGS}/pool_analyses.log",
        benchmark:
            f"{LOGS}/benchmarks/pool_analyses.tsv"
        priority: REPORT_PATH
        conda:
            ENV
        params:
            run_keys=lambda w: run_keys(sorted(set(ANALYSIS_RUNS) | set(POOL_RUNS))),
            code=CODE,
            table_runs=lambda w: analysis_tables_runs(),
            pages=page_sources,
            analyses=POOL_ANALYSES,
            cfg=analysis_cfg("pool_depth_percents", "adaptive_pool"),
            pool_target=CAMPAIGN.pool.get("target"),
            pool_depth=CAMPAIGN.pool.get("depth"),
            pooled_runs=POOL_RUNS,
        script:
            "../../scripts/pool_analyses.py"


if "swap_rates" in ANALYSES:

    rule swap_rates:
        input:
            scores=analysis_scores("task"),
        output:
            table=f"{RES}/analysis/swap_rates.tsv",
            fit=f"{RES}/analysis/swap_fit.tsv",
            paper_table=f"{RES}/analysis/swap_table.tsv",
            plot=report(
                f"{RES}/analysis/error_rates.svg",
                caption="../report/error_rates.rst",
                category="Analyses",
                subcategory="swap rates",
            ),
            pages=table_pages("swap_rates", "swap_fit", "swap_table"),
        log:
            f"{LOGS}/swap_rates.log",
        benchmark:
            f"{LOGS}/benchmarks/swap_rates.tsv"
        priority: EARLY
        conda:
            ENV
        params:
            code=CODE,
            table_runs=lambda w: score_tables_runs(analysis_scores("task")),
            pages=page_sources,
            cfg=analysis_cfg("swap"),
        script:
            "../../scripts/swap_rates.py"


# Ogilvie & Lalmas' significance analyses
if "significance" in ANALYSES:

    rule significance:
        input:
            scores=analysis_scores("significance", "task"),
        output:
            pairs=f"{RES}/analysis/significance_pairs.parquet",
            pvalues=f"{RES}/analysis/significance_pvalues.tsv",
            summary=f"{RES}/analysis/significance.tsv",
            errors=f"{RES}/analysis/test_error_rates.tsv",
            agreement=f"{RES}/analysis/significance_agreement.tsv",
            agreement_table=f"{RES}/analysis/significance_agreement_table.tsv",
            differences=f"{RES}/analysis/quant_differences.tsv",
            differences_plot=report(
                f"{RES}/analysis/quant_differences.svg",
                caption="../report/quant_differences.rst",
                category="Analyses",
                subcategory="significance",
            ),
            pages=table_pages(
                "significance",
                "significance_pvalues",
                "test_error_rates",
                "significance_agreement",
                "significance_agreement_table",
                "quant_differences",
            ),
        log:
            f"{LOGS}/significance.log",
        benchmark:
            f"{LOGS}/benchmarks/significance.tsv"
        priority: EARLY
        conda:
            ENV
        params:
            code=CODE,
            table_runs=lambda w: score_tables_runs(
                analysis_scores("significance", "task")
            ),
            pages=page_sources,
            cfg={
                "seed": ANALYSIS.get("seed"),
                "significance": ANALYSIS.get("significance"),
            },
        script:
            "../../scripts/significance.py"
