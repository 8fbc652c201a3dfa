"""Where the time of one ``inexflow score`` call goes, per family, beside the limit (a bare
pyarrow CSV read of the same files); the peak memory of one call over many runs; how the time
grows with the number of runs; and whether ``-j 2`` prints the same bytes as ``-j 1``.

Families (``--families``):

- ``trec``: seeded TREC document runs (``trec_speed.py``'s, 68 topics x RESULTS documents) on
  TREC document qrels, scored by the document path (``front/documents.py``);
- ``passage``: seeded focused FOL runs (``focused_speed.py``'s, 120 topics x about RESULTS
  passages) on the shared INEX 2009-2010 FOL qrels, ``--task focused``, scored by the passage
  path (``front/passages.py``);
- ``ric`` / ``bic``: the same runs made in-context (``ric``: each article's passages moved
  next to its first one; ``bic``: each article's first passage only), ``--task
  relevant-in-context`` / ``best-in-context``;
- ``xcg``, ``xcg-focused``, ``hixeval``, ``bepd``: the element families on XML element runs of one
  simulated campaign (``inexflow simulate``, the demo structure: ``--element-topics`` topics x
  RESULTS elements a run, one run a group, a collection of ``--element-docs`` articles, the
  INEX 2006 assessments), each on its task's runs (thorough, focused, Relevant in Context, Best
  in Context), scored by the general path (``Session``: the element results resolved through
  the collection).

For each family:

1. Stages, in process, in a child pinned to one core (``os.sched_setaffinity``): start-up (the
   interpreter, then the imports a score call makes), the assessments (once), reading (the run
   readers), resolving (element extents through a collection: none for these runs, timed all
   the same), ranking (the evaluation order), measures and writing (formatting the output),
   each a mirror of what ``front/cli.py``'s ``_score_one`` calls, checked to print the same
   text; beside them a bare ``pyarrow.csv.read_csv`` of the same files in the same process
   (the limit). Medians of ``--repeat`` rounds; printed as ratios to that read.
2. Scaling: ``inexflow score -j 1`` on the first 10, 20, 40, 80 runs (``--sizes``), each a child
   process pinned to one core, output to a file: wall time, time per run, and the child's peak
   resident memory (``ru_maxrss`` from ``os.wait4``).
3. ``-j 2`` against ``-j 1`` on all the runs: wall and CPU time (cores used = CPU / wall), peak
   memory of the largest process, and whether the two outputs are byte-identical.
4. With ``--importtime``: the top entries of ``python -X importtime`` of a one-run call,
   by cumulative time.

No target is asserted: every figure is a ratio to something measured in the same run.

    python benchmarks/where_time_goes.py --workdir /tmp/wtg --runs 80
    python benchmarks/where_time_goes.py --families trec --runs 80 --importtime
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from passage_runs import TASKS, generate_runs, in_context_files

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FOL_QRELS = ROOT.parent / "shared" / "data" / "inex2009-2010" / "qrels-2009-2010.fol"
STAGES = ["start-up", "assessments", "reading", "resolving", "ranking", "measures", "writing"]
# element family -> the task whose element runs it scores
ELEMENT = {"xcg": "thorough", "xcg-focused": "focused", "hixeval": "relevant-in-context", "bepd": "best-in-context"}


# ---------------------------------------------------------------- the runs


def trec_files(work: Path, fol: Path, n_runs: int, n_results: int, seed: int) -> tuple[Path, list[Path]]:
    sys.path.insert(0, str(HERE))
    from trec_speed import document_qrels, generate_runs

    d = work / "trec"
    d.mkdir(parents=True, exist_ok=True)
    qrels = d / "qrels.txt"
    judged = document_qrels(fol, qrels)
    paths = [d / f"bench{r:03d}.run" for r in range(n_runs)]
    if not all(p.exists() for p in paths) or not (d / f"seed{seed}-{n_results}").exists():
        paths = generate_runs(judged, d, n_runs, n_results, seed)
        (d / f"seed{seed}-{n_results}").touch()
    return qrels, paths


def passage_files(work: Path, fol: Path, n_runs: int, n_results: int, seed: int) -> list[Path]:
    d = work / "passage"
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / f"bench{r:03d}.run" for r in range(n_runs)]
    if not all(p.exists() for p in paths) or not (d / f"seed{seed}-{n_results}").exists():
        from inexflow.model.assessments import read_assessments
        paths = generate_runs(read_assessments(fol), d, n_runs, n_results, seed)
        (d / f"seed{seed}-{n_results}").touch()
    return paths


def element_files(work: Path, n_runs: int, n_results: int, topics: int, docs: int, seed: int) -> Path:
    """A simulated campaign with ``n_runs`` element runs per task (made once, seeded)."""
    d = work / f"element-{n_runs}x{topics}x{n_results}-{docs}-{seed}"
    if not (d / "campaign.json").exists():
        subprocess.run([sys.executable, "-m", "inexflow", "--quiet", "simulate", "--out", str(d), "--docs", str(docs),
                        "--topics", str(topics), "--groups", str(n_runs), "--runs-per-group", "1",
                        "--results", str(n_results), "--seed", str(seed)], check=True, stdout=subprocess.DEVNULL)
    return d


def generate(args, families: list[str], work: Path) -> dict:
    inputs = {}
    if set(families) & set(ELEMENT):
        d = element_files(work, args.runs, args.results, args.element_topics, args.element_docs, args.seed)
        for f in families:
            if f in ELEMENT:
                runs = sorted((d / "runs").glob(f"*-{ELEMENT[f]}-*.xml"))
                inputs[f] = (str(d / "assessments" / "inex2006"), list(map(str, runs)), str(d / "collection"))
    if "trec" in families:
        q, ps = trec_files(work, args.qrels, args.runs, args.results, args.seed)
        inputs["trec"] = (str(q), list(map(str, ps)))
    if set(families) & set(TASKS):
        focused = passage_files(work, args.qrels, args.runs, args.results, args.seed)
        for f in families:
            if f in TASKS:
                ps = focused if f == "passage" else in_context_files(work, f, focused)
                inputs[f] = (str(args.qrels), list(map(str, ps)))
    return inputs


# ---------------------------------------------------------------- stages, in a child on one core


class Timer:
    def __init__(self):
        self.t: dict[str, float] = {}

    @contextmanager
    def __call__(self, stage: str):
        t0 = time.perf_counter()
        yield
        self.t[stage] = self.t.get(stage, 0.0) + time.perf_counter() - t0


def arrow_read(files: list[str]) -> float:
    """The limit: pyarrow's CSV reader on the same files, nothing else."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    opts = pacsv.ParseOptions(delimiter=" ", quote_char=False)
    lines = pacsv.ParseOptions(delimiter="\t", quote_char=False)  # FOL qrels: rows of varying width, read as lines
    files = [str(x) for f in files for x in (sorted(Path(f).rglob("*.xml")) if Path(f).is_dir() else [f])]
    t0 = time.perf_counter()
    for f in files:
        if f.endswith(".xml"):  # XML (element runs, assessments): as lines, one column
            pacsv.read_csv(f, read_options=pacsv.ReadOptions(column_names=["line"]),
                           parse_options=pacsv.ParseOptions(delimiter="\x01", quote_char=False))
            continue
        try:
            pacsv.read_csv(f, read_options=pacsv.ReadOptions(autogenerate_column_names=True), parse_options=opts)
        except pa.ArrowInvalid:
            pacsv.read_csv(f, read_options=pacsv.ReadOptions(autogenerate_column_names=True), parse_options=lines)
    return time.perf_counter() - t0


