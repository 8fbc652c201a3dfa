"""The ``inexflow`` command line: ``inexflow score`` (one or more runs, no Snakemake) and
``inexflow simulate`` (a seeded demo or benchmark campaign).

Errors in the input print one line ``inexflow: error: FILE:WHERE: PROBLEM`` and exit 2.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import sys

from inexflow.errors import InputError, UsageError


def _cutoffs(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"cut-offs must be comma-separated integers, not {text!r}") from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("cut-offs must be positive integers")
    return ks


def _task(text: str) -> str:
    from inexflow.formats.runs import TASKS, normalise_task

    if normalise_task(text) is None:
        raise argparse.ArgumentTypeError(f"unknown task {text!r}: one of {', '.join(TASKS)} or a submission label "
                                         "such as CO.Focussed, SSCAS, AllInContext")
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="inexflow", description="Evaluate INEX-style XML and passage retrieval runs.")
    p.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("score", help="score runs and print measure<TAB>topic<TAB>value lines",
                       description="Score one or more runs against assessments, like the official INEX tools.")
    s.add_argument("--task", required=True, type=_task, metavar="TASK",
                   help="scoring type (thorough, focused, relevant-in-context, best-in-context, fetch-browse) or any "
                        "year's submission label (CO.Focussed, SSCAS, AllInContext, BestInContext, ...)")
    s.add_argument("--assessments", required=True, action="append", metavar="FILE",
                   help="assessment file: FOL qrels, INEX 2005/2006 or 2002-2004 XML (repeat for several files)")
    s.add_argument("--assessments-format", default="auto", choices=["auto", "fol", "inex2005", "inex2006", "inex2002"])
    s.add_argument("--collection", metavar="DIR", help="collection directory (needed for element runs on FOL qrels)")
    s.add_argument("--family", type=lambda t: [x for x in t.split(",") if x],
                   help="measure families to use instead of the task's default (xcg, passage, passage_thorough, ric, "
                        "bic), e.g. --family xcg for XCG on FOL qrels")
    s.add_argument("--quant", default="gen",
                   help="quantisation(s) for element measures, comma-separated (default gen), e.g. strict,liberal")
    s.add_argument("--cutoff-table", action="store_true",
                   help="with --family cutoff: print the Hiemstra & Mihajlovic table (cut-off x quantisation, overlap)")
    s.add_argument("--bepd-a", default="0.01,0.1,1,10,100", help="BEPD/EPRUM values of A (default 0.01,0.1,1,10,100)")
    s.add_argument("--mean-doc-length", type=float, help="BEPD/EPRUM L (default: mean length of the assessed documents)")
    s.add_argument("--overlap", choices=["on", "off"],
                   help="XCG overlap: on = rv/rv_norm against the ideal recall-base (default for focused on element "
                        "assessments), off = quant against the full recall-base (thorough)")
    s.add_argument("--alpha", type=float, default=1.0, help="overlap alpha for focused XCG (default 1)")
    s.add_argument("--curves", action="store_true",
                   help="print the ep/gr curve ep[0.01..1.00] and the nxCG curve nxCG@[k] per topic too")
    s.add_argument("--max-list-length", type=int, default=1500,
                   help="list length whose 1..100%% give the nxCG curve ranks (default 1500)")
    s.add_argument("--cutoffs", type=_cutoffs, default=[5, 10, 25, 50], help="nxCG cut-offs, e.g. 5,10,25,50")
    s.add_argument("--beta", type=float, default=0.25,
                   help="Relevant in Context F-beta (default 0.25 as the official tool; 1 for HiXEval 2006)")
    s.add_argument("-n", "--bep-distance", dest="bep_distance", type=float, default=500,
                   help="Best in Context: distance n at which a best entry point scores 0 (default 500)")
    s.add_argument("--regroup", action="store_true",
                   help="in-context runs: move interleaved results next to their article's first result (and say so)")
    s.add_argument("--ideal-tie", choices=["ancestor", "descendant"], default="ancestor")
    s.add_argument("-q", dest="per_topic", action="store_true", help="print per-topic values too")
    s.add_argument("-c", dest="all_qrels_topics", action="store_true",
                   help="average over every topic in the assessments (missing topics score 0)")
    s.add_argument("-e", dest="empty_topics_zero", action="store_true",
                   help="topics assessed but absent from the run score 0 instead of being left out")
    s.add_argument("-j", "--jobs", type=int, default=0,
                   help="runs scored in parallel processes (default: one per available core; output order and "
                        "values do not depend on it)")
    s.add_argument("runs", nargs="+", metavar="RUN")

    m = sub.add_parser("simulate", help="write a seeded synthetic campaign (collection, topics, runs, assessments)")
    m.add_argument("--out", required=True, metavar="DIR")
    m.add_argument("--seed", type=int, default=42)
    m.add_argument("--docs", type=int, default=150)
    m.add_argument("--topics", type=int, default=10)
    m.add_argument("--groups", type=int, default=4)
    m.add_argument("--runs-per-group", type=int, default=1, help="runs per group and task")
    m.add_argument("--results", type=int, default=100, help="results per topic")
    m.add_argument("--pool-target", type=int, default=40, help="pooled documents per topic")
    m.add_argument("--max-runs", type=int, help="keep a seeded selection of this many runs")
    return p


def cmd_score(args) -> int:
    from inexflow.formats.assessments import read_assessments
    from inexflow.measures import ScoringContext
    from inexflow.scoring import build_recallbases, families_for

    a = read_assessments(args.assessments, args.assessments_format)
    from inexflow.formats.runs import normalise_task

    scoring = normalise_task(args.task)
    fams = families_for(scoring, a, args.family)
    quants = [q for q in args.quant.split(",") if q]
    element_fams = {"xcg", "cutoff", "precall", "fetchbrowse"}
    overlap = args.overlap or ("on" if scoring == "focused" and a.scale != "fol" else "off")
    index = None
    if args.collection:
        from inexflow.scoring import index_assessed
        index = index_assessed(args.collection, a)
    recallbases = build_recallbases(a, index, quants, args.ideal_tie) if element_fams & set(fams) else {}
    options = {"cutoffs": args.cutoffs, "empty_topics_zero": args.empty_topics_zero,
               "all_qrels_topics": args.all_qrels_topics, "alpha": args.alpha, "beta": args.beta,
               "overlap": overlap, "max_list_length": args.max_list_length, "per_topic_curves": args.curves,
               "bep_distance": args.bep_distance, "regroup": args.regroup, "index": index,
               "bepd_a": [float(x) for x in args.bepd_a.split(",") if x], "mean_doc_length": args.mean_doc_length}
    global _SCORE_JOB
    _SCORE_JOB = (args, ScoringContext(a, recallbases, options), fams, index)
    jobs = args.jobs or available_cores()
    if jobs > 1 and len(args.runs) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(min(jobs, len(args.runs))) as pool:
            _write_in_order(pool.imap(_score_one, args.runs))
    else:
        _write_in_order(map(_score_one, args.runs))
    return 0


def available_cores() -> int:
    """Cores this process may use (the affinity mask where the platform has one, e.g. not macOS)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_SCORE_JOB = None  # (args, context, families, collection index) of the running ``inexflow score``


