"""Speed of focused passage scoring (``inexflow score --task focused``).

Generates RUNS runs x (topics of the qrels) x RESULTS passages from the shared INEX
2009/2010 qrels (half of the passages inside relevant documents, half in others), then
times, in the same process and on the same files:

- inexflow in this process: reading each run and scoring it with the ``passage`` family;
- with ``--baseline-cmd "java -jar inex_eval.jar -f"`` (any command taking ``QRELS RUN...``):
  that command and the command ``inexflow score --task focused --assessments QRELS RUN...``,
  each as one process over all runs, start-up included, output discarded;
- without it, a straightforward per-result Python implementation of the same measures
  (which also cross-checks MAiP).

Prints results per second and the ratio baseline_time / inexflow_time (> 1: faster).

    python benchmarks/focused_speed.py --runs 10 --results 1500
    python benchmarks/focused_speed.py --runs 80 --baseline-cmd "java -jar inex_eval.jar -f" [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from inexflow.measures.context import ScoringContext
from inexflow.measures.session import score_run
from inexflow.model.assessments import read_assessments
from inexflow.model.runs import read_run

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT.parent / "shared" / "data" / "inex2009-2010" / "qrels-2009-2010.fol"


def generate_runs(qrels, outdir: Path, n_runs: int, n_results: int, seed: int) -> list[Path]:
    rng = np.random.default_rng(seed)
    docs = qrels.documents
    by_topic = {t: g for t, g in docs.groupby("topic")}
    all_docs = docs["doc"].unique()
    paths = []
    for r in range(n_runs):
        lines = []
        for t, g in by_topic.items():
            rel = g["doc"].to_numpy()
            lens = dict(zip(g["doc"], g["doc_chars"]))
            pick = np.where(rng.random(n_results) < 0.5, rng.choice(rel, n_results), rng.choice(all_docs, n_results))
            seen = set()
            rank = 0
            for d in pick:
                n = max(int(lens.get(d, 20000)), 200)
                off = int(rng.integers(0, n - 100)) // 100 * 100
                if (d, off) in seen:
                    continue
                seen.add((d, off))
                rank += 1
                lines.append(f"{t} Q0 {d} {rank} {-rank} bench{r} {off} 100\n")
        p = outdir / f"bench{r:03d}.run"
        p.write_text("".join(lines))
        paths.append(p)
    return paths


def python_baseline(qrels_path: Path, run_path: Path) -> float:
    """Per-result loops: the obvious implementation; returns MAiP."""
    rel = {}
    for line in open(qrels_path):
        c = line.split()
        rel.setdefault(c[0], {})[c[2]] = [tuple(map(int, x.split(":"))) for x in c[6:] if not x.endswith(":0")]
    trel = {t: sum(n for ps in d.values() for _, n in ps) for t, d in rel.items()}
    runs = {}
    for line in open(run_path):
        c = line.split()
        runs.setdefault(c[0], []).append((int(c[3]), c[2], int(c[6]), int(c[7])))
    aips = []
    for t, res in runs.items():
        if t not in rel:
            continue
        res.sort()
        cs = cr = 0
        pr = []
        for _, d, o, n in res:
            got = sum(max(0, min(o + n, s + m) - max(o, s)) for s, m in rel[t].get(d, []))
            cs += n
            cr += got
            pr.append((cr / cs if cs else 0.0, cr))
        ip = []
        for k in range(101):
            best = 0.0
            for p, c in pr:
                if 100 * c >= k * trel[t]:
                    best = max(best, p)
            ip.append(best)
        aips.append(sum(ip) / 101)
    return sum(aips) / len(aips)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--qrels", type=Path, default=QRELS)
    ap.add_argument("--baseline-cmd", help="command taking QRELS RUN... (e.g. 'java -jar inex_eval.jar -f')")
    ap.add_argument("--workdir", type=Path, help="keep the generated runs here and reuse them next time")
    ap.add_argument("--repeat", type=int, default=5,
                    help="time each command this many times, interleaved, and take the median (default %(default)s)")
    args = ap.parse_args()

    qrels = read_assessments(args.qrels)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        paths = sorted(work.glob("bench*.run"))[:args.runs]
        if len(paths) < args.runs or args.workdir is None:
            paths = generate_runs(qrels, work, args.runs, args.results, args.seed)
        n = sum(sum(1 for _ in open(p)) for p in paths)
        t0 = time.perf_counter()
        ctx = ScoringContext(read_assessments(args.qrels), {}, {})
        ours = [score_run(read_run(p, task="focused"), "passage", ctx) for p in paths]
        t_ours = time.perf_counter() - t0
        maip = [float(s[(s.topic == "all") & (s.measure == "MAiP")].value.iloc[0]) for s in ours]
        print(f"{args.runs} runs, {n} results")
        print(f"inexflow (in process) : {t_ours:8.2f} s  {n / t_ours:12.0f} results/s")
        if args.baseline_cmd:
            files = [str(args.qrels)] + list(map(str, paths))
            cli = [sys.executable, "-m", "inexflow", "score", "--task", "focused", "--assessments"]
            cmds = [cli[:-1] + ["--jobs", "1", "--assessments"] + files, cli + files,
                    shlex.split(args.baseline_cmd) + files]
            # interleaved rounds: a slow moment of the machine, or the first (cold) call, weighs on
            # all three commands alike, and the median drops it
            rounds = [[timed(c) for c in cmds] for _ in range(max(args.repeat, 1))]
            t_one, t_cli, t_base = (float(np.median(ts)) for ts in zip(*rounds))
            print(f"inexflow score -j 1   : {t_one:8.2f} s  {n / t_one:12.0f} results/s")
            print(f"inexflow score (all {len(os.sched_getaffinity(0))} cores): {t_cli:8.2f} s  {n / t_cli:12.0f} results/s")
            print(f"baseline              : {t_base:8.2f} s  {n / t_base:12.0f} results/s  ({args.baseline_cmd})")
            print(f"ratio baseline/inexflow: {t_base / t_one:.2f} on one core, {t_base / t_cli:.2f} on all cores "
                  f"(medians of {len(rounds)} interleaved rounds)")
        else:
            t0 = time.perf_counter()
            base = [python_baseline(args.qrels, p) for p in paths]
            t_base = time.perf_counter() - t0
            assert np.allclose(base, maip, atol=1e-12), (base[:3], maip[:3])
            print(f"baseline              : {t_base:8.2f} s  {n / t_base:12.0f} results/s  (per-result Python loops)")
            print(f"ratio baseline/inexflow: {t_base / t_ours:.2f}")


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
