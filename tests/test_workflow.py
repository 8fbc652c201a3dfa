"""The Snakemake DAG end to end on a small simulated campaign: outputs, determinism across
core counts, the incremental dry-run property, config validation and stage failures."""
import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import ROOT, assert_same_tree, mount_small_tmpfs, snakemake
from inexflow.campaign.tasks import task_options
from inexflow.simulate.simconfig import SimulationConfig
from inexflow.simulate.simulate import simulate

pytestmark = pytest.mark.workflow  # a few minutes: run by .ci/run (pytest -m workflow), not by make test

SMALL = SimulationConfig(seed=3, n_docs=50, n_topics=4, n_groups=2, results_per_topic=30, pool_target=15)


def make_campaign(workdir: Path, **overrides):
    simulate(workdir / "demo", SMALL)
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["pool"]["target"] = 15
    cfg.update(overrides)
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    return cfg


def dry_run_jobs(workdir: Path) -> list[tuple[str, str]]:
    p = snakemake(workdir, "-n", "--cores", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    jobs, rule = [], None
    for line in p.stdout.splitlines():
        if line.startswith(("rule ", "localrule ", "checkpoint ", "localcheckpoint ")):
            if rule:
                jobs.append((rule, ""))
            rule = line.split()[1].rstrip(":")
        elif line.strip().startswith("wildcards:") and rule:
            jobs.append((rule, line.split(":", 1)[1].strip()))
            rule = None
    if rule:
        jobs.append((rule, ""))
    return jobs


@contextlib.contextmanager
def edited(path: Path, old: str, new: str):
    """``path`` with its first ``old`` replaced by ``new`` inside the block, restored after."""
    original = path.read_text()
    path.write_text(original.replace(old, new, 1))
    try:
        yield
    finally:
        path.write_text(original)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    wd = tmp_path_factory.mktemp("campaign")
    make_campaign(wd)
    p = snakemake(wd, "--cores", "16")  # compared byte for byte with a --cores 1 run below
    assert p.returncode == 0, p.stdout + p.stderr
    return wd


def test_outputs(campaign):
    res = campaign / "results" / "demo"
    for f in ["report.html", "scores/all.parquet", "scores/means.tsv", "scores/per_topic.tsv", "pool/depths.tsv",
              "analysis/correlation.tsv", "topics.parquet", "collection/index.parquet", "recallbase/main/gen.parquet",
              "evaluation_tasks.tsv"]:
        assert (res / f).is_file(), f
    n_runs = len(list((campaign / "demo" / "runs").iterdir()))
    scores = pd.read_parquet(res / "scores" / "all.parquet")
    assert list(scores.columns) == ["run", "topic", "task", "quant", "measure", "value"]
    assert scores["run"].nunique() == n_runs
    for task, main in [("thorough", "MAep"), ("focused", "MAiP"), ("relevant-in-context", "MAgP"),
                       ("best-in-context", "MAgP"), ("fetch-browse", "art_MAep")]:
        s = pd.read_csv(res / "summary" / f"{task}.tsv", sep="\t")
        assert list(s.columns[:5]) == ["rank", "run", "participant", "quant", main]
        assert s[main].is_monotonic_decreasing and s["rank"].iloc[0] == 1
        # the summary's means are the means of the per-topic values, at the summary's 4 decimals
        for r in s.itertuples():
            per_topic = {"MAiP": "AiP", "MAgP": "AgP"}.get(main, main)
            per = scores[(scores.run == r.run) & (scores.measure == per_topic) & (scores.topic != "all")]
            assert f"{getattr(r, main):.4f}" == f"{per['value'].mean():.4f}"
    assert (res / "report.html").read_text().count("<table>") >= 6
    for log in ["parse_assessments/main.log", "aggregate.log"]:
        assert (campaign / "logs" / "demo" / log).is_file()
    for f in ["summary.txt", "tau_at_60_table.tsv", "adaptive_pool.tsv", "adaptive_pool_summary.tsv",
              "pool_sampling.tsv", "pool_depth.tsv", "relevant_vs_depth.tsv", "topic_sampling.tsv",
              "swap_rates.tsv", "swap_fit.tsv", "swap_table.tsv", "logo_runs.tsv", "logo_per_query.tsv",
              "logo_table.tsv", "significance.tsv",
              "significance_pairs.parquet", "significance_pvalues.tsv", "test_error_rates.tsv", "significance_agreement.tsv",
              "significance_agreement_table.tsv", "quant_differences.tsv",
              "quant_differences.svg",
              "tau_vs_pool.svg", "tau_vs_topics.svg", "error_rates.svg", "logo_histogram.svg"]:
        assert (res / "analysis" / f).is_file(), f
    samp = pd.read_csv(res / "analysis" / "pool_sampling.tsv", sep="\t")
    assert samp.loc[samp.fraction == 1.0, "tau"].round(12).eq(1.0).all()  # full judgements: same ranking


def cli_args(opts) -> list[str]:
    """``inexflow score`` options equivalent to the workflow's :class:`Options` of a task."""
    j = lambda vals: ",".join(str(v) for v in vals)  # noqa: E731
    args = ["--quant", j(opts.quantisations), "--ideal-tie", opts.ideal_tie, "--cutoffs", j(opts.cutoffs),
            "--max-list-length", str(opts.max_list_length), "--alpha", str(opts.alpha), "--beta", str(opts.beta),
            "-n", str(opts.bep_distance), "--bepd-a", j(opts.bepd_a), "--cutoff-ks", j(opts.cutoff_ks)]
    args += ["--overlap", opts.overlap] if opts.overlap else []
    args += ["--topics", j(opts.topic_subset)] if opts.topic_subset else []
    args += ["--mean-doc-length", str(opts.mean_doc_length)] if opts.mean_doc_length else []
    for flag, on in (("-e", opts.empty_topics_zero), ("-c", opts.all_qrels_topics), ("--regroup", opts.regroup),
                     ("--curves", opts.per_topic_curves), ("--qr-printed", opts.qr_printed)):
        args += [flag] if on else []
    return args


def assert_cli_equals_workflow(workdir: Path, cfg: dict):
    """Every run scored by ``inexflow score`` (in process) with the options of its task gives
    exactly the values of the workflow's score tables: one scoring core behind both doors."""
    import contextlib
    import io

    from inexflow.campaign.tasks import evaluation_tasks
    from inexflow.front.cli import build_parser, main, options_from_args

    old = os.getcwd()
    os.chdir(workdir)
    try:
        tables = sorted((workdir / "results" / cfg["campaign"] / "scores" / "by_run").glob("*.parquet"))
        assert tables
        for table in tables:
            run, scored = table.stem, pd.read_parquet(table)
            run_file = next(workdir.glob(f"*/runs/{run}.*"))
            for task, want in scored.groupby("task"):
                et = evaluation_tasks(cfg)[task]
                opts = task_options(cfg, task)
                got = []
                for family in et["families"]:
                    args = ["score", "--task", et["type"], "--family", family, "--assessments",
                            et["assessments"]["path"], "-q", "-j", "1", "--format", "tsv", *cli_args(opts),
                            str(run_file)]
                    if cfg.get("collection"):
                        args[7:7] = ["--collection", cfg["collection"]]
                    assert options_from_args(build_parser().parse_args(args)) == opts  # one set of defaults
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out):
                        assert main(args) == 0
                    # values parsed by Python's float (exact round trip; some pandas versions' parser is not)
                    got.append(pd.read_csv(io.StringIO(out.getvalue()), sep="\t", dtype={"topic": str, "value": str}))
                got = pd.concat(got, ignore_index=True)
                got["value"] = got["value"].map(float)
                quants = set(want["quant"]) - {"-", "chars", "bep"}
                name = want["measure"] if len(quants) <= 1 else want["measure"].where(
                    want["quant"].isin(["-", "chars", "bep"]), want["measure"] + "." + want["quant"])
                w = sorted(zip(name, want["topic"], map(repr, want["value"])))
                g = sorted(zip(got["measure"], got["topic"], map(repr, got["value"])))
                assert len(w) == len(g) and w == g, (table, task, sorted(set(g) ^ set(w))[:5])
    finally:
        os.chdir(old)


