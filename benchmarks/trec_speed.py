"""Speed of document scoring (``inexflow score --family trec``) against trec_eval, pytrec_eval
and ranx, on the same files, on the same cores.

Generates RUNS seeded document runs of RESULTS documents for each INEX 2009 topic of the
shared 2009-2010 qrels (68 topics: 102,000 lines a run at 1500), reduced to TREC document
qrels (a document with highlighted text is relevant, grade 1; the other judged documents are
judged non-relevant, grade 0). A run mixes judged relevant, judged non-relevant and unjudged
articles; its scores are rounded to three decimals so that trec_eval's tie order (by document
id) decides many places. Then times, as medians of interleaved rounds, every command pinned to
the first CORES cores of this process's affinity (``taskset``):

- trec_eval: one call per run, as its users call it (its default table);
- inexflow: ``inexflow score --family trec QRELS RUN...``, one call for all runs;
- pytrec_eval (where installed): one Python process reading the runs and evaluating trec_eval's
  default measures;
- ranx (where installed): one Python process, the same measures where ranx has them
  (its first call compiles with numba: the median drops that round);
- the limit: one Python process that only reads the same files with pyarrow's CSV reader.

Prints each tool's wall time and CPU time (user + system of the commands, from the kernel's
accounting of waited-for children: on a core other jobs share, the wall time includes their
share, the CPU time much less of it), each as the median and range over the rounds, results per
second, and the ratios to inexflow's (of the medians, and the median and range of the per-round
ratios); and checks that inexflow's per-topic values of the measures both print equal
trec_eval's to its four decimals.

    python benchmarks/trec_speed.py --trec-eval-src ~/src/trec_eval          # builds it (make)
    python benchmarks/trec_speed.py --trec-eval /usr/local/bin/trec_eval --runs 30 --cores 1
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QRELS = ROOT.parent / "shared" / "data" / "inex2009-2010" / "qrels-2009-2010.fol"

# trec_eval's default table, as pytrec_eval names the measures it computes
PYTREC_MEASURES = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                   "iprec_at_recall", "P"}
RANX_MEASURES = ["map", "r-precision", "bpref", "mrr", "precision@5", "precision@10", "precision@15",
                 "precision@20", "precision@30", "precision@100", "precision@200", "precision@500",
                 "precision@1000", "recall@1000"]


def document_qrels(fol: Path, out: Path, year: str = "2009") -> dict[str, dict[str, int]]:
    """The FOL qrels of ``year``'s topics reduced to TREC document qrels, written to ``out``."""
    qrels: dict[str, dict[str, int]] = {}
    for line in fol.read_text().splitlines():
        c = line.split()
        if c and c[0].startswith(year):
            qrels.setdefault(c[0], {})[c[2]] = int(int(c[3]) > 0)
    out.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    return qrels


