"""The whole DAG on an INEX 2007-scale simulated campaign (config/campaigns/benchmark.yaml).

Simulates the campaign into bench/ unless it is there (107 topics, 80 runs from 25 groups,
1500 results per topic, every task), then:

1. times building the DAG (``snakemake -n``) and reports the job count;
2. runs ``snakemake --cores CORES`` and prints every stage's time and peak memory from the
   ``benchmark:`` records in logs/CAMPAIGN/benchmarks/, grouped per rule, with the share of the
   analyses;
3. changes one run file and re-runs, printing the re-run time as a ratio of the full run.

    python benchmarks/campaign.py [--cores 2] [--topics 107 --groups 25 --runs 80 --results 1500]

A config with a ``simulate:`` block (e.g. ``config/campaigns/wikipedia2007.yaml``, INEX 2007 on
a Wikipedia-sized collection) is simulated first by the workflow itself (``--until
simulate_demo``, timed apart and excluded), and the collection's index is built from scratch
(its shards, plans and digest table removed from the cache folder; other collections' shards stay)
unless ``--keep-index``:

    python benchmarks/campaign.py --config config/campaigns/wikipedia2007.yaml

Ten times that scale (issue 16 item 6), locally and then through SLURM, comparing the outputs:

    python benchmarks/campaign.py --config config/campaigns/benchmark10.yaml --data bench10 --topics 1070 \
        --no-rerun --keep /tmp/local10
    python benchmarks/campaign.py --config config/campaigns/benchmark10.yaml --data bench10 --topics 1070 \
        --no-rerun --profile workflow/profiles/slurm --compare /tmp/local10
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CONFIG = "config/campaigns/benchmark.yaml"  # --config
ANALYSES = {"topic_sampling", "pool_sampling", "pool_analyses", "swap_rates", "significance"}


def snakemake(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snakemake", "--configfile", CONFIG, *args], cwd=ROOT,
                          capture_output=True, text=True)


def campaign_name() -> str:
    import yaml

    return yaml.safe_load((ROOT / CONFIG).read_text())["campaign"]


def compare_trees(a: Path, b: Path) -> list[str]:
    """Relative paths of the files that differ between two results folders (or exist in one only)."""
    import filecmp

    fa = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    fb = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    return sorted(str(p) for p in fa ^ fb) + sorted(str(p) for p in fa & fb
                                                    if not filecmp.cmp(a / p, b / p, shallow=False))


def stage_table() -> pd.DataFrame:
    """Per rule: jobs, wall seconds and peak memory (the ``benchmark:`` records)."""
    rows = []
    records = ROOT / "logs" / campaign_name() / "benchmarks"
    for f in glob.glob(str(records / "**" / "*.tsv"), recursive=True):
        rel = Path(f).relative_to(records)
        rule = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        b = pd.read_csv(f, sep="\t")
        rows.append((rule, float(b["s"].iloc[0]), float(b["max_rss"].iloc[0])))
    df = pd.DataFrame(rows, columns=["rule", "seconds", "max_rss_mb"])
    return df.groupby("rule").agg(jobs=("seconds", "size"), seconds=("seconds", "sum"),
                                  max_rss_mb=("max_rss_mb", "max")).sort_values("seconds", ascending=False)


def timeline(since: float) -> str:
    """The jobs that ran after ``since`` (a time.time()), each as start and end in seconds from
    ``since``: a job's ``benchmark:`` record is written when it ends (its mtime) and holds its
    wall time."""
    rows = []
    records = ROOT / "logs" / campaign_name() / "benchmarks"
    for f in glob.glob(str(records / "**" / "*.tsv"), recursive=True):
        end = os.stat(f).st_mtime
        if end >= since:
            rel = Path(f).relative_to(records)
            s = float(pd.read_csv(f, sep="\t")["s"].iloc[0])
            rows.append((end - s - since, end - since, str(rel.with_suffix(""))))
    return "\n".join(f"  {a:6.2f} {b:6.2f}  {name}" for a, b, name in sorted(rows))


def main():
    global CONFIG
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--topics", type=int, default=107)
    ap.add_argument("--groups", type=int, default=25)
    ap.add_argument("--runs", type=int, default=80)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--docs", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=2007)
    ap.add_argument("--fresh", action="store_true", help="simulate again even if the data folder exists")
    ap.add_argument("--config", default=CONFIG, help="the campaign config (default %(default)s)")
    ap.add_argument("--data", default="bench", help="the folder the config reads, simulated if missing")
    ap.add_argument("--profile", help="run through this workflow profile (e.g. workflow/profiles/slurm)")
    ap.add_argument("--no-rerun", action="store_true", help="skip the re-run after one changed run")
    ap.add_argument("--reruns", type=int, default=1,
                    help="re-runs after one changed run (the file changes back and forth between them)")
    ap.add_argument("--keep", type=Path, help="copy the results folder here after the full run")
    ap.add_argument("--keep-index", action="store_true", help="keep the collection's index from an earlier run")
    ap.add_argument("--compare", type=Path, help="a results folder (--keep of another run) that must be "
                    "byte-identical to this run's")
    args = ap.parse_args()
    CONFIG = args.config
    import yaml

    cfg = yaml.safe_load((ROOT / CONFIG).read_text())
    if cfg.get("simulate"):  # simulated by the workflow's own first job
        bench = ROOT / cfg["simulate"]["out"]
        if args.fresh and bench.exists():
            shutil.rmtree(bench)
        if not (bench / "campaign.json").exists():
            t0 = time.perf_counter()
            p = snakemake("--until", "simulate_demo", "--cores", str(args.cores), "--quiet")
            if p.returncode:
                sys.exit(p.stdout + p.stderr)
            print(f"simulated the campaign in {time.perf_counter() - t0:.0f} s (not counted below)")
        if not args.keep_index:  # this collection's shards, plans and digests; other collections' stay
            from inexflow.model.shard_plan import collection_files

            for f in collection_files(ROOT / cfg.get("collection_cache", ".inexflow/collections"),
                                      ROOT / cfg["collection"]):
                f.unlink()
    else:
        bench = ROOT / args.data
    if args.fresh and bench.exists() and not cfg.get("simulate"):
        shutil.rmtree(bench)
    if not cfg.get("simulate") and not (bench / "campaign.json").exists():
        from inexflow.simulate.simconfig import SimulationConfig
        from inexflow.simulate.simulate import simulate
        t0 = time.perf_counter()
        simulate(bench, SimulationConfig(seed=args.seed, n_docs=args.docs, n_topics=args.topics,
                                         n_groups=args.groups, results_per_topic=args.results, pool_target=600,
                                         max_runs=args.runs))
        print(f"simulated the campaign in {time.perf_counter() - t0:.0f} s")
    for d in ("results", "logs"):  # this campaign's folders only
        shutil.rmtree(ROOT / d / campaign_name(), ignore_errors=True)
    t0 = time.perf_counter()
    p = snakemake("-n", "--quiet", "rules")
    t_dag = time.perf_counter() - t0
    if p.returncode:
        sys.exit(p.stdout + p.stderr)
    # the first "total" line of Snakemake's job stats (a dry run prints the table twice)
    jobs = next((int(l.split()[-1]) for l in p.stdout.splitlines() if l.split()[:1] == ["total"]), 0)
    print(f"DAG built in {t_dag:.1f} s (target < 10 s); jobs: {jobs}")
    t0 = time.perf_counter()
    run_args = ["--workflow-profile", args.profile, "--jobs", str(args.cores)] if args.profile \
        else ["--cores", str(args.cores)]
    p = snakemake(*run_args, "--quiet")
    t_full = time.perf_counter() - t0
    if p.returncode:
        sys.exit(p.stdout + p.stderr)
    st = stage_table()
    how = f"through {args.profile} ({args.cores} jobs at a time)" if args.profile else f"on {args.cores} cores"
    print(f"full run {how}: {t_full:.0f} s wall")
    print(st.to_string(float_format=lambda v: f"{v:.1f}"))
    core = st.loc[[r for r in st.index if r in ("evaluate_run", "evaluate_analysed_run", "aggregate_task",
                                                   "parse_assessments", "index_shard", "index_collection",
                                                   "ideal_recallbase")], "seconds"].sum()
    print(f"index + parse + score + aggregate: {core:.0f} s of job time ({core / args.cores:.0f} s on {args.cores} cores; "
          "target < 180 s)")
    ana = st.loc[[r for r in st.index if r in ANALYSES], "seconds"]
    print(f"analyses: {ana.sum():.0f} s of job time (target < 600 s); shares: "
          + ", ".join(f"{r} {v / ana.sum():.0%}" for r, v in ana.items()))
    print(f"peak memory of any stage: {st['max_rss_mb'].max():.0f} MB (target < 4096 MB)")
    results = ROOT / "results" / campaign_name()
    if args.keep:
        shutil.rmtree(args.keep, ignore_errors=True)
        shutil.copytree(results, args.keep)
    if args.compare:
        diff = compare_trees(args.compare, results)
        print(f"outputs byte-identical to {args.compare}: " + ("yes" if not diff else f"NO, {len(diff)} files "
                                                              f"differ: {', '.join(diff[:10])}"))
    if args.no_rerun:
        return
    # the re-run's target: 5 % on a simulated full-size collection (issue 32), 10 % on the
    # benchmark campaign (issue 31)
    target = 0.05 if cfg.get("simulate") else 0.10
    run = sorted((bench / "runs").glob("*.xml"))[0]
    text = run.read_text()
    try:  # the run changes back and forth: each re-run follows one changed run
        for k in range(args.reruns):
            run.write_text(text.replace("<rsv>", "<rsv>0", 1) if k % 2 == 0 else text)
            t0, since = time.perf_counter(), time.time()
            p = snakemake("--cores", str(args.cores), "--quiet")
            t_re = time.perf_counter() - t0
            if p.returncode:
                sys.exit(p.stdout + p.stderr)
            print(f"re-run after changing {run.name}: {t_re:.1f} s = {t_re / t_full:.1%} of the full run "
                  f"(target < {target:.0%}); its jobs (start, end in seconds from the snakemake call):\n{timeline(since)}")
    finally:
        if run.read_text() != text:  # the run put back as it was, and its results with it (not timed)
            run.write_text(text)
            snakemake("--cores", str(args.cores), "--quiet")


if __name__ == "__main__":
    main()