def test_cli_and_workflow_give_the_same_numbers(campaign):
    assert_cli_equals_workflow(campaign, yaml.safe_load((campaign / "config" / "config.yaml").read_text()))


def test_one_core_gives_the_same_bytes_as_sixteen(campaign, tmp_path):
    make_campaign(tmp_path)
    p = snakemake(tmp_path, "--cores", "1")
    assert p.returncode == 0, p.stderr
    assert_same_tree(campaign / "results", tmp_path / "results")


def test_deployed_as_a_module_elsewhere_gives_the_same_bytes(campaign, tmp_path):
    """`inexflow workflow init DIR` writes a Snakefile that uses this workflow as a module; the
    demo run there (its own directory, its own config copy) gives the plain run's results."""
    from conftest import run_cli

    dep = tmp_path / "deployed"
    p = run_cli("workflow", "init", dep)
    assert p.returncode == 0, p.stderr
    assert "module inexflow:" in (dep / "workflow" / "Snakefile").read_text()
    lint = subprocess.run([sys.executable, "-m", "snakemake", "--lint", "-n"], cwd=dep, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr  # no absolute path in the deployment
    assert (dep / "config" / "README.md").is_file() and (dep / "workflow" / "profiles" / "default").is_dir()
    again = run_cli("workflow", "init", dep)
    assert again.returncode == 2 and "already exist" in again.stderr and "--force" in again.stderr
    shutil.copy(campaign / "config" / "config.yaml", dep / "config" / "config.yaml")
    shutil.copytree(campaign / "demo", dep / "demo")
    stale = dep / "results" / "demo" / "runs" / "gone.parquet"  # a run no longer in the config
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    p = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2"], cwd=dep, capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", dep / "results")
    # it ends as the root Snakefile does (the same function): the stale run's files removed, then
    # where the results are
    assert not stale.exists() and "inexflow: removed 1 file of runs or tasks no longer in the config" in p.stdout
    said = p.stdout[p.stdout.index("inexflow: campaign demo is evaluated."):].splitlines()
    assert said[1] == "  ranked runs of task thorough: results/demo/summary/thorough.tsv", said
    assert "  the full report: snakemake --report results/demo/snakemake-report.html" in said
    # the deployment's own hooks are the user's: nothing of the workflow replaces them
    with open(dep / "workflow" / "Snakefile", "a") as fh:
        fh.write('\n\nonsuccess:\n    open("hook-ran", "w").write("yes")\n')
    p = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--forcerun", "report"], cwd=dep,
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (dep / "hook-ran").read_text() == "yes"


def test_fresh_clone_simulates_the_missing_demo_in_the_dag(campaign, tmp_path):
    """No demo/ yet: the dry run plans rule simulate_demo (and writes nothing), the real run
    writes the campaign `inexflow simulate` writes and gives the results of a prepared run."""
    cfg = yaml.safe_load((campaign / "config" / "config.yaml").read_text())
    cfg["simulate"] = {"out": "demo", "seed": SMALL.seed, "docs": SMALL.n_docs, "topics": SMALL.n_topics,
                       "groups": SMALL.n_groups, "results": SMALL.results_per_topic, "pool_target": SMALL.pool_target}
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    jobs = dry_run_jobs(tmp_path)
    assert ("simulate_demo", "") in jobs and not (tmp_path / "demo").exists()
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "demo", tmp_path / "demo")
    # the report's landing page states the config's digest, and this config has a simulate block
    assert_same_tree(campaign / "results", tmp_path / "results", unless=("landing.rst",))
    assert dry_run_jobs(tmp_path) == []  # the demo is there now: nothing to do, no simulate_demo rule


def test_two_campaigns_in_one_checkout_leave_disjoint_results(campaign, tmp_path):
    """A second campaign (same data, another name) writes results/other/ and logs/other/ only;
    afterwards the first campaign has nothing to re-run."""
    cfg = yaml.safe_load((campaign / "config" / "config.yaml").read_text())
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(dict(cfg, campaign="other"), sort_keys=False))
    before = sorted(p.relative_to(campaign) for p in (campaign / "results").rglob("*"))
    try:
        p = snakemake(campaign, "--cores", "2", "--configfile", other)
        assert p.returncode == 0, p.stdout + p.stderr
        after = sorted(p.relative_to(campaign) for p in (campaign / "results").rglob("*"))
        assert [p for p in after if p.parts[1] != "other"] == before
        assert (campaign / "results" / "other" / "scores" / "means.tsv").read_bytes() == \
            (campaign / "results" / "demo" / "scores" / "means.tsv").read_bytes()
        assert (campaign / "logs" / "other" / "aggregate.log").is_file()
        assert dry_run_jobs(campaign) == []  # switching back re-runs nothing
    finally:
        shutil.rmtree(campaign / "results" / "other", ignore_errors=True)
        shutil.rmtree(campaign / "logs" / "other", ignore_errors=True)


