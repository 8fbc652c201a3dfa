"""Time per result of each INEX family on comparable runs: the passage families (focused,
Relevant in Context, Best in Context on FOL runs, FOL qrels) against the element families (XCG
on thorough and focused element runs, HiXEval on Relevant in Context, BEPD/EPRUM on Best in
Context, on the INEX 2006 assessments), all of one simulated campaign (``inexflow simulate``,
the demo structure: one topic set with FOL qrels and INEX 2006 assessments, a collection, an
element run per task and FOL runs of the same length, TOPICS topics x RESULTS results).

In this process (pin it with ``taskset``), per family: the session is built once (the qrels,
the element recall-bases and the collection index the family needs: printed apart, as
``setup``), then each run is read, resolved and scored in ``--repeat`` interleaved rounds (each round times every
family once); the medians are printed as milliseconds per run and microseconds per result, for reading (the run reader),
resolving (element extents through the collection: the documents the assessments do not hold
are parsed from it once, for the first round, then looked up as a call's later runs look them
up; the first round's time is printed apart, as ``resolve 1st``), the family's measures and the three, with each family's
per-result time over the focused family's on the FOL run (``x focused``) and, for the element runs, over the focused
family's on the focused element run (``x focused XML``: the same XML format read and the same element extents resolved,
so what differs is the family; the XML file is about 2.4x the FOL file of the same results) and over the focused family's on
the same element run (``x same run``: the focused family reads, resolves and scores the Relevant or Best in Context run
as a focused run, just before or just after it in turn; not the thorough run, whose results overlap, which the focused family refuses), so
that the runs' shapes (one result per article in Best in Context) weigh on both alike. The focused, Relevant in Context and
Best in Context families are timed twice: by the general path (``Session``, as above) and by
the passage path ``inexflow score`` takes for FOL runs (``front/passages.py``: reading and
scoring together).

    taskset -c 1 python benchmarks/family_speed.py --workdir /tmp/famspeed --repeat 5
"""

from __future__ import annotations

import argparse
import logging
import statistics
import subprocess
import sys
import time
from pathlib import Path

from passage_runs import in_context_files

from inexflow.front import passages
from inexflow.front.cli import build_parser, options_from_args
from inexflow.measures.session import Session, score_run
from inexflow.measures.toolorder import in_file_order
from inexflow.model.assessments import read_assessments
from inexflow.model.options import Options
from inexflow.model.runs import ParsedDocuments, read_run, resolve_extents

# (label, task, family, run kind: "fol", "ric", "bic" (FOL runs made in-context) or the element run's task)
FAMILIES = [("focused (passage)", "focused", "passage", "fol"),
            ("focused (passage), XML run", "focused", "passage", "focused"),
            ("Relevant in Context (ric)", "relevant-in-context", "ric", "ric"),
            ("Best in Context (bic)", "best-in-context", "bic", "bic"),
            ("XCG, thorough", "thorough", "xcg", "thorough"),
            ("XCG, focused", "focused", "xcg", "focused"),
            ("HiXEval", "relevant-in-context", "hixeval", "relevant-in-context"),
            ("BEPD/EPRUM", "best-in-context", "bepd", "best-in-context")]
PASSAGE_FAMILIES = ("passage", "ric", "bic")  # scored on the FOL qrels; the others on the INEX 2006 assessments


def campaign(work: Path, topics: int, results: int, docs: int) -> Path:
    """The simulated campaign in ``work`` (made once, seeded)."""
    if not (work / "campaign.json").exists():
        subprocess.run([sys.executable, "-m", "inexflow", "simulate", "--out", str(work),
                        "--docs", str(docs), "--topics", str(topics), "--groups", "1", "--runs-per-group", "1",
                        "--results", str(results), "--seed", "3"], check=True)
    return work


def run_file(work: Path, kind: str) -> Path:
    fol = sorted((work / "runs").glob("*-fol-*.txt"))[0]
    if kind == "fol":
        return fol
    if kind in ("ric", "bic"):
        return in_context_files(work / "incontext", kind, [fol])[0]
    return sorted((work / "runs").glob(f"*-{kind}-*.xml"))[0]