def score_args(argv: list[str]):
    from inexflow.front import cli

    args = cli.build_parser().parse_args(["--quiet", "score", *argv])
    cli._assessments_first(args)
    return args


def trec_stages(qrels: str, paths: list[str], T: Timer) -> list[str]:
    """``_score_one`` on the document path (``documents.plain_run`` + ``documents.score_text``),
    stage by stage."""
    from inexflow.front import documents

    args = score_args(["--family", "trec", qrels, *paths])
    assert documents.handles(args)
    args.format = "trec_eval"
    with T("assessments"):
        judged = documents.judged_documents(qrels)
    out = []
    for path in paths:
        with T("reading"):
            run = documents.plain_run(path)
        with T("ranking"):
            topic, doc, run_topics = documents.in_trec_order(run)
        with T("measures"):  # the judgement lookup, the rank x topic matrix, the measures
            rows = documents.score_rows(path, topic, doc, run_topics, judged, args)
        with T("writing"):
            out.append(documents.output_text(path, run, rows, args)[0])
    T.t["resolving"] = float("nan")  # document runs: nothing to resolve
    first = documents.score_text(paths[0], documents.plain_run(paths[0]), judged, args)[0]
    assert out[0] == first, "the staged trec path no longer prints what documents.score_text prints"
    return out