def test_changed_run_reruns_only_its_jobs_and_aggregates(campaign):
    assert dry_run_jobs(campaign) == []
    with edited(campaign / "demo" / "runs" / "g01-focused-1.xml", "<rsv>1.0</rsv>", "<rsv>1.5</rsv>"):
        jobs = dry_run_jobs(campaign)
        # an analysed run: parsed, scored and judged again in one job, and only it
        assert sorted(jobs) == sorted([("evaluate_analysed_run", "run=g01-focused-1"),
                                       ("aggregate_task", "task=focused"),
                                       ("aggregate", ""), ("report", ""),
                                       # the analyses that read the focused scores, the runs or the pool
                                       # (pool_analyses builds the pool, as the pool analyses run);
                                       # not significance, which reads the thorough task's scores
                                       ("topic_sampling", ""), ("pool_sampling", ""), ("pool_analyses", ""),
                                       ("swap_rates", ""), ("all", "")])


def test_changed_run_of_another_task_leaves_the_analysed_tasks_analyses(campaign):
    """A best-in-context run is pooled but not analysed: it changes the pool (the pool_analyses job,
    which builds the pool when the pool analyses run, re-runs) but not the judged runs, so pool_sampling, the analysed
    runs' jobs and the analyses of the focused or thorough scores do not re-run, and only its task's
    table and curves are made again."""
    assert dry_run_jobs(campaign) == []
    with edited(campaign / "demo" / "runs" / "g01-best-in-context-1.xml", "<rsv>", "<rsv>0"):
        jobs = dry_run_jobs(campaign)
        assert sorted({r for r, _ in jobs}) == sorted(
            {"evaluate_run", "aggregate_task", "pool_analyses", "aggregate", "report", "all"})
        assert {w for r, w in jobs if r in ("evaluate_run", "aggregate_task")} == {
            "run=g01-best-in-context-1", "task=best-in-context"}


def test_a_run_replaced_by_an_older_dated_file_is_scored_again(campaign):
    """A run file replaced by another with an older modification time (a backup restored, cp -p,
    a checkout): Snakemake's dates miss it, the run's content key (a param) does not."""
    run = campaign / "demo" / "runs" / "g01-fol-1.txt"
    original, st = run.read_bytes(), run.stat()
    try:
        run.write_bytes((campaign / "demo" / "runs" / "g02-fol-1.txt").read_bytes())
        os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns - 10**12))  # 1000 s older than before
        jobs = dry_run_jobs(campaign)
        assert ("evaluate_analysed_run", "run=g01-fol-1") in jobs
        assert {w for r, w in jobs if r.startswith("evaluate")} == {"run=g01-fol-1"}
    finally:
        run.write_bytes(original)
        os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert dry_run_jobs(campaign) == []  # the original back: nothing to do


def test_a_changed_document_reindexes_only_its_shard(tmp_path):
    """The collection in shards of 10 documents: changing one document's text (even to an
    older date) plans exactly one index_shard job, for its shard's new content key, and no
    other shard is touched."""
    make_campaign(tmp_path, collection_shard_docs=10)
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    shards = sorted((tmp_path / ".inexflow" / "collections" / "index").glob("*.arrow"))
    assert len(shards) == 5  # 50 documents
    doc = tmp_path / "demo" / "collection" / "1007.xml"
    st = doc.stat()
    doc.write_text(doc.read_text().replace("<p>", "<p>changed ", 1))
    os.utime(doc, ns=(st.st_atime_ns, st.st_mtime_ns - 10**12))
    jobs = dry_run_jobs(tmp_path)
    assert [r for r, _ in jobs].count("index_shard") == 1
    assert {r for r, _ in jobs} >= {"index_shard", "index_collection", "evaluate_run", "aggregate"}  # runs read the shards
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    after = sorted((tmp_path / ".inexflow" / "collections" / "index").glob("*.arrow"))
    assert len(set(after) - set(shards)) == 1 and set(shards) <= set(after)
    assert dry_run_jobs(tmp_path) == []
    # a shard removed from the cache by hand: the runs name the shards in their params, not as
    # inputs, so Snakemake does not build it again by itself; a re-scored run says which and how
    gone = after[0]
    gone.unlink()
    run = sorted((tmp_path / "demo" / "runs").glob("*.xml"))[0]
    run.write_text(run.read_text().replace("<rsv>", "<rsv>0", 1))
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert (f"{gone.relative_to(tmp_path)}: the collection's index shard is missing from the cache (1 shard missing: "
            "removed by hand?) (expected every shard of the collection: `snakemake --forcerun index_collection` builds "
            "the missing ones again)") in p.stdout + p.stderr
    p = snakemake(tmp_path, "--cores", "2", "--forcerun", "index_collection")
    assert p.returncode == 0, p.stdout + p.stderr
    assert gone.exists() and dry_run_jobs(tmp_path) == []


def test_a_collection_checked_by_folders_sees_an_added_document_not_an_edit(tmp_path):
    """collection_check: folders: a call reuses the last plan while the collection's folders are
    as they were, so a document written in place is not seen (the documented trade); one added
    changes its folder: the collection is planned again and only the added document's shard is
    indexed."""
    make_campaign(tmp_path, collection_shard_docs=11, collection_check="folders")  # 50 or 51 documents: 5 shards
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    collection = tmp_path / "demo" / "collection"
    doc = collection / "1007.xml"
    text = doc.read_text()
    doc.write_text(text.replace("<p>", "<p>changed ", 1))
    assert dry_run_jobs(tmp_path) == []
    doc.write_text(text)
    (collection / "9999.xml").write_text("<article><title>new</title><p>added</p></article>")
    jobs = dry_run_jobs(tmp_path)
    assert [r for r, _ in jobs].count("index_shard") == 1


def test_changed_analysis_config_reruns_only_that_analysis(campaign):
    cfg_path = campaign / "config" / "config.yaml"
    original = cfg_path.read_text()
    try:
        cfg = yaml.safe_load(original)
        cfg["analysis"]["swap"]["iterations"] = 7
        cfg_path.write_text(yaml.safe_dump(cfg, sort_keys=False))
        jobs = dry_run_jobs(campaign)
        # the report pages of its tables come with it (table_pages): no job renders every table again;
        # the report's landing page states the config's digest, so it is written again (one cheap job)
        assert sorted(jobs) == sorted([("swap_rates", ""), ("report", ""), ("all", "")])
    finally:
        cfg_path.write_text(original)


