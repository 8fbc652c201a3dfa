"""Speed of passage scoring (``inexflow score --task focused``, ``relevant-in-context``,
``best-in-context``) against the official INEX 2007-2010 tool or a plain Python implementation.

Generates RUNS runs x (topics of the qrels) x RESULTS passages from the shared INEX
2009/2010 qrels (half of the passages inside relevant documents, half in others); for the
in-context tasks (``--task``) makes them in-context as ``where_time_goes.py`` does (Relevant
in Context: each article's passages moved together; Best in Context: each article's first
passage). Then times, on the same files:

- inexflow in this process: reading each run and scoring it with the task's family;
- with ``--jar inex_eval.jar`` (run as ``java -jar JAR -f|-r|-b`` for the task) or
  ``--baseline-cmd`` (any command taking ``QRELS RUN...``): that command and ``inexflow score
  --task TASK --jobs CORES --assessments QRELS RUN...``, each one process over all runs,
  start-up included, output discarded, both pinned to the first CORES cores of this process
  (``taskset``), in interleaved rounds (``--repeat``): a slow moment of a shared machine
  weighs on both alike. Prints each command's median and range and the ratio's median and
  range over the rounds;
- without either (focused only), a straightforward per-result Python implementation of the
  same measures (which also cross-checks MAiP).

Prints results per second and the ratio baseline_time / inexflow_time (> 1: faster).

    python benchmarks/focused_speed.py --runs 10 --results 1500
    python benchmarks/focused_speed.py --runs 20 --jar inex_eval.jar --task best-in-context --cores 1 --repeat 9
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from passage_runs import TASKS, generate_runs, in_context_files
from trec_speed import pinned, timed

from inexflow.measures.context import ScoringContext
from inexflow.measures.session import score_run
from inexflow.model.assessments import read_assessments
from inexflow.model.runs import read_run

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT.parent / "shared" / "data" / "inex2009-2010" / "qrels-2009-2010.fol"


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


FAMILY = {task: family for family, task in TASKS.items()}  # task -> family scoring it (and its runs' folder)
TOOL_FLAG = {"focused": "-f", "relevant-in-context": "-r", "best-in-context": "-b"}  # inex_eval's task flags


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", choices=list(FAMILY), default="focused")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--qrels", type=Path, default=QRELS)
    ap.add_argument("--jar", type=Path, help="the official inex_eval.jar: the baseline, run with the task's flag")
    ap.add_argument("--baseline-cmd", help="another baseline: a command taking QRELS RUN... (e.g. 'java -jar inex_eval.jar -f')")
    ap.add_argument("--cores", type=int, default=1,
                    help="cores both commands are pinned to; inexflow gets as many --jobs (default %(default)s)")
    ap.add_argument("--workdir", type=Path, help="keep the generated runs here and reuse them next time")
    ap.add_argument("--repeat", type=int, default=5,
                    help="time each command this many times, interleaved, and take the median (default %(default)s)")
    ap.add_argument("--no-in-process", action="store_true", help="skip the in-process timing")
    args = ap.parse_args()
    baseline = shlex.split(args.baseline_cmd) if args.baseline_cmd else \
        ["java", "-jar", str(args.jar), TOOL_FLAG[args.task]] if args.jar else None
    if baseline is None and args.task != "focused":
        ap.error("the in-context tasks need a baseline: --jar or --baseline-cmd")
    family = FAMILY[args.task]
    cores = sorted(os.sched_getaffinity(0))[: args.cores] if hasattr(os, "sched_getaffinity") else []

    qrels = read_assessments(args.qrels)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        paths = sorted(work.glob("bench*.run"))[:args.runs]
        if len(paths) < args.runs or args.workdir is None:
            paths = generate_runs(qrels, work, args.runs, args.results, args.seed)
        if family != "passage":
            paths = in_context_files(work, family, paths)
        n = sum(p.read_bytes().count(b"\n") for p in paths)
        print(f"{args.task}: {args.runs} runs, {n} results")
        if not args.no_in_process:
            t0 = time.perf_counter()
            ctx = ScoringContext(read_assessments(args.qrels), {}, {})
            ours = [score_run(read_run(p, task=args.task), family, ctx) for p in paths]
            t_ours = time.perf_counter() - t0
            print(f"inexflow (in process, unpinned): {t_ours:8.2f} s  {n / t_ours:12.0f} results/s")
        if baseline:
            files = [str(args.qrels)] + list(map(str, paths))
            cmds = {"inexflow": pinned([sys.executable, "-m", "inexflow", "score", "--task", args.task,
                                        "--jobs", str(max(len(cores), 1)), "--assessments", *files], cores),
                    "baseline": pinned(baseline + files, cores)}
            # interleaved rounds: a slow moment of the machine, or the first (cold) call, weighs on
            # both commands alike, and the median drops it
            rounds = [{k: timed([c]) for k, c in cmds.items()} for _ in range(max(args.repeat, 1))]
            print(f"pinned to {len(cores) or 'all'} core(s) ({','.join(map(str, cores))}); "
                  f"{len(rounds)} interleaved rounds; load average {os.getloadavg()[0]:.1f}")
            for i, what in enumerate(("wall", "CPU")):  # (CPU: user + system of the command, its threads included)
                for k, c in cmds.items():
                    ts = [r[k][i] for r in rounds]
                    print(f"{what:4s} {k:9s}: median {np.median(ts):7.2f} s (range {min(ts):.2f}-{max(ts):.2f})  "
                          f"{n / np.median(ts):10.0f} results/s  ({' '.join(c[:7])} ...)")
                ratios = [r["baseline"][i] / r["inexflow"][i] for r in rounds]
                med = (float(np.median([r["baseline"][i] for r in rounds]))
                       / float(np.median([r["inexflow"][i] for r in rounds])))
                print(f"{what} ratio baseline/inexflow: {med:.2f} (medians); per round {min(ratios):.2f}-"
                      f"{max(ratios):.2f}, median {np.median(ratios):.2f}")
        elif not args.no_in_process:
            maip = [float(s[(s.topic == "all") & (s.measure == "MAiP")].value.iloc[0]) for s in ours]
            t0 = time.perf_counter()
            base = [python_baseline(args.qrels, p) for p in paths]
            t_base = time.perf_counter() - t0
            assert np.allclose(base, maip, atol=1e-12), (base[:3], maip[:3])
            print(f"baseline              : {t_base:8.2f} s  {n / t_base:12.0f} results/s  (per-result Python loops)")
            print(f"ratio baseline/inexflow: {t_base / t_ours:.2f}")


if __name__ == "__main__":
    main()