def passage_stages(qrels: str, paths: list[str], task: str, T: Timer) -> list[str]:
    """``_score_one`` on the passage path (``front/passages.py``: ``read_plain_run``,
    ``Scorer.score_rows``, ``Scorer.output_text``), stage by stage; the overlap, grouping and
    topic checks and the measures are one stage, ``measures``."""
    from inexflow.front import cli, passages
    from inexflow.io.run_arrow import read_plain_run

    args = score_args(["--task", task, qrels, *paths])
    assert passages.handles(args)
    with T("assessments"):
        scorer = passages.Scorer.of(args, cli.options_from_args(args))
    args.format = cli.output_format([scorer.family])
    out = []
    for path in paths:
        with T("reading"):
            run = read_plain_run(path, 8, numbers=True)
        with T("measures"):
            rows = scorer.score_rows(str(path), run)
        with T("writing"):
            out.append(scorer.output_text(path, run, rows)[0])
    T.t["resolving"] = T.t["ranking"] = float("nan")  # FOL runs in file order: nothing to resolve or rank
    assert out[0] == scorer.score_path(paths[0])[0], "the staged passage path no longer prints what score_path prints"
    return out


def element_stages(assessments: str, collection: str, paths: list[str], family: str, T: Timer) -> list[str]:
    """``_score_one`` on the general path (``scoring_session``, ``read_run``,
    ``Session.score_families``: the element results resolved through the collection, put in the
    family's evaluation order and scored; ``format_scores``), stage by stage."""
    from inexflow.front import cli
    from inexflow.measures.ordering import in_evaluation_order
    from inexflow.measures.output import format_scores, select_scores
    from inexflow.measures.session import score_run
    from inexflow.model.runs import ParsedDocuments, read_run, resolve_extents

    name = family.split("-")[0]
    args = score_args(["--task", ELEMENT[family], "--family", name, "--collection", collection, assessments, *paths])
    with T("assessments"):
        session, measures = cli.scoring_session(args)
    args.format = cli.output_format(session.families)
    parsed = ParsedDocuments(session.collection, session.context.index)
    out = []
    for path in paths:
        with T("reading"):
            run = read_run(path, task=args.task)
        with T("resolving"):
            run = resolve_extents(run, session.collection, parsed=parsed)
        with T("ranking"):
            ordered = in_evaluation_order(run, name)
        with T("measures"):
            scores = score_run(ordered, name, session.context)
        with T("writing"):
            scores = select_scores(scores, measures) if measures is not None else scores
            out.append(f'<eval run-id="{run.run_id}" file="{path}">\n{format_scores(scores, args.per_topic, align=True)}'
                       "</eval>\n")
    cli._SCORE_JOB = (args, session, measures, None)
    assert out[0] == cli._score_one(paths[0])[0], "the staged element path no longer prints what _score_one prints"
    return out


def child_stages(family: str, qrels: str, paths: list[str], repeat: int, collection: str | None = None) -> dict:
    """Run in the pinned child: the start-up, then ``repeat`` rounds of (the bare read, the
    staged call); medians."""
    t0 = time.perf_counter()
    import logging

    import inexflow.front.cli  # noqa: F401
    import inexflow.front.documents  # noqa: F401
    import inexflow.front.passages  # noqa: F401  (what cmd_score imports)
    import inexflow.measures.output  # noqa: F401
    imports = time.perf_counter() - t0
    logging.getLogger("inexflow").setLevel(logging.ERROR)
    for f in [qrels, *paths]:  # in the page cache for every round alike
        for x in (Path(f).rglob("*") if Path(f).is_dir() else [Path(f)]):
            if x.is_file():
                x.read_bytes()
    rounds, reads = [], []
    for _ in range(repeat):
        reads.append(arrow_read([qrels, *paths]))
        T = Timer()
        if family == "trec":
            trec_stages(qrels, paths, T)
        elif family in ELEMENT:
            element_stages(qrels, collection, paths, family, T)
        else:
            passage_stages(qrels, paths, TASKS[family], T)
        rounds.append(T.t)
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    return {"imports": imports, "read": statistics.median(reads), **med}


# ---------------------------------------------------------------- child processes


def on_core0():
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def run_child(cmd: list[str], out_path: Path | None = None, pin: bool = True) -> dict:
    """Wall time, CPU time and peak resident memory (the largest of the process and its
    children) of ``cmd``, its standard output to ``out_path``."""
    out = open(out_path, "wb") if out_path else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, preexec_fn=on_core0 if pin else None)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if out_path:
        out.close()
    if p.returncode:
        sys.exit(f"{' '.join(cmd[:6])}... failed ({p.returncode}): {err.decode()[-800:]}")
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "maxrss_mb": ru.ru_maxrss / 1024}