def test_unknown_config_key_is_named(tmp_path):
    make_campaign(tmp_path, quantisationz=["gen"])
    p = snakemake(tmp_path, "-n", "--cores", "1")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert "config: Additional properties are not allowed ('quantisationz' was unexpected) (did you mean " \
           "'quantisations'?)" in out
    # the message alone, as the CLI says it: not Snakemake's error block with the Snakefile's frames
    assert "inexflow: error: " in p.stderr and "WorkflowError" not in out and 'File "' not in out, out


def test_unknown_quantisation_is_named(tmp_path):
    make_campaign(tmp_path, quantisations=["gen", "strictest"])
    p = snakemake(tmp_path, "-n", "--cores", "1")
    assert p.returncode != 0 and "config quantisations: unknown 'strictest'" in p.stdout + p.stderr


def test_failing_stage_names_rule_file_and_line(tmp_path):
    make_campaign(tmp_path)
    bad = tmp_path / "demo" / "runs" / "g01-fol-1.txt"
    lines = bad.read_text().splitlines(keepends=True)
    lines[4] = lines[4].rsplit(" ", 1)[0] + " -5\n"
    bad.write_text("".join(lines))
    p = snakemake(tmp_path, "--cores", "1", "results/demo/runs/g01-fol-1.parquet")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    assert "rule evaluate_analysed_run failed" in out and "g01-fol-1.txt:line 5: negative offset or length" in out
    assert "g01-fol-1.txt:line 5: negative offset or length" in (tmp_path / "logs" / "demo" / "evaluate_run" /
                                                                 "g01-fol-1.log").read_text()
    assert not (tmp_path / "results" / "demo" / "runs" / "g01-fol-1.parquet").exists()


@pytest.mark.parametrize("preset,tasks", [("inex2006", {"Thorough": "MAep", "Focused": "nxCG[10]",
                                                        "AllInContext": "MAgP", "BestInContext": "BEPD[1]"}),
                                          ("inex2007-2010", {"Focused": "MAiP", "Thorough": "MAiP",
                                                             "RelevantInContext": "MAgP", "BestInContext": "MAgP"}),
                                          ("inex2004", {"CO": "P[10]", "CO.ng": "precision_o[10]",
                                                        "CO.exhaustivity": "precall_MAP", "VCAS": "P[10]"})])