def _score_one(path) -> tuple[str, list, InputError | None]:
    """One run's output block, the warnings it raised and its input error, if any (run in a
    worker process when scoring in parallel, so that warnings keep the order of the runs)."""
    from inexflow.formats.runs import read_run
    from inexflow.measures import score_run
    from inexflow.scoring import format_scores, resolve_extents

    args, ctx, fams, index = _SCORE_JOB
    log = logging.getLogger("inexflow")
    caught = _Collect()
    log.addHandler(caught)
    log.propagate = False
    out = []
    try:
        run = read_run(path, task=args.task)
        run = resolve_extents(run, args.collection, index)
        out.append(f'<eval run-id="{run.run_id}" file="{path}">\n')
        for fam in fams:
            scores = score_run(run, fam, ctx)
            if args.cutoff_table and fam == "cutoff":
                from inexflow.measures.cutoff import cutoff_table
                out.append(cutoff_table(scores).to_csv(sep="\t", index=False, float_format="%.4f"))
            else:
                out.append(format_scores(scores, args.per_topic))
        out.append("</eval>\n")
        return "".join(out), caught.records, None
    except InputError as e:
        return "", caught.records, e
    finally:
        log.removeHandler(caught)
        log.propagate = True


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        record.msg, record.args, record.exc_info = record.getMessage(), None, None  # picklable
        self.records.append(record)


def _write_in_order(results):
    log = logging.getLogger("inexflow")
    for text, records, error in results:
        for r in records:
            log.handle(r)
        if error is not None:
            raise error
        sys.stdout.write(text)


def cmd_simulate(args) -> int:
    from inexflow.simulate import SimulationConfig, simulate

    cfg = SimulationConfig(seed=args.seed, n_docs=args.docs, n_topics=args.topics, n_groups=args.groups,
                           runs_per_group=args.runs_per_group, results_per_topic=args.results,
                           pool_target=args.pool_target, max_runs=args.max_runs)
    summary = simulate(args.out, cfg)
    print(f"wrote {summary['runs']} runs, {summary['topics']} topics, {summary['documents']} documents "
          f"to {args.out}")
    return 0


def main(argv=None) -> int:
    logging.basicConfig(level=logging.WARNING, format="inexflow: warning: %(message)s", stream=sys.stderr)
    args = build_parser().parse_args(argv)
    try:
        return {"score": cmd_score, "simulate": cmd_simulate}[args.command](args)
    except (InputError, UsageError) as e:
        print(f"inexflow: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # a programming error, not the input's: say so, without a traceback unless --debug
        if args.debug:
            raise
        print(f"inexflow: internal error: {type(e).__name__}: {e} (a bug in inexflow, not in your input; "
              "run again with --debug for the traceback and report it)", file=sys.stderr)
        return 3