def generate_runs(qrels: dict, outdir: Path, n_runs: int, n_results: int, seed: int) -> list[Path]:
    """Seeded document runs: per topic about 5 % of the judged relevant and non-relevant
    documents each, the rest unjudged article numbers; scores with three decimals (ties)."""
    rng = np.random.default_rng(seed)
    paths = []
    for r in range(n_runs):
        parts = []
        for t, docs in qrels.items():
            judged = np.array(list(docs))
            pick = rng.choice(judged, min(len(judged), n_results // 10), replace=False)
            unjudged = rng.choice(2_666_190, 2 * n_results, replace=False).astype(str)
            unjudged = unjudged[~np.isin(unjudged, judged)][: n_results - len(pick)]
            ids = np.concatenate([pick, unjudged])
            rng.shuffle(ids)
            score = np.round(np.sort(rng.gamma(2.0, 2.0, len(ids)))[::-1], 3)
            rank = np.arange(1, len(ids) + 1)
            parts.append("".join(f"{t} Q0 {d} {k} {s:.3f} bench{r}\n" for d, k, s in zip(ids, rank, score)))
        path = outdir / f"bench{r:03d}.run"
        path.write_text("".join(parts))
        paths.append(path)
    return paths


def find_trec_eval(args) -> str | None:
    if args.trec_eval:
        return str(args.trec_eval)
    if args.trec_eval_src:
        subprocess.run(["make", "-s", "-C", str(args.trec_eval_src)], check=True, stdout=subprocess.DEVNULL)
        return str(Path(args.trec_eval_src) / "trec_eval")
    return shutil.which("trec_eval")


PYTREC = """
import sys, pytrec_eval
qrels = {}
for line in open(sys.argv[1]):
    t, _, d, g = line.split()
    qrels.setdefault(t, {})[d] = int(g)
ev = pytrec_eval.RelevanceEvaluator(qrels, %r)
for path in sys.argv[2:]:
    run = {}
    for line in open(path):
        t, _, d, _, s, _ = line.split()
        run.setdefault(t, {})[d] = float(s)
    ev.evaluate(run)
"""

# the limit: a bare pyarrow read of the same files, in one process
ARROW_READ = """
import sys, pyarrow as pa, pyarrow.csv as pacsv
opts = pacsv.ParseOptions(delimiter=" ", quote_char=False)
for path in sys.argv[1:]:
    pacsv.read_csv(path, read_options=pacsv.ReadOptions(autogenerate_column_names=True), parse_options=opts)
"""

RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
for path in sys.argv[2:]:
    evaluate(qrels, Run.from_file(path, kind="trec"), %r)
"""


def importable(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def pinned(cmd: list[str], cores: list[int]) -> list[str]:
    return ["taskset", "-c", ",".join(map(str, cores)), *cmd] if shutil.which("taskset") else cmd


def timed(cmds: list[list[str]]) -> tuple[float, float]:
    """Wall time of the commands run one after the other, and their CPU time (user + system,
    of the waited-for children): on a core shared with other jobs the wall time includes
    their share, the CPU time much less of it."""
    t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    for cmd in cmds:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def trec_eval_values(te: str, qrels: Path, path: Path, measures: list[str]) -> dict[tuple[str, str], str]:
    """{(measure, topic): value} of ``trec_eval -q`` on one run (``measures``: its ``-m`` options)."""
    out = subprocess.run([te, "-q", *measures, str(qrels), str(path)], capture_output=True, text=True,
                         check=True).stdout
    return {(c[0], c[1]): c[2] for c in map(str.split, out.splitlines()) if len(c) == 3 and c[0] != "runid"}


def check(te: str, qrels: Path, paths: list[Path], measures: list[str]) -> int:
    """The per-topic values of the measures both tools print, compared at trec_eval's four
    decimals; the number compared."""
    got = subprocess.run([sys.executable, "-m", "inexflow", "score", "--family", "trec", "-q", *measures,
                          "--format", "tsv", "--assessments", str(qrels), *map(str, paths)], capture_output=True,
                         text=True)
    if got.returncode:
        sys.exit(f"inexflow score failed: {got.stderr.strip()}")
    ours: dict[str, dict] = {}
    for line in got.stdout.splitlines()[1:]:
        run, measure, topic, value = line.split("\t")
        ours.setdefault(run, {})[(measure, topic)] = value
    compared = 0
    for path, values in zip(paths, ours.values()):
        want = trec_eval_values(te, qrels, path, measures)
        common = sorted(k for k in want if k in values)
        bad = [k for k in common if abs(float(want[k]) - float(values[k])) > 5e-5 + 1e-9]
        if bad:
            sys.exit(f"{path}: inexflow and trec_eval differ on {len(bad)} of {len(common)} values, e.g. {bad[0]}: "
                     f"{values[bad[0]]} against {want[bad[0]]}")
        compared += len(common)
    return compared


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--qrels", type=Path, default=QRELS, help="FOL qrels (default: the shared INEX 2009-2010 ones)")
    ap.add_argument("--trec-eval", type=Path, help="a trec_eval executable (default: trec_eval on PATH)")
    ap.add_argument("--trec-eval-src", type=Path, help="a trec_eval source directory: built with make")
    ap.add_argument("--cores", type=int, default=1, help="cores every command is pinned to (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians (default %(default)s)")
    ap.add_argument("--workdir", type=Path, help="keep the generated files here")
    ap.add_argument("--all-trec", action="store_true",
                    help="inexflow and trec_eval both with -m all_trec (pytrec_eval and ranx keep their measures)")
    args = ap.parse_args()

    cores = sorted(os.sched_getaffinity(0))[: args.cores] if hasattr(os, "sched_getaffinity") else []
    te = find_trec_eval(args)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        qrels_path = work / "qrels.txt"
        paths = generate_runs(document_qrels(args.qrels, qrels_path), work, args.runs, args.results, args.seed)
        n = sum(p.read_bytes().count(b"\n") for p in paths)
        files = [str(qrels_path), *map(str, paths)]
        print(f"{args.runs} runs, {n} results, pinned to {len(cores) or 'all'} core(s)")
        measures = ["-m", "all_trec"] if args.all_trec else []
        if te:
            print(f"checked: {check(te, qrels_path, paths, measures)} per-topic values equal trec_eval's")
        tools = {"inexflow": [pinned([sys.executable, "-m", "inexflow", "score", "--family", "trec", *measures,
                                      "--jobs", str(max(len(cores), 1)), "--assessments", *files], cores)]}
        if te:
            tools["trec_eval"] = [pinned([te, *measures, str(qrels_path), str(p)], cores) for p in paths]
        else:
            print("trec_eval: not found (give --trec-eval or --trec-eval-src)")
        tools["pyarrow read"] = [pinned([sys.executable, "-c", ARROW_READ, *files], cores)]
        for name, module, script in (("pytrec_eval", "pytrec_eval", PYTREC % (PYTREC_MEASURES,)),
                                     ("ranx", "ranx", RANX % (RANX_MEASURES,))):
            if importable(module):
                tools[name] = [pinned([sys.executable, "-c", script, *files], cores)]
            else:
                print(f"{name}: not installed, skipped")
        rounds = [{k: timed(c) for k, c in tools.items()} for _ in range(max(args.repeat, 1))]
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
        for i, what in enumerate(("wall", "CPU")):
            med = {k: float(np.median([r[k][i] for r in rounds])) for k in tools}
            print(f"{what} time, median (range) of {len(rounds)} interleaved rounds; ratio to inexflow's: of the "
                  "medians, and per round median (range)")
            for k, t in med.items():
                each = [r[k][i] for r in rounds]
                ratio = [r[k][i] / r["inexflow"][i] for r in rounds]
                print(f"  {k:12s}: {t:6.2f} s ({min(each):.2f}-{max(each):.2f})  {n / t:10.0f} results/s   "
                      f"x{t / med['inexflow']:.2f}, per round x{float(np.median(ratio)):.2f} "
                      f"({min(ratio):.2f}-{max(ratio):.2f})")


if __name__ == "__main__":
    main()