def test_campaign_presets_run_on_the_demo_formats(tmp_path, preset, tasks):
    """Each preset's whole DAG, its analyses included, on a small simulation, then its report."""
    simulate(tmp_path / "demo", SMALL)
    cfg = yaml.safe_load((ROOT / "config" / "campaigns" / f"{preset}.yaml").read_text())
    cfg["pool"]["target"] = 15
    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    (tmp_path / "preset.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    p = snakemake(tmp_path, "--cores", "2", "--configfile", str(tmp_path / "preset.yaml"))
    assert p.returncode == 0, p.stdout + p.stderr
    res = tmp_path / "results" / cfg["campaign"]
    assert_report_complete(tmp_path, res, "--configfile", str(tmp_path / "preset.yaml"))
    for task, main in tasks.items():
        s = pd.read_csv(res / "summary" / f"{task}.tsv", sep="\t")
        s = s[s["rank"] > 0]  # rows of measures without a quantisation (overlap[k]) are not ranked
        assert s.columns[4] == main and s[main].notna().all() and len(s) >= 2
    n_runs = {p.name.rsplit(".", 1)[0] for p in (tmp_path / "demo" / "runs").iterdir()}
    table = pd.read_csv(res / "evaluation_tasks.tsv", sep="\t")
    assert list(table["task"]) == list(tasks)
    assert table["runs"].sum() == len(pd.read_parquet(res / "scores" / "all.parquet")[["task", "run"]]
                                      .drop_duplicates()) <= len(n_runs)
    if preset == "inex2004":  # Hiemstra & Mihajlovic's tables as DAG outputs
        assert not (res / "cutoff" / "CO.ng_runs.tsv").exists()  # no cutoff family in CO.ng
        for task in ("CO", "VCAS"):
            summary = pd.read_csv(res / "summary" / f"{task}.tsv", sep="\t")
            ranked = pd.read_csv(res / "cutoff" / f"{task}_ranked.tsv", sep="\t")
            for k in (10, 100):  # Tables 5/9: precision averaged over the four quantisations
                want = summary.groupby("run")[f"P[{k}]"].mean()  # the summary's 4 decimals
                assert ranked.set_index("run")[f"P[{k}]"].to_dict() == pytest.approx(want.to_dict(), abs=1e-4)
                assert ranked[f"rank[{k}]"].min() == 1
            per_run = pd.read_csv(res / "cutoff" / f"{task}_runs.tsv", sep="\t")
            assert list(per_run.columns) == ["run", "cutoff", "strict", "liberal", "e3s321", "s3e321", "overlap"]
            assert list(per_run["cutoff"].unique()) == cfg["cutoff_ks"]
            r = summary[summary["rank"] > 0].iloc[0]
            row = per_run[(per_run["run"] == r["run"]) & (per_run["cutoff"] == 10)].iloc[0]
            assert f"{row[r['quant']]:.4f}" == f"{r['P[10]']:.4f}"
        assert_agreement_table(res / "analysis", cfg["analysis"]["significance"])  # Ogilvie & Lalmas, Table 3
    from inexflow.campaign.config import fill_defaults
    assert_cli_equals_workflow(tmp_path, fill_defaults(cfg, yaml.safe_load(
        (ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())))


def assert_agreement_table(an: Path, sig: dict):
    """``significance_agreement_table.tsv`` in Ogilvie & Lalmas' shape (Tables 3-4): per test
    the configured [predictor, truth] rows, then one per quantisation, with recall, precision,
    F1 and the % significant per measure; its F1 is the long table's (F1 is symmetric), its
    % significant the summary's count over all system pairs."""
    shaped = pd.read_csv(an / "significance_agreement_table.tsv", sep="\t", keep_default_na=False)
    stats = ("recall", "precision", "F1", "% significant")
    assert list(shaped.columns) == ["test", "truth", "predictor", *(f"{m} {st}" for m in sig["measures"]
                                                                     for st in stats)]
    rows = [r for t in sig["tests"] for r in [(t, q2, q1) for q1, q2 in sig["comparisons"]]
            + [(t, q, "") for q in sig["quants"]]]
    assert list(zip(shaped.test, shaped.truth, shaped.predictor)) == rows
    agree = pd.read_csv(an / "significance_agreement.tsv", sep="\t")
    summary = pd.read_csv(an / "significance.tsv", sep="\t")
    runs = pd.read_parquet(an / "significance_pairs.parquet")["run_a"].nunique()
    for r in shaped.to_dict("records"):
        for m in sig["measures"]:
            if r["predictor"]:
                pair = [r["truth"], r["predictor"]]
                long = agree[(agree.test == r["test"]) & (agree.measure_a == m) & (agree.measure_b == m)
                             & agree.quant_a.isin(pair) & agree.quant_b.isin(pair)]
                assert float(r[f"{m} F1"]) == pytest.approx(long["f1"].iloc[0])
            else:
                n = summary[(summary.quant == r["truth"]) & (summary.measure == m) & (summary.test == r["test"])]
                want = 100 * n["significant_pairs"].iloc[0] / (runs * (runs - 1) / 2)
                assert float(r[f"{m} % significant"]) == pytest.approx(want)


def assert_report_complete(workdir: Path, res: Path, *args):
    """``snakemake --report`` succeeds and holds every table page and plot of the campaign, and
    every analysis the config runs wrote its tables (from check-config's list)."""
    p = snakemake(workdir, "--report", "report.html", *args)
    assert p.returncode == 0, p.stdout + p.stderr
    html = (workdir / "report.html").read_text()
    items = sorted(res.glob("report/tables/*.html")) + sorted(res.glob("plots/*.svg")) + sorted(
        res.glob("analysis/*.svg"))
    assert items
    for f in items:
        assert f"filename={f.name};" in html, f.name
    from inexflow.campaign.config import load_config

    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        _, campaign = load_config(args[1:], default=workdir / "config" / "config.yaml")
    finally:
        os.chdir(cwd)
    assert "significance" in campaign.analyses and "topic_sampling" in campaign.analyses
    first_table = {"leave_one_group_out": "logo_runs"}
    for analysis in campaign.analyses:
        assert (res / "analysis" / f"{first_table.get(analysis, analysis)}.tsv").stat().st_size > 0, analysis


def test_the_inex2005_preset_is_the_ten_tasks_and_writes_tables_1_and_2(tmp_path):
    """INEX 2005 as evaluated (measures paper, section 6): the preset's ten evaluation tasks,
    on a campaign the DAG simulates in 2005's structure (CO+S and four CAS assessment sets,
    the COS topics, runs labelled with the ten tasks). Tables 1 and 2 average over the eight
    ad-hoc tasks: 8 x 3 quantisations = 24 scores per cell, 8 x 10 measures = 80."""
    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    preset = ROOT / "config" / "campaigns" / "inex2005.yaml"
    p = snakemake(tmp_path, "--cores", "2", "--configfile", str(preset))
    assert p.returncode == 0, p.stdout + p.stderr
    cfg = yaml.safe_load(preset.read_text())
    res = tmp_path / "results" / "inex2005"
    assert_report_complete(tmp_path, res, "--configfile", str(preset))
    tasks = pd.read_csv(res / "evaluation_tasks.tsv", sep="\t", dtype=str)
    # the ten tasks, and the CO.Thorough runs under Ogilvie & Lalmas' six quantisations
    assert list(tasks["task"]) == ["CO.Focussed", "COS.Focussed", "CO.Thorough", "COS.Thorough", "CO.FetchBrowse",
                                   "COS.FetchBrowse", "CO.Thorough.exhaustivity", "SSCAS", "SVCAS", "VSCAS", "VVCAS"]
    assert set(tasks["runs"]) == {"4"}  # 4 groups, one run each per task
    assert list(tasks["overlap"]) == ["on", "on", "off", "off", "off", "off", "off", "off", "off", "off", "off"]
    scores = pd.read_parquet(res / "scores" / "all.parquet")
    # each task is scored on its own topics: COS on the POOLS, CAS on the CAS sets' topics
    topics = {t: set(g["topic"]) - {"all"} for t, g in scores.groupby("task")}
    cos = {"202", "203", "205", "206", "208", "209", "211"}
    assert topics["COS.Focussed"] <= cos and topics["COS.Focussed"] < topics["CO.Focussed"]
    assert topics["CO.Focussed"] - cos  # the CO task also scores the topics without a castitle
    assert all(int(t) >= 212 for t in topics["SSCAS"]) and topics["SSCAS"] and not topics["SSCAS"] & topics["CO.Focussed"]
    # the four CAS assessment sets give four different rankings of the same runs' scores
    cas = scores[scores["task"].isin(["SSCAS", "SVCAS", "VSCAS", "VVCAS"]) & (scores["topic"] == "all")
                 & (scores["measure"] == "MAep") & (scores["quant"] == "gen")]
    assert cas.groupby("task")["value"].apply(tuple).nunique() == 4
    for name, n in (("correlation_measures_table", 24), ("correlation_quants_table", 80)):
        t = pd.read_csv(res / "analysis" / f"{name}.tsv", sep="\t", index_col=0, dtype=str)
        cells = [c for c in t.to_numpy().ravel() if isinstance(c, str) and c]
        assert cells and all(c.endswith(f"({n})") for c in cells), (name, cells)
    m = pd.read_csv(res / "analysis" / "correlation_measures_table.tsv", sep="\t", index_col=0)
    assert list(m.index) == cfg["correlation"]["measures"]["CO.Focussed"][1:]
    q = pd.read_csv(res / "analysis" / "correlation_quants_table.tsv", sep="\t", index_col=0)
    assert (list(q.index), list(q.columns)) == (["gen", "genLifted"], ["strict", "gen"])  # Table 2's layout
    # Ogilvie & Lalmas on 2005: the analyses over the scores, without the passage re-judging ones
    an = res / "analysis"
    summary = (an / "summary.txt").read_text()
    assert "topic sampling" in summary and "swap error rates" in summary and "pool sampling" not in summary
    assert not (an / "pool_sampling.tsv").exists() and not (an / "logo_runs.tsv").exists()
    # Table 4 in the paper's shape: its five comparisons, then the % significant per quantisation
    sig = cfg["analysis"]["significance"]
    assert sig["comparisons"][-1] == ["fullyspec", "strict"] and len(sig["quants"]) == 6
    assert_agreement_table(an, sig)
    # Figure 1: Gen 5 against Gen Lifted (a)-(b) and Fully Spec against Strict 5 (c)-(d)
    diffs = pd.read_csv(an / "quant_differences.tsv", sep="\t")
    assert list(diffs.columns[:4]) == ["measure", "test", "quant_ref", "quant_other"]
    assert set(zip(diffs["quant_ref"], diffs["quant_other"])) <= {("gen", "genLifted"), ("fullyspec", "strict")}
    assert set(diffs["test"]) == {"bootstrap"} and (an / "quant_differences.svg").stat().st_size > 5000
    sampled = pd.read_csv(an / "topic_sampling.tsv", sep="\t")
    assert sampled.loc[sampled.fraction == 1.0, "tau"].eq(1.0).all()
    # every task is scored by both doors alike (topic subsets and CAS assessment sets included)
    from inexflow.campaign.config import fill_defaults
    assert_cli_equals_workflow(tmp_path, fill_defaults(cfg, yaml.safe_load(
        (ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())))


def test_report_holds_every_table_and_plot_and_renders_them_in_chromium(campaign):
    p = snakemake(campaign, "--report", "report.html")
    assert p.returncode == 0, p.stdout + p.stderr
    html = (campaign / "report.html").read_text()
    res = campaign / "results" / "demo"
    plots = sorted(res.glob("plots/*.svg")) + sorted(res.glob("analysis/*.svg"))
    tsvs = sorted(res.glob("analysis/*.tsv")) + sorted(res.glob("summary/*.tsv"))
    assert len(plots) == 12 and len(tsvs) >= 20
    pages = {f.stem: f for f in res.glob("report/tables/*.html")}
    # every analysis table has its page in the report (rankings are ranking_TASK), and every plot is there
    rows = {}  # page -> data rows of its TSV
    for tsv in tsvs + [res / "scores" / "means.tsv", res / "pool" / "depths.tsv", res / "evaluation_tasks.tsv"]:
        page = {"means": "means", "depths": "pool_depths"}.get(tsv.stem, tsv.stem)
        page = f"ranking_{page}" if tsv.parent.name == "summary" else page
        assert page in pages, tsv
        rows[f"{page}.html"] = len(tsv.read_text().splitlines()) - 1
    for f in plots + list(pages.values()):
        assert f"filename={f.name};" in html, f.name
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright for the browser check")
    if not chromium:
        pytest.skip("no chromium (apt-get install chromium) for the browser check")
    seen = browse_report(playwright, chromium, campaign / "report.html")
    assert seen["img"] == sorted(f.name for f in plots)
    assert seen["html"] == rows  # every page shown, with every row of its table


def img_names(page) -> list[str]:
    """The file names of the SVG images the page shows (``filename=`` in their data URIs)."""
    srcs = [img.get_attribute("src") for img in page.locator("img[src^='data:image/svg+xml']").all()]
    return [s.split("filename=", 1)[1].split(";", 1)[0] for s in srcs if "filename=" in s]


def shown_item(page, previous: str | None, static=()):
    """What the report's main panel shows once it differs from ``previous``: (file name, the
    frame of an HTML page or the <img> of an SVG figure; the report's own images, ``static``,
    aside). Waits up to 30 s (a busy machine)."""
    for _ in range(300):
        for frame in page.frames:
            if frame.url.startswith("data:text/html") and "filename=" in frame.url:
                name = frame.url.split("filename=", 1)[1].split(";", 1)[0]
                if name != previous:
                    return name, frame
        for img in page.locator("img[src^='data:image/svg+xml']").all():
            src = img.get_attribute("src")
            name = src.split("filename=", 1)[1].split(";", 1)[0] if "filename=" in src else None
            if name is not None and name != previous and name not in static:
                return name, img
        page.wait_for_timeout(100)
    raise AssertionError(f"the report shows nothing new after {previous}")


def browse_report(playwright, chromium: str, report: Path) -> dict:
    """Open the Snakemake report in headless Chromium, click through every category and
    subcategory, open every item, and check what the main panel shows: a table with rows
    for an HTML page, a decoded image for a figure. Returns the figures seen and the rows shown of each HTML table."""
    seen = {"img": [], "html": {}}
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))

        def open_menu(*names):
            page.goto(report.as_uri())
            page.get_by_text("Analyses", exact=True).wait_for()
            for name in names:
                page.get_by_text(name, exact=True).first.click()

        for category in ("Analyses", "Pool", "Scores"):
            open_menu(category)
            subs = page.locator("a.block > span").all_inner_texts()
            for menu in [(category, sub) for sub in subs] or [(category,)]:  # one subcategory: no menu level
                open_menu(*menu)
                page.locator("tr a[iconname='eye']").first.wait_for()
                name, static = None, set(img_names(page))  # the report's own (its logo)
                for eye in page.locator("tr a[iconname='eye']").all():
                    eye.click()
                    try:
                        name, shown = shown_item(page, name, static)
                    except AssertionError as e:
                        raise AssertionError(f"menu {' > '.join(menu)}: {e}") from None
                    if name.endswith(".svg"):
                        assert shown.evaluate("i => i.complete && i.naturalWidth > 0"), name
                        seen["img"].append(name)
                    else:
                        shown.locator("table thead th").first.wait_for(state="attached")
                        seen["html"][name] = shown.locator("table tbody tr").count()
        browser.close()
        assert not errors, errors
    return {"img": sorted(seen["img"]), "html": seen["html"]}


def start_and_kill_during_scoring(workdir: Path, whole_snakemake: bool) -> str:
    """Start ``snakemake --cores 1`` on ``workdir`` and SIGKILL, as soon as a run's job runs,
    that job alone or Snakemake with all its jobs (its process group). Returns its output."""
    import signal
    import time

    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"),
                             "--directory", str(workdir), "--cores", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    killed = None
    deadline = time.time() + 120
    while killed is None and time.time() < deadline and proc.poll() is None:
        found = subprocess.run(["pgrep", "-f", f"{workdir}/.snakemake/scripts/.*evaluate_run.py"], capture_output=True,
                               text=True).stdout.split()
        if found:
            killed = int(found[0])
            if whole_snakemake:
                os.killpg(proc.pid, signal.SIGKILL)
            else:
                os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    out, _ = proc.communicate(timeout=300)
    assert killed is not None, "no evaluate_run job was seen running"
    assert proc.returncode != 0, out
    return out


def test_job_killed_halfway_leaves_nothing_trusted_and_rerun_gives_same_bytes(campaign, tmp_path):
    make_campaign(tmp_path)
    start_and_kill_during_scoring(tmp_path, whole_snakemake=False)
    # the killed job's output is not there to be trusted; a plain re-run completes
    p = snakemake(tmp_path, "--cores", "all")
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", tmp_path / "results")


def test_a_run_file_changed_while_its_job_runs_fails_that_job_and_keeps_no_numbers(campaign, tmp_path):
    import signal
    import time

    make_campaign(tmp_path)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                             str(tmp_path), "--cores", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env, start_new_session=True)
    paused, deadline = None, time.time() + 120
    while paused is None and time.time() < deadline and proc.poll() is None:
        found = subprocess.run(["pgrep", "-f", f"{tmp_path}/.snakemake/scripts/.*evaluate_run.py"],
                               capture_output=True, text=True).stdout.split()
        if found:
            paused = int(found[0])
            os.kill(paused, signal.SIGSTOP)  # the job holds still while every run file changes
            for run in (tmp_path / "demo" / "runs").iterdir():
                run.write_bytes(run.read_bytes() + b"\n")
            os.kill(paused, signal.SIGCONT)
        time.sleep(0.05)
    out, _ = proc.communicate(timeout=300)
    assert paused is not None, "no evaluate_run job was seen running"
    assert proc.returncode != 0 and "changed while the workflow ran" in out, out
    failed = [log.stem for log in (tmp_path / "logs" / "demo" / "evaluate_run").glob("*.log")
              if "changed while the workflow ran" in log.read_text()]
    assert failed and not (tmp_path / "results" / "demo" / "scores" / "by_run" / f"{failed[0]}.parquet").exists()
    p = snakemake(tmp_path, "--cores", "all")  # planned again on the new contents: completes
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_full_disk_fails_the_writing_job_leaves_no_partial_output_and_a_rerun_completes(campaign, tmp_path):
    make_campaign(tmp_path)
    results = tmp_path / "results"
    mount_small_tmpfs(results, "256k")
    try:
        p = snakemake(tmp_path, "--cores", "1")
        out = p.stdout + p.stderr
        assert p.returncode != 0 and "cannot write this output: the disk is full" in out and "Traceback" not in out
        assert not [f for f in results.rglob("*") if f.name.endswith(".tmp")]  # no temporary file left
    finally:
        subprocess.run(["umount", str(results)], capture_output=True)
    p = snakemake(tmp_path, "--cores", "all")  # room again: the run completes, as a clean one
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", results)


