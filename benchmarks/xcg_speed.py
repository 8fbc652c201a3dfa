"""Speed of XCG scoring on a simulated INEX-2005-scale campaign.

Simulates TOPICS topics and GROUPS groups submitting one run per task (thorough,
focused, relevant-in-context, best-in-context, fetch-browse, FOL: 55 runs for 11 groups)
of RESULTS results per topic, with INEX 2005 assessments, then times (one core):

- parsing every run;
- Thorough XCG (overlap off) and Focused XCG (overlap on, alpha 1) of the element runs
  under three quantisations (gen, strict, genLifted), and FetchBrowse;

and prints results per second per core for each, against the targets of issue 3
(1 million/s thorough, 200 thousand/s focused). The baseline in the same run is a
straightforward per-result Python loop computing the thorough gains and MAep; the ratio
baseline_time / inexflow_time is printed.

    python benchmarks/xcg_speed.py --topics 30 --groups 11 --results 1500
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from inexflow.measures.context import ScoringContext
from inexflow.measures.session import score_run
from inexflow.model.assessments import read_assessments
from inexflow.model.recallbase import build_recallbases
from inexflow.model.runs import read_run
from inexflow.simulate.simconfig import SimulationConfig
from inexflow.simulate.simulate import simulate


def naive_thorough_maep(results, rb) -> float:
    gains = {(t, d, x): g for t, d, x, g in zip(rb["topic"], rb["doc"], rb["xpath"], rb["gain"]) if g > 0}
    ideal = {}
    for (t, _, _), g in gains.items():
        ideal.setdefault(t, []).append(g)
    out = []
    by_topic = {}
    for t, d, x in zip(results["topic"], results["doc"], results["xpath"]):
        by_topic.setdefault(t, []).append(gains.get((t, d, x), 0.0))
    for t, xg in by_topic.items():
        xi = sorted(ideal.get(t, []), reverse=True)
        if not xi:
            continue
        xci, acc = [], 0.0
        for g in xi:
            acc += g
            xci.append(acc)
        total, cg = 0.0, 0.0
        for i, g in enumerate(xg, 1):
            cg += g
            if g > 0:
                # ideal rank reaching cg by linear interpolation
                prev = 0.0
                for j, c in enumerate(xci, 1):
                    if c >= cg:
                        total += ((j - 1) + (cg - prev) / (c - prev)) / i
                        break
                    prev = c
                else:
                    total += len(xci) / i
        out.append(total / len(xi))
    return float(np.mean(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topics", type=int, default=30)
    ap.add_argument("--groups", type=int, default=11)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--docs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        simulate(tmp, SimulationConfig(seed=args.seed, n_docs=args.docs, n_topics=args.topics, n_groups=args.groups,
                                       results_per_topic=args.results, pool_target=60))
        print(f"simulated in {time.perf_counter() - t0:.1f} s")
        a = read_assessments(sorted((Path(tmp) / "assessments" / "inex2005").iterdir()))
        t0 = time.perf_counter()
        rbs = build_recallbases(a, None, ["gen", "strict", "genLifted"])
        print(f"recall-bases (3 quantisations): {time.perf_counter() - t0:.2f} s")
        files = sorted((Path(tmp) / "runs").iterdir())
        t0 = time.perf_counter()
        runs = [read_run(f, task="focused" if f.suffix == ".txt" else None) for f in files]
        t_parse = time.perf_counter() - t0
        n_all = sum(len(r.results) for r in runs)
        print(f"parse: {len(runs)} runs, {n_all} results, {n_all / t_parse:,.0f} results/s")
        report = {}
        for label, task, opts, fam in (("thorough", "thorough", {"overlap": "off"}, "xcg"),
                                       ("focused (overlap on)", "focused", {"overlap": "on"}, "xcg"),
                                       ("fetch-browse", "fetch-browse", {}, "fetchbrowse")):
            sel = [r for r in runs if r.scoring_type == task and r.format == "inex-xml"]  # element runs
            ctx = ScoringContext(a, rbs, opts)
            t0 = time.perf_counter()
            for r in sel:
                score_run(r, fam, ctx)
            dt = time.perf_counter() - t0
            n = sum(len(r.results) for r in sel) * len(rbs)
            report[label] = (n, dt)
            print(f"{label:22s}: {len(sel)} runs x 3 quants, {n / dt:12,.0f} results/s/core")
        sel = [r for r in runs if r.scoring_type == "thorough"]
        t0 = time.perf_counter()
        for r in sel:
            for rb in rbs.values():
                naive_thorough_maep(r.results, rb)
        t_naive = time.perf_counter() - t0
        n, dt = report["thorough"]
        print(f"baseline (per-result Python loops, thorough gains + MAep): {n / t_naive:12,.0f} results/s")
        print(f"ratio baseline/inexflow (thorough): {t_naive / dt:.2f}")
        print("targets: thorough >= 1,000,000 results/s/core; focused >= 200,000")


if __name__ == "__main__":
    main()