def score_cmd(family: str, qrels: Path, paths: list[Path], jobs: int, collection: Path | None = None) -> list[str]:
    if family in ELEMENT:
        fam = ["--task", ELEMENT[family], "--family", family.split("-")[0], "--collection", str(collection)]
    else:
        fam = ["--family", "trec"] if family == "trec" else ["--task", TASKS[family]]
    return [sys.executable, "-m", "inexflow", "--quiet", "score", *fam, "--jobs", str(jobs), str(qrels), *map(str, paths)]


def importtime(cmd: list[str], top: int) -> list[tuple[float, float, str]]:
    """(cumulative s, self s, module with its nesting) of the ``top`` slowest imports."""
    err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m[2]) / 1e6, int(m[1]) / 1e6, "  " * (len(m[3]) // 2) + m[4]))
    return sorted(rows, reverse=True)[:top]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", default="trec,passage",
                    help="comma-separated: trec, passage, ric, bic, xcg, xcg-focused, hixeval, bepd")
    ap.add_argument("--runs", type=int, default=80, help="runs generated; the memory and -j figures use all of them")
    ap.add_argument("--stage-runs", type=int, default=20, help="runs of the in-process stage table (default %(default)s)")
    ap.add_argument("--sizes", default="10,20,40,80", help="numbers of runs of the scaling table")
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="rounds of the stage table and of the scaling; medians")
    ap.add_argument("--qrels", type=Path, default=FOL_QRELS, help="the FOL qrels the runs are drawn from")
    ap.add_argument("--element-topics", type=int, default=20, help="topics of the element families' campaign")
    ap.add_argument("--element-docs", type=int, default=3000, help="articles of the element families' collection")
    ap.add_argument("--workdir", type=Path, help="keep the generated runs here and reuse them")
    ap.add_argument("--importtime", action="store_true", help="also print the slowest imports of a one-run call")
    ap.add_argument("--json", type=Path, help="also write every figure here")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)  # FAMILY REPEAT QRELS RUN...: the pinned child
    ap.add_argument("--generate", type=Path, help=argparse.SUPPRESS)  # WORKDIR: write the runs, print their paths
    args = ap.parse_args()
    families = [f for f in args.families.split(",") if f]
    if args.child:
        family, repeat, qrels, *paths = args.child
        collection = paths.pop(0) if family in ELEMENT else None
        on_core0()
        print(json.dumps(child_stages(family, qrels, paths, int(repeat), collection)))
        return
    if args.generate:
        print(json.dumps(generate(args, families, args.generate)))
        return

    sizes = [int(x) for x in args.sizes.split(",") if int(x) <= args.runs]
    report: dict = {"cores": len(os.sched_getaffinity(0)), "families": {}}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        # generated in a child: this process stays small, since a child's ru_maxrss starts from the
        # resident size of the process that forked it (the high-water mark survives fork and exec)
        gen = subprocess.run([sys.executable, str(Path(__file__).resolve()), *sys.argv[1:], "--generate", str(work)],
                             capture_output=True, text=True)
        if gen.returncode:
            sys.exit(f"generating the runs failed: {gen.stderr[-2000:]}")
        inputs = {f: (Path(q), [Path(p) for p in ps], *map(Path, rest))
                  for f, (q, ps, *rest) in json.loads(gen.stdout.splitlines()[-1]).items()}
        bare = statistics.median(run_child([sys.executable, "-c", "pass"])["wall"] for _ in range(5))
        floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report["floor_mb"] = floor
        print(f"{report['cores']} core(s) available; stage and scaling figures pinned to one; "
              f"a bare interpreter starts in {bare:.3f} s; load average {os.getloadavg()[0]:.1f}; "
              f"peak RSS figures are exact above {floor:.0f} MB (this process's size)")
        for family in families:
            qrels, paths, *rest = inputs[family]
            collection = rest[0] if rest else None
            lines = sum(p.read_bytes().count(b"<result>") if family in ELEMENT else p.read_bytes().count(b"\n")
                        for p in paths)
            print(f"\n== {family}: {len(paths)} runs, {lines} results ({lines // len(paths)} a run) ==")
            fig = report["families"][family] = {"runs": len(paths), "results": lines}

            # 1. the stages
            sp = paths[: args.stage_runs]
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child", family, str(args.repeat), str(qrels),
                   *([str(collection)] if collection else []), *map(str, sp)]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode:
                sys.exit(f"stage child failed: {res.stderr[-2000:]}")
            st = json.loads(res.stdout.splitlines()[-1])
            st["start-up"] = bare + st.pop("imports")
            read = st.pop("read")
            total = sum(v for k, v in st.items() if k in STAGES and v == v)
            fig["stages"], fig["arrow_read"], fig["stage_runs"] = st, read, len(sp)
            print(f"stages of one call over {len(sp)} runs, in process, one core (medians of {args.repeat}); "
                  f"the limit, a bare pyarrow read of the same {len(sp) + 1} files: {read:.3f} s")
            print(f"  {'stage':12s} {'time':>8s} {'per run':>9s} {'x pyarrow read':>15s} {'share':>6s}")
            for k in STAGES:
                v = st.get(k, float("nan"))
                if v != v:
                    print(f"  {k:12s} {'n/a':>8s}")
                    continue
                per = f"{v / len(sp) * 1000:7.1f}ms" if k not in ("start-up", "assessments") else f"{'once':>9s}"
                print(f"  {k:12s} {v:8.3f} {per} {v / read:15.2f} {v / total:6.1%}")
            print(f"  {'total':12s} {total:8.3f} {'':9s} {total / read:15.2f}")

            # 2. scaling and memory, -j 1, one core
            out = work / f"{family}.out"
            scale = {}
            for n in sizes:
                rs = [run_child(score_cmd(family, qrels, paths[:n], 1, collection), out) for _ in range(args.repeat)]
                scale[n] = {"wall": statistics.median(r["wall"] for r in rs), "maxrss_mb": max(r["maxrss_mb"] for r in rs)}
            fig["scaling"] = scale
            n0 = sizes[0]
            print(f"inexflow score -j 1, one core (medians of {args.repeat}), output to a file:")
            print(f"  {'runs':>5s} {'wall':>8s} {'per run':>9s} {'x per run at ' + str(n0):>14s} {'peak RSS':>9s}")
            for n, s in scale.items():
                print(f"  {n:5d} {s['wall']:8.2f} {s['wall'] / n * 1000:7.1f}ms "
                      f"{(s['wall'] / n) / (scale[n0]['wall'] / n0):14.2f} {s['maxrss_mb']:7.0f}MB")
            if len(sizes) > 1:
                a, b = sizes[0], sizes[-1]
                slope_t = (scale[b]["wall"] - scale[a]["wall"]) / (b - a)
                slope_m = (scale[b]["maxrss_mb"] - scale[a]["maxrss_mb"]) / (b - a)
                fig["marginal_s_per_run"], fig["mb_per_run"] = slope_t, slope_m
                print(f"  marginal: {slope_t * 1000:.1f} ms and {slope_m:+.2f} MB of peak memory per added run "
                      f"({a} -> {b} runs)")

            # 3. -j 2 against -j 1, all runs, not pinned
            o1, o2 = work / f"{family}.j1.out", work / f"{family}.j2.out"
            j1 = run_child(score_cmd(family, qrels, paths, 1, collection), o1, pin=False)
            j2 = run_child(score_cmd(family, qrels, paths, 2, collection), o2, pin=False)
            same = sha(o1) == sha(o2)
            fig["jobs"] = {"j1": j1, "j2": j2, "identical": same}
            print(f"-j 1 against -j 2 over {len(paths)} runs (not pinned):")
            for name, r in (("-j 1", j1), ("-j 2", j2)):
                print(f"  {name}: wall {r['wall']:6.2f} s, CPU {r['cpu']:6.2f} s ({r['cpu'] / r['wall']:.2f} cores busy), "
                      f"peak RSS of the largest process {r['maxrss_mb']:.0f} MB")
            print(f"  -j 2 / -j 1 wall: {j2['wall'] / j1['wall']:.2f}; outputs byte-identical: {'yes' if same else 'NO'}"
                  f" ({o1.stat().st_size} bytes)")

            if args.importtime:
                rows = importtime(score_cmd(family, qrels, paths[:1], 1, collection), 15)
                fig["importtime"] = rows
                print("python -X importtime of a one-run call, slowest by cumulative time:")
                for cum, own, mod in rows:
                    print(f"  {cum:7.3f} s cumulative {own:7.3f} s self  {mod}")
        print(f"\nload average at the end: {os.getloadavg()[0]:.1f} (other processes on these cores slow every figure)")
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