def test_snakemake_killed_then_unlock_as_the_readme_says_gives_same_bytes(campaign, tmp_path):
    make_campaign(tmp_path)
    start_and_kill_during_scoring(tmp_path, whole_snakemake=True)
    p = snakemake(tmp_path, "--cores", "all")  # the lock of the killed Snakemake is still there
    assert p.returncode != 0 and "--unlock" in p.stdout + p.stderr
    assert snakemake(tmp_path, "--unlock").returncode == 0
    p = snakemake(tmp_path, "--cores", "all")
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", tmp_path / "results")


def test_unreadable_or_replaced_cache_names_the_file(campaign, tmp_path):
    wd = tmp_path / "c"
    shutil.copytree(campaign, wd, symlinks=True)
    runs = wd / "results" / "demo" / "scores" / "by_run"
    truncated = runs / "g01-focused-1.parquet"
    truncated.write_bytes(truncated.read_bytes()[:100])
    p = snakemake(wd, "results/demo/scores/by_task/focused.parquet", "--cores", "1", "--forcerun", "aggregate_task")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "Traceback" not in out
    assert f"{truncated.relative_to(wd)}: cached table cannot be read" in out and "delete it and run snakemake" in out
    # a valid table of another run copied over this one
    shutil.copy(runs / "g02-focused-1.parquet", truncated)
    p = snakemake(wd, "results/demo/scores/by_task/focused.parquet", "--cores", "1", "--forcerun", "aggregate_task")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "holds run 'g02-focused-1', not 'g01-focused-1'" in out
    assert "holds run 'g02-focused-1'" in (wd / "logs" / "demo" / "aggregate_task" / "focused.log").read_text()
    # the run's own table, but made from an older version of the run file (restored from a copy)
    shutil.copy(runs / "g02-focused-1.parquet", wd / "old.parquet")
    run_file = wd / "demo" / "runs" / "g02-focused-1.xml"
    run_file.write_bytes(run_file.read_bytes() + b"\n")
    truncated.unlink()  # rebuilt by the next call, with g02-focused-1's table from its new contents
    assert snakemake(wd, "--cores", "1", "--until", "aggregate_task").returncode == 0
    shutil.copy(wd / "old.parquet", runs / "g02-focused-1.parquet")
    p = snakemake(wd, "results/demo/scores/by_task/focused.parquet", "--cores", "1", "--forcerun", "aggregate_task")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "made from another version of the run file (stale" in out, out