def median_ms(times) -> float:
    return 1000 * statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, required=True, help="the simulated campaign (made there once)")
    ap.add_argument("--topics", type=int, default=20)
    ap.add_argument("--results", type=int, default=1500)
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    logging.disable(logging.WARNING)
    work = campaign(args.workdir, args.topics, args.results, args.docs)
    qrels, collection = work / "assessments" / "qrels.fol", work / "collection"
    # every family's session first, then the rounds interleaved (each round times every family once), so
    # that the machine's drift over the call falls on all families alike
    timed = []
    for label, task, family, kind in FAMILIES:
        path = run_file(work, kind)
        t = time.process_time()
        assessed = read_assessments([qrels] if family in PASSAGE_FAMILIES else [work / "assessments" / "inex2006"])
        session = Session.build(assessed, task, [family], Options(), str(collection))
        setup = time.process_time() - t
        parsed = ParsedDocuments(session.collection, session.context.index)  # as the session keeps it over a call's runs
        scorer = None
        if kind in ("fol", "ric", "bic"):  # the passage path reads FOL runs
            cli = build_parser().parse_args(["score", "--task", task, "--assessments", str(qrels), str(path)])
            cli.format = "inex"
            scorer = passages.Scorer.of(cli, options_from_args(cli))
        timed.append({"label": label, "task": task, "family": family, "kind": kind, "path": path, "setup": setup,
                      "session": session, "parsed": parsed, "scorer": scorer, "read": [], "resolve": [], "score": [],
                      "fast": [], "same": [], "n": 0})
    # the focused family (the session of its XML row) on each element run it can score: all but the
    # thorough run, whose results overlap
    focused_xml = next(f for f in timed if f["kind"] == "focused" and f["family"] == "passage")

    def focused_on(path) -> float:
        t0 = time.process_time()
        run = resolve_extents(read_run(path, task="focused"), focused_xml["session"].collection,
                              parsed=focused_xml["parsed"])
        score_run(in_file_order(run), "passage", focused_xml["session"].context)
        return time.process_time() - t0

    same_run = [f for f in timed if f["family"] not in PASSAGE_FAMILIES and f["kind"] != "thorough"]
    for r in range(args.repeat):
        for f in timed:
            # the focused family on the same run just before the element family in odd rounds, just
            # after it in even ones (the second of two reads of one file is the faster)
            if f in same_run and r % 2:
                f["same"].append(focused_on(f["path"]))
            t0 = time.process_time()
            run = read_run(f["path"], task=f["task"])
            t1 = time.process_time()
            run = resolve_extents(run, f["session"].collection, parsed=f["parsed"])
            t2 = time.process_time()
            score_run(in_file_order(run) if f["family"] in PASSAGE_FAMILIES else run, f["family"],
                      f["session"].context)
            t3 = time.process_time()
            f["read"].append(t1 - t0)
            f["resolve"].append(t2 - t1)
            f["score"].append(t3 - t2)
            f["n"] = len(run.results)
            if f in same_run and not r % 2:
                f["same"].append(focused_on(f["path"]))
            if f["scorer"] is not None:
                t0 = time.process_time()
                assert f["scorer"].score_path(f["path"]) is not None
                f["fast"].append(time.process_time() - t0)
    rows, base, base_xml = [], None, None
    for f in timed:
        read, resolve, score, n = f["read"], f["resolve"], f["score"], f["n"]
        whole = median_ms([a + b + c for a, b, c in zip(read, resolve, score)])
        base = base or whole / n
        xml = f["kind"] not in ("fol", "ric", "bic")  # an XML element run: the first is the focused family's
        base_xml = base_xml or (whole / n if xml else None)
        same = whole / median_ms(f["same"]) if f["same"] else float("nan")
        rows.append((f["label"], n, f["setup"], median_ms(read), 1000 * resolve[0], median_ms(resolve),
                     median_ms(score), whole, whole / n, whole / n / base_xml if xml else float("nan"), same))
        if f["fast"]:
            fast = median_ms(f["fast"])
            rows.append(("  the same, passage path", n, 0.0, *[float("nan")] * 4, fast, fast / n, *[float("nan")] * 2))
    print(f"{work}: {args.topics} topics x {args.results} results per run; CPU time, medians of {args.repeat} interleaved rounds")
    print(f"{'family':28} {'results':>8} {'setup s':>8} {'read ms':>8} {'resolve 1st':>11} {'resolve ms':>10} "
          f"{'measures ms':>11} {'run ms':>8} {'us/result':>10} {'x focused':>10} {'x focused XML':>13} {'x same run':>10}")
    for label, n, setup, r, x1, x, s, w, per, per_xml, same in rows:
        print(f"{label:28} {n:8d} {setup:8.2f} {r:8.1f} {x1:11.1f} {x:10.1f} {s:11.1f} {w:8.1f} {1000 * per:10.2f} "
              f"{per / base:10.2f} {per_xml:13.2f} {same:10.2f}")


if __name__ == "__main__":
    main()