def test_a_stale_table_made_from_several_runs_is_refused_naming_it_and_the_run(campaign, tmp_path):
    """A task's scores record the runs they were made from and their content keys; an older copy
    put back over them (newer-dated than what reads it) is refused by the job that reads it,
    naming the table and the run, never read as it is."""
    wd = tmp_path / "c"
    shutil.copytree(campaign, wd, symlinks=True)
    res = wd / "results" / "demo"
    # in this order: a failed job's outputs are removed
    readers = {"scores/by_task/focused.parquet": ("swap_rates", "analysis/swap_rates.tsv")}
    old = {table: (res / table).read_bytes() for table in readers}
    run_table = res / "scores" / "by_run" / "g02-focused-1.parquet"
    old_run_table = run_table.read_bytes()
    run_file = wd / "demo" / "runs" / "g02-focused-1.xml"
    run_file.write_bytes(run_file.read_bytes() + b"\n")
    p = snakemake(wd, "--cores", "2")  # every table made again from the run's new contents
    assert p.returncode == 0, p.stdout + p.stderr
    for table, (rule, target) in readers.items():
        current = (res / table).read_bytes()
        assert current != old[table]
        (res / table).write_bytes(old[table])
        p = snakemake(wd, f"results/demo/{target}", "--cores", "1", "--forcerun", rule)
        out = p.stdout + p.stderr
        assert p.returncode != 0 and "Traceback" not in out, out
        assert (f"rule {rule} failed: results/demo/{table}: cached table was made from another version of run "
                "g02-focused-1's file (stale") in out, out
        (res / table).write_bytes(current)
    # the run's own scores, an older copy put back: aggregate, which reads every run's scores, refuses it
    current = run_table.read_bytes()
    run_table.write_bytes(old_run_table)
    p = snakemake(wd, "results/demo/scores/all.parquet", "--cores", "1", "--forcerun", "aggregate")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "Traceback" not in out, out
    assert ("rule aggregate failed: results/demo/scores/by_run/g02-focused-1.parquet: cached table was made from "
            "another version of the run file (stale") in out, out
    run_table.write_bytes(current)
    p = snakemake(wd, "--cores", "2")  # the removed outputs made again: the same as a clean run's
    assert p.returncode == 0, p.stdout + p.stderr
    assert (res / "analysis" / "pool_depth.tsv").read_bytes() == (campaign / "results" / "demo" / "analysis" /
                                                                   "pool_depth.tsv").read_bytes()


def test_a_stale_table_made_from_the_assessments_is_refused_naming_it_and_the_file(campaign, tmp_path):
    """The parsed assessments record their files' content keys, and the tables made from them
    (the collection index, the recall-bases, a run's and a task's scores) carry them: assessments
    restored with an older date are parsed again, and an older copy of one of those tables put
    back (newer-dated than what reads it) is refused by the job that reads it, naming the table
    and the assessment file; deleted, as the message says, it is made again: the clean run's bytes."""
    wd = tmp_path / "c"
    shutil.copytree(campaign, wd, symlinks=True)
    res = wd / "results" / "demo"
    # in this order: each stale table is deleted once refused, and made again by the next call
    readers = {"scores/by_task/thorough.parquet": ("significance", "analysis/significance.tsv"),
               "scores/by_run/g01-thorough-1.parquet": ("aggregate_task", "scores/by_task/thorough.parquet"),
               "recallbase/main/gen.parquet": ("evaluate_run", "scores/by_run/g01-thorough-1.parquet"),
               "collection/index.parquet": ("ideal_recallbase", "recallbase/main/gen.parquet"),
               "assessments/main/elements.parquet": ("ideal_recallbase", "recallbase/main/gen.parquet")}
    qrels = wd / "demo" / "assessments" / "qrels.fol"
    original, st = qrels.read_bytes(), qrels.stat()
    qrels.write_bytes(original.split(b"\n", 1)[1])  # one judgement fewer
    p = snakemake(wd, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    stale = {table: (res / table).read_bytes() for table in readers}
    qrels.write_bytes(original)
    os.utime(qrels, ns=(st.st_atime_ns, st.st_mtime_ns))  # the original back, older-dated than the tables
    p = snakemake(wd, "--cores", "2")  # parsed again (its content key), and all that is made from it
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", wd / "results")
    stale_message = "cached table was made from another version of demo/assessments/qrels.fol (stale"
    for table, (rule, target) in readers.items():
        assert (res / table).read_bytes() != stale[table]
        (res / table).write_bytes(stale[table])
        p = snakemake(wd, f"results/demo/{target}", "--cores", "1", "--forcerun", rule)
        out = p.stdout + p.stderr
        assert p.returncode != 0 and "Traceback" not in out, out
        assert f"rule {rule} failed: results/demo/{table}: {stale_message}" in out, out
        (res / table).unlink()  # as the message says
    p = snakemake(wd, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert_same_tree(campaign / "results", wd / "results")


def test_a_config_file_without_campaign_data_does_not_run_the_demo(tmp_path):
    make_campaign(tmp_path)
    (tmp_path / "mine.yaml").write_text("campaign: mine\n")
    p = snakemake(tmp_path, "-n", "--cores", "1", "--configfile", str(tmp_path / "mine.yaml"))
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "no 'assessments', 'runs' given" in out and "Traceback" not in out


def test_a_run_removed_from_the_config_leaves_nothing_behind(tmp_path):
    """Every table under results/CAMPAIGN/ describes the current campaign: the summaries and
    aggregates are made again without the run, and its own files and logs are removed."""
    make_campaign(tmp_path, analysis=False)
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    gone = "g02-thorough-1"
    assert (tmp_path / "results" / "demo" / "runs" / f"{gone}.parquet").is_file()
    cfg = yaml.safe_load((tmp_path / "config" / "config.yaml").read_text())
    cfg["runs"][0]["path"] = "demo/runs/g0[!2]-*.xml"
    cfg["runs"].insert(1, {"path": "demo/runs/g02-[!t]*.xml"})
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    p = snakemake(tmp_path, "--cores", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "inexflow: removed 5 files of runs or tasks no longer in the config" in p.stdout
    assert "results/demo/summary/thorough.tsv" in p.stdout  # where the results are
    left = [f for f in (tmp_path / "results").rglob("*") if gone in f.name]
    left += [f for f in (tmp_path / "logs").rglob("*") if gone in f.name]
    assert not left
    for f in (tmp_path / "results" / "demo").rglob("*.tsv"):
        assert gone not in f.read_text(), f
    scores = pd.read_parquet(tmp_path / "results" / "demo" / "scores" / "all.parquet")
    assert gone not in set(scores["run"]) and "g02-focused-1" in set(scores["run"])


def test_a_table_made_under_other_settings_is_refused_naming_the_setting(campaign, tmp_path):
    """A run's scores record the settings they were made with (its task's scoring options, as
    digests): after a changed setting, an older copy made under the old one put back
    (newer-dated than what reads it) is refused by the job that reads it, naming the table and
    the setting, not read as it is."""
    wd = tmp_path / "c"
    shutil.copytree(campaign, wd, symlinks=True)
    table = sorted((wd / "results" / "demo" / "scores" / "by_run").glob("*-relevant-in-context-*.parquet"))[0]
    old = table.read_bytes()
    p = snakemake(wd, "--cores", "2", "--config", "beta=1.0")  # Relevant in Context scored again under beta 1
    assert p.returncode == 0, p.stdout + p.stderr
    assert table.read_bytes() != old
    table.write_bytes(old)  # the copy made under beta 0.25
    p = snakemake(wd, "results/demo/scores/all.parquet", "--cores", "1", "--config", "beta=1.0",
                  "--forcerun", "aggregate")
    out = p.stdout + p.stderr
    assert p.returncode != 0 and "Traceback" not in out, out
    assert (f"rule aggregate failed: {table.relative_to(wd)}: cached table was made "
            "with another value of setting task relevant-in-context (stale: the config changed since") in out, out
