"""The ``inexflow`` command line: ``inexflow score`` (one or more runs, no Snakemake),
``inexflow compare`` (runs compared topic by topic with the workflow's significance tests),
``inexflow validate`` (runs checked as the workflow reads them, without scoring) and
``inexflow simulate`` (a seeded demo or benchmark campaign), among others (docs/cli.md).

Errors in the input print one line ``inexflow: error: FILE:WHERE: PROBLEM`` and exit 2.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys

from inexflow import __version__
from inexflow.errors import InputError, UsageError, counted
from inexflow.io.atomic import write_text
from inexflow.io.detect import ASSESSMENT_FORMATS
from inexflow.io.task_labels import DOCUMENT_TASK, normalise_task, unknown_task
from inexflow.measures.registry import (
    FAMILIES,
    OFFICIAL,
    printed_measures,
    score_quants,
    scoring_task,
    select_measures,
    trec_parameters,
    trec_relstring,
    trec_runid,
)
from inexflow.model.options import Options
from inexflow.simulate.simconfig import SETTINGS, STRUCTURES, SimulationConfig, simulation_config

# The commands that read, score or write tables import pandas (and the modules that use it) when
# they run, so that --help, --version, check-config and workflow init start without it; the
# workflow's deployment and multiprocessing are imported by the commands that use them, so that a
# document scoring call (about 0.15 s to start) does not pay for them.


def _cutoffs(text: str) -> list[int]:
    try:
        ks = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"cut-offs must be comma-separated integers, not {text!r}") from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError("cut-offs must be positive integers")
    return ks


def _task(text: str) -> str:
    if normalise_task(text) is None:
        raise argparse.ArgumentTypeError(unknown_task(text))
    return text


def _numbers(kind):
    def parse(text: str):
        try:
            vals = [kind(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers, not {text!r}") from None
        if not vals:
            raise argparse.ArgumentTypeError("expected at least one number")
        return vals
    return parse


def _joined(values) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def add_scoring_options(p: argparse.ArgumentParser, d: Options, measures_default: str) -> None:
    """The options that say what is scored and how (task, assessments, families, measures and
    every scoring option), of ``inexflow score`` and ``inexflow compare`` alike; ``d`` gives
    the defaults (:func:`options_from_args` reads them back)."""
    p.add_argument("--task", type=_task, metavar="TASK",
                   help="scoring type (thorough, focused, relevant-in-context, best-in-context, fetch-browse) or any "
                        "year's submission label (CO.Focussed, SSCAS, AllInContext, BestInContext, ...); required "
                        f"except for document scoring (--family trec, or TREC qrels), where it defaults to "
                        f"{DOCUMENT_TASK}")
    p.add_argument("--assessments", action="append", metavar="FILE",
                   help="assessment file: FOL qrels, TREC qrels, INEX 2005/2006 or 2002-2004 XML (repeat for several "
                        "files); without it, the first file named is the assessments, as trec_eval takes QRELS RUN...")
    p.add_argument("--assessments-format", default="auto", choices=ASSESSMENT_FORMATS)
    p.add_argument("--collection", metavar="DIR", help="collection directory (needed for element runs on FOL qrels)")
    p.add_argument("--family", type=lambda t: [x for x in t.split(",") if x],
                   help=f"measure families to use instead of the task's default ({', '.join(sorted(FAMILIES))}), "
                        "e.g. --family xcg for XCG on FOL qrels")
    p.add_argument("--quant", type=lambda t: [x for x in t.split(",") if x], default=list(d.quantisations),
                   help=f"quantisation(s) for element measures, comma-separated (default {_joined(d.quantisations)}), "
                        "e.g. strict,liberal")
    p.add_argument("--cutoff-ks", type=_cutoffs, default=list(d.cutoff_ks),
                   help=f"cut-offs of the cutoff family (default {_joined(d.cutoff_ks)})")
    p.add_argument("--bepd-a", type=_numbers(float), default=list(d.bepd_a),
                   help=f"BEPD/EPRUM values of A (default {_joined(d.bepd_a)})")
    p.add_argument("--mean-doc-length", type=_positive_number, help="BEPD/EPRUM L (default: mean length of the assessed documents)")
    p.add_argument("--overlap", choices=["on", "off"],
                   help="XCG overlap: on = rv/rv_norm against the ideal recall-base, off = quant against the full "
                        "recall-base (default: on for the focused task, off otherwise)")
    p.add_argument("--alpha", type=_fraction, default=d.alpha, help=f"overlap alpha for focused XCG (default {d.alpha:g})")
    p.add_argument("--curves", action="store_true",
                   help="print the ep/gr curve ep[0.01..1.00] and the nxCG curve nxCG@[k] per topic too")
    p.add_argument("--qr-printed", action="store_true",
                   help="XCG: add Q[printed] and R[printed], the 2005 paper's Eq. 13-14 as printed, on the printed "
                        "gen = e*s and genLifted = (e+1)*s, to compare with published numbers (Q and R stay Sakai's)")
    p.add_argument("--max-list-length", type=_positive, default=d.max_list_length,
                   help=f"list length whose 1..100%% give the nxCG curve ranks (default {d.max_list_length})")
    p.add_argument("--cutoffs", type=_cutoffs, default=list(d.cutoffs),
                   help=f"nxCG and EPRUM[A]@[k] cut-offs (default {_joined(d.cutoffs)})")
    p.add_argument("--beta", type=_positive_number, default=d.beta,
                   help=f"Relevant in Context F-beta (default {d.beta:g} as the official tool; 1 for HiXEval 2006)")
    p.add_argument("-n", "--bep-distance", dest="bep_distance", type=_positive_number, default=d.bep_distance,
                   help=f"Best in Context: distance n at which a best entry point scores 0 (default {d.bep_distance:g})")
    p.add_argument("--regroup", action="store_true",
                   help="in-context runs: move interleaved results next to their article's first result (and say so)")
    p.add_argument("--ideal-tie", choices=["ancestor", "descendant"], default=d.ideal_tie)
    p.add_argument("--topics", type=lambda t: [x for x in t.split(",") if x], dest="topic_subset",
                   help="evaluate only these topics, comma-separated (a POOLS list)")
    p.add_argument("-c", dest="all_qrels_topics", action="store_true",
                   help="average over every topic in the assessments (missing topics score 0; for the trec family, as "
                        "trec_eval's -c, they are printed too, as with -e)")
    p.add_argument("-e", dest="empty_topics_zero", action="store_true",
                   help="topics assessed but absent from the run score 0 instead of being left out")
    p.add_argument("-l", dest="relevance_level", type=_natural, default=d.relevance_level,
                   help=f"document measures (trec family): a document graded at least this is relevant, as trec_eval's "
                        f"-l (default {d.relevance_level})")
    p.add_argument("-J", dest="judged_only", action="store_true",
                   help="document measures (trec family): leave out the documents the qrels do not judge before "
                        "ranking, as trec_eval's -J")
    p.add_argument("-M", dest="max_docs_per_topic", type=_positive, default=d.max_docs_per_topic, metavar="N",
                   help="document measures (trec family): evaluate only each topic's first N documents, as "
                        "trec_eval's -M (default: all)")
    p.add_argument("-m", "--measure", dest="measures", action="append", metavar="MEASURE",
                   help="the measures, chosen as trec_eval's -m chooses them: repeat for several; parameters after a dot, commas "
                        "between them (-m iP.0.01,0.05 -m MAiP; -m P.5,10 -m map on TREC qrels); a name as the "
                        "family gives it (iP[0.01]); a stem alone for all its parameters (-m iP); -m official for "
                        "the families' headline measures (trec_eval's default table for the trec family), -m all_trec "
                        "for every trec_eval measure (default: "
                        f"{measures_default})")


class _Parser(argparse.ArgumentParser):
    """argparse, with a command line's mistake said in one line (and where the usage is), not
    after the whole usage text; the subcommands' parsers are of this class too."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (usage: {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    d = Options()  # every default below comes from here
    p = _Parser(prog="inexflow", description="Evaluate INEX-style XML and passage retrieval runs.")
    p.add_argument("--version", action="version", version=f"inexflow {__version__}")
    p.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    p.add_argument("-v", "--verbose", action="store_true", help="also print what is being done (info messages)")
    p.add_argument("--quiet", action="store_true", help="print errors only, no warnings")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("score", help="score runs and print measure<TAB>topic<TAB>value lines",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Score one or more runs against assessments, like the official INEX tools.",
                       epilog="examples:\n"
                              "  inexflow score --task focused --assessments qrels.fol -q RUN\n"
                              "  inexflow score --task thorough --assessments inex2005/ --quant gen,strict RUN...\n"
                              "  inexflow score --task focused --family xcg --collection DIR --assessments qrels.fol "
                              "RUN\n  inexflow score --task focused --assessments qrels.fol --format tsv RUN... > "
                              "scores.tsv")
    add_scoring_options(s, d, "every measure; for the trec family, trec_eval's default table, -m official")
    s.add_argument("--format", choices=["inex", "trec", "trec_eval", "tsv", "json"],
                   help="inex: measure<TAB>topic<TAB>value in one <eval> block per run, as the official tool "
                        "(default, but for the trec family alone); trec: the same lines without the blocks; "
                        "trec_eval: trec_eval's layout, names in 22 columns, values with 4 decimals and the runid "
                        "line (the default for the trec family alone); tsv: one table with a "
                        "header run, measure, topic, value (pandas.read_csv(..., sep='\\t')); json: JSON Lines, one "
                        "object per score with run, measure, topic, quant and value (pandas.read_json(..., "
                        "lines=True))")
    s.add_argument("--cutoff-table", action="store_true",
                   help="with --family cutoff: print the Hiemstra & Mihajlovic table (cut-off x quantisation, overlap)")
    s.add_argument("-q", dest="per_topic", action="store_true", help="print per-topic values too")
    s.add_argument("-j", "--jobs", type=_natural, default=0,
                   help="runs scored in parallel processes (default: one per available core; output order and "
                        "values do not depend on it)")
    s.add_argument("runs", nargs="+", metavar="RUN")

    k = sub.add_parser("compare", help="compare runs topic by topic: means, paired tests, wins/ties/losses",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Score two or more runs as inexflow score does and compare each other run with "
                                   "the first (or, with --all-pairs, every pair) on the per-topic values of each "
                                   "measure: the mean difference with its paired bootstrap confidence interval, "
                                   "Cohen's d_z, wins/ties/losses over the topics and the two-sided p-values of the "
                                   "paired t-test, the Wilcoxon signed-rank test and the paired bootstrap, adjusted by "
                                   "Benjamini-Yekutieli over the pairs compared (the tests and the correction of the "
                                   "workflow's significance stage).",
                       epilog="examples:\n"
                              "  inexflow compare --task focused --assessments qrels.fol BASELINE.run NEW.run\n"
                              "  inexflow compare --task focused --assessments qrels.fol -m MAiP --all-pairs --plot "
                              "diff.svg A.run B.run C.run\n"
                              "  inexflow compare --task focused --assessments qrels.fol --format tsv A.run B.run > "
                              "compare.tsv")
    add_scoring_options(k, d, "the families' headline measures, -m official")
    k.add_argument("--all-pairs", action="store_true",
                   help="compare every pair of runs (later minus earlier) instead of every run with the first")
    k.add_argument("--format", choices=["table", "tsv"], default="table",
                   help="table: aligned tables for reading, one per measure (default); tsv: one row per measure and "
                        "pair with every value at full precision (pandas.read_csv(..., sep='\\t'))")
    k.add_argument("--plot", metavar="FILE", help="also draw the per-topic differences, sorted, as an SVG (FILE ends in .svg)")
    k.add_argument("--bootstrap", type=_at_most(10**6), default=COMPARE_BOOTSTRAP, metavar="N",
                   help=f"bootstrap resamples (default {COMPARE_BOOTSTRAP})")
    k.add_argument("--seed", type=_natural, default=0, help="seed of the bootstrap resamples (default 0)")
    k.add_argument("--significance-level", type=_open_fraction, default=0.05, metavar="LEVEL",
                   help="adjusted p-values at or below it are marked * (default 0.05)")
    k.add_argument("runs", nargs="+", metavar="RUN", help="the first run is the baseline")

    va = sub.add_parser("validate", help="check runs as the workflow reads and scores them, without scoring",
                        description="Check each run as the workflow would (format, task label, overlap where the task "
                                    "forbids it, topics listed twice, list length, topics answered against the "
                                    "assessments or the topic set) without scoring it: one line per problem "
                                    "(FILE:line: error|warning: problem), then one line per run (OK or FAILED). "
                                    "Exit 1 when a run has an error (the workflow would stop on it), 0 otherwise.",
                        epilog="example: inexflow validate --task focused --assessments qrels.fol RUN...")
    va.add_argument("--task", type=_task, metavar="TASK",
                    help="the task the runs are submitted to (default: the task each run names; text runs name none)")
    va.add_argument("--assessments", action="append", metavar="FILE",
                    help="assessments: check the topics answered against the assessed ones (repeat for several files)")
    va.add_argument("--assessments-format", default="auto", choices=ASSESSMENT_FORMATS)
    va.add_argument("--topics", metavar="FILE|IDS",
                    help="the topic set: a topic file or topic ids separated by commas; check the topics answered")
    va.add_argument("--max-list-length", type=_positive, default=d.max_list_length,
                    help=f"results a topic may list (default {d.max_list_length}, INEX's limit)")
    va.add_argument("runs", nargs="+", metavar="RUN")

    c = sub.add_parser("check-config", help="check a campaign config as the workflow will, before running it",
                       description="Load config/config.yaml and the --configfile files as Snakemake does and make "
                                   "every check the workflow makes before a job runs (YAML syntax with its line, "
                                   "schema, measures, quantisations, run discovery).")
    c.add_argument("--configfile", action="append", default=[], metavar="FILE",
                   help="your campaign config (repeatable), as given to snakemake --configfile")

    v = sub.add_parser("convert", help="write a TREC (document) or element run as an INEX FOL passage run",
                       description="Convert a 6-column TREC run (whole documents) or an element run to the 8-column "
                                   "FOL format (topic Q0 doc rank rsv run-id offset length) the 2007-2010 tools read. "
                                   "Document lengths come from --collection, or from FOL qrels (--assessments) for "
                                   "the documents they list.")
    v.add_argument("run", metavar="RUN")
    v.add_argument("--collection", metavar="DIR", help="collection directory (element runs, or document lengths)")
    v.add_argument("--assessments", metavar="FILE", help="FOL qrels whose doc_chars give the lengths of the documents they list")
    v.add_argument("-o", "--out", metavar="FILE", help="output file (default: standard output)")

    w = sub.add_parser("workflow", help="deploy the Snakemake workflow into a directory (as a module)",
                       description="inexflow workflow init DIR writes DIR/workflow/Snakefile, which uses the inexflow "
                                   "workflow of this installation as a Snakemake module, and copies the config "
                                   "templates to DIR/config. Then: cd DIR, edit config/config.yaml, "
                                   "snakemake --cores all (needs the workflow extra: pip install '.[workflow]' in a clone).")
    wsub = w.add_subparsers(dest="workflow_command", required=True)
    wi = wsub.add_parser("init", help="deploy the workflow into DIR")
    wi.add_argument("dir", metavar="DIR")
    wi.add_argument("--force", action="store_true", help="overwrite DIR/workflow/Snakefile and DIR/config")

    pc = sub.add_parser("prune-cache", help="remove the collection index's shards that no campaign's plan uses",
                        description="A changed or added document gives its shard a new key and a new file; the "
                                    "workflow keeps the older ones, which another campaign over the same cache may "
                                    "still use. This removes the shard files and lists that no campaign's plan "
                                    "(DIR/plans/, written by each snakemake call) names. Remove a gone campaign's plan "
                                    "first to free its shards.")
    pc.add_argument("cache", metavar="DIR", help="the collection_cache folder of the config")
    pc.add_argument("-n", "--dry-run", action="store_true", help="list what would be removed, remove nothing")

    m = sub.add_parser("simulate", help="write a seeded synthetic campaign (collection, topics, runs, assessments)")
    m.add_argument("--out", required=True, metavar="DIR")
    sim = SimulationConfig()  # the defaults, defined once there (SETTINGS: option -> field)
    for opt, help_text in (("seed", None), ("docs", None), ("topics", None), ("groups", None),
                           ("runs_per_group", "runs per group and task"), ("results", "results per topic"),
                           ("pool_target", "pooled documents per topic"),
                           ("max_runs", "keep a seeded selection of this many runs")):
        m.add_argument(f"--{opt.replace('_', '-')}", type=int, default=getattr(sim, SETTINGS[opt]), help=help_text)
    m.add_argument("--structure", choices=STRUCTURES, default=sim.structure,
                   help="demo: every task on one topic set and FOL, 2005, 2006 and 2002 assessments; inex2005: INEX "
                        "2005's ten tasks, CO+S and four CAS assessment sets, COS topics; wikipedia: INEX 2007's "
                        "shape on a Wikipedia-shaped collection (part-NNN/ID.xml), element and passage runs in the "
                        "four 2007 tasks, FOL qrels")
    m.add_argument("--processes", type=_positive, default=None,
                   help="processes writing a wikipedia collection (default 1; the output does not depend on it)")
    return p


COMPARE_BOOTSTRAP = 10000


def _number(ok, expected: str):
    """An option's type: a number for which ``ok`` holds, else an error saying ``expected``."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not (math.isfinite(x) and ok(x)):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        return x
    return parse


_positive_number = _number(lambda x: x > 0, "a number above 0")  # a distance, a weight, a length
_fraction = _number(lambda x: 0 <= x <= 1, "a number from 0 to 1")
_open_fraction = _number(lambda x: 0 < x < 1, "a number between 0 and 1")


def _natural(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, not {text!r}")
    return n


def _at_most(limit: int):
    def positive(text: str) -> int:
        n = _positive(text)
        if n > limit:
            raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {limit}, not {text!r}")
        return n
    return positive


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return n


def options_from_args(args):
    """The :class:`~inexflow.model.options.Options` of an ``inexflow score`` command line."""
    return Options(quantisations=args.quant, ideal_tie=args.ideal_tie, cutoffs=args.cutoffs,
                   max_list_length=args.max_list_length, per_topic_curves=args.curves, qr_printed=args.qr_printed,
                   overlap=args.overlap,
                   alpha=args.alpha, empty_topics_zero=args.empty_topics_zero, all_qrels_topics=args.all_qrels_topics,
                   topic_subset=args.topic_subset, beta=args.beta, bep_distance=args.bep_distance,
                   regroup=args.regroup, bepd_a=args.bepd_a, mean_doc_length=args.mean_doc_length,
                   cutoff_ks=args.cutoff_ks, relevance_level=args.relevance_level, judged_only=args.judged_only,
                   max_docs_per_topic=args.max_docs_per_topic,
                   trec_measures=trec_parameters(args.measures))


def scoring_session(args, default_measures=None):
    """The :class:`~inexflow.measures.session.Session` of the scoring options
    (:func:`add_scoring_options`) and the measures -m selects (``default_measures`` without -m)."""
    from inexflow.measures.session import Session
    from inexflow.model.assessments import read_assessments

    options = options_from_args(args)
    a = read_assessments(args.assessments, args.assessments_format)
    args.task = scoring_task(a.scale, a.source, args.task, args.family)
    session = Session.build(a, args.task, args.family, options, args.collection)
    specs = args.measures or default_measures
    if not specs:
        return session, printed_measures(session.families, options)
    return session, select_measures(specs, session.families, options)


def cmd_score(args) -> int:
    from functools import partial

    from inexflow.front import documents, passages  # the measures: not for --help, check-config or workflow init

    global _SCORE_JOB
    keep_freed_memory()
    # document runs on TREC qrels and passage runs on FOL qrels: the session is built only if a run needs it
    if documents.handles(args):
        args.task = scoring_task("trec", args.assessments[0], args.task, args.family)
        args.family = families = ["trec"]  # what TREC qrels are scored with (said above), for the general path
        _SCORE_JOB = (args, None, None, partial(documents.score_path, judged=documents.judged_documents(
            args.assessments[0]), args=args))
    elif passages.handles(args):
        scorer = passages.Scorer.of(args, options_from_args(args))
        families = [scorer.family]
        _SCORE_JOB = (args, None, None, scorer.score_path)
    else:
        _SCORE_JOB = (args, *scoring_session(args), None)
        families = _SCORE_JOB[1].families
    if args.format is None:
        args.format = output_format(families)
    jobs = args.jobs or available_cores()
    head = "run\tmeasure\ttopic\tvalue\n" if args.format == "tsv" else ""
    progress = Progress(len(args.runs), "runs scored", enabled=not args.quiet)
    if jobs > 1 and len(args.runs) > 1:
        import multiprocessing

        if "fork" in multiprocessing.get_all_start_methods():
            with multiprocessing.get_context("fork").Pool(min(jobs, len(args.runs))) as pool:
                _write_in_order(args.runs, pool.imap(_score_one, args.runs), progress, head, labels_by_run_id(args))
            return 0
    _write_in_order(args.runs, map(_score_one, args.runs), progress, head, labels_by_run_id(args))
    return 0


def keep_freed_memory():
    """Where the C library is glibc: memory freed by one run's arrays is kept for the next run's
    (every allocation from the heap, which is not trimmed), not handed back to the kernel and
    faulted in again page by page for every new array: a tenth of a call's time over many short
    runs (benchmarks/README.md). The peak memory is the same; it is held until the process ends."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 1 << 25)  # (32 MB: the largest glibc takes)
    mallopt(m_trim_threshold, 1 << 30)


def cmd_compare(args) -> int:
    import pandas as pd

    from inexflow.analysis.compare import COMPARE_TESTS, compare_runs, compared_pairs, topic_differences
    from inexflow.analysis.matrix import score_matrix
    from inexflow.measures.catalogue import per_topic_name
    from inexflow.model.runs import read_run

    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs (the first is the baseline)")
    if args.plot and not str(args.plot).lower().endswith(".svg"):
        raise UsageError(f"--plot draws an SVG: give a file name ending in .svg (not {args.plot})")
    session, measures = scoring_session(args, [OFFICIAL])
    if not args.measures:  # the default set: the measures with a value per topic to compare (not num_q, gm_map)
        from inexflow.measures.catalogue import is_count
        measures = [m for m in measures if m != "num_q" and not is_count(m)
                    and not (per_topic_name(m) != m and per_topic_name(m) in measures)]
    runs = [read_run(path, task=args.task) for path in args.runs]
    names = run_labels(runs, args.runs)
    for run, name in zip(runs, names):
        run.name = name
    scores = pd.concat([session.score(run) for run in runs], ignore_index=True)
    pairs = compared_pairs(names, args.all_pairs)
    tables, diffs, warned = [], [], set()
    for m in measures:
        per_topic = scores[(scores["measure"] == per_topic_name(m)) & (scores["topic"] != "all")]
        for q in dict.fromkeys(per_topic["quant"]) or [None]:
            mat = score_matrix(scores, runs[0].scoring_type, m, q).reindex(names, fill_value=0.0)
            answered = per_topic[per_topic["quant"] == q].groupby("run")["topic"].nunique()
            for name in names:
                missing = mat.shape[1] - int(answered.get(name, 0))
                if missing and name not in warned:
                    warned.add(name)
                    log.warning("run %s has no %s on %d of the %d topics compared: they count 0 here, as in the "
                                "workflow's significance analysis (inexflow score's mean leaves them out; -c or -e count "
                                "them 0 there too)", name, per_topic_name(m), missing, mat.shape[1])
            res = compare_runs(mat, pairs, COMPARE_TESTS, args.bootstrap, args.seed)
            res.insert(0, "quant", q)
            res.insert(0, "measure", m)
            tables.append(res)
            if args.plot:
                diffs.append(topic_differences(mat, pairs).assign(measure=m, quant=q))
    table = pd.concat(tables, ignore_index=True)
    if args.format == "tsv":
        sys.stdout.write(table.to_csv(sep="\t", index=False, lineterminator="\n"))
    else:
        sys.stdout.write(comparison_text(table, names, args))
    if args.plot:
        from inexflow.analysis import plots
        plots.topic_differences(pd.concat(diffs, ignore_index=True), args.plot)
    return 0


log = logging.getLogger("inexflow")


def run_labels(runs, paths) -> list[str]:
    """What compared runs are called: their run ids, or where two share one, the names the
    workflow gives them (``run_name``: the file name without extension), or where those repeat
    too, the paths as given (docs/formats.md#run-names)."""
    from inexflow.io.names import run_name

    for labels in ([r.run_id for r in runs], [run_name(p) for p in paths], [str(p) for p in paths]):
        if len(set(labels)) == len(labels):
            return labels
    raise UsageError(f"a run is given twice: {', '.join(sorted({str(p) for p in paths if paths.count(p) > 1}))}")


def _p(p: float, adjusted: float, level: float) -> str:
    return ("<0.0001" if adjusted < 1e-4 else f"{adjusted:.4f}") + ("*" if adjusted <= level else " ")


def _aligned(rows: list[list[str]]) -> str:
    """Rows of cells as text: the first column left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                   + "\n" for r in rows)


def comparison_text(table, names, args) -> str:
    """``inexflow compare``'s tables for reading: per measure, each run's mean, then each pair."""
    from inexflow.analysis.compare import COMPARE_TESTS
    from inexflow.measures.catalogue import NO_QUANT

    out = []
    level = args.significance_level
    for (m, q), g in table.groupby(["measure", "quant"], sort=False, dropna=False):
        quant = "" if q is None or q != q or q in NO_QUANT else f" ({q})"
        base = "" if args.all_pairs else f", baseline {names[0]}"
        out.append(f"{m}{quant}: {counted(int(g['topics'].iloc[0]), 'topic')}{base}\n")
        means = dict(zip(g["run_b"], g["mean_b"])) | dict(zip(g["run_a"], g["mean_a"]))
        out.append(_aligned([["run", "mean"], *([n, f"{means[n]:.4f}"] for n in names)]))
        head = ["pair", "diff", f"{100 * CONFIDENCE:g}% CI", "d_z", "wins/ties/losses",
                *(f"p {TEST_NAMES[t]}" for t in COMPARE_TESTS)]
        rows = [[f"{r.run_a} - {r.run_b}", f"{r.diff:+.4f}", f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]",
                 "n/a" if r.d_z != r.d_z else f"{r.d_z:+.2f}", f"{r.wins}/{r.ties}/{r.losses}",
                 *(_p(getattr(r, f"p_{t}"), getattr(r, f"p_{t}_by"), level) for t in COMPARE_TESTS)]
                for r in g.itertuples()]
        out.append("\n" + _aligned([head, *rows]) + "\n")
    n = len(table) // max(table.groupby(["measure", "quant"], sort=False, dropna=False).ngroups, 1)
    out.append(f"diff: the mean over topics of the first run's value less the second's; CI: its paired bootstrap "
               f"interval ({args.bootstrap} resamples, seed {args.seed})\n"
               "d_z: Cohen's d_z, mean / sd of the per-topic differences; wins/ties/losses: the topics where the "
               "first run scores higher / the same / lower\n"
               f"p: two-sided, Benjamini-Yekutieli-adjusted over the {n} pair{'s' * (n != 1)} of each measure and "
               f"test; * at most {level:g}\n")
    return "".join(out)


CONFIDENCE = 0.95
TEST_NAMES = {"t": "t-test", "wilcoxon": "Wilcoxon", "bootstrap": "bootstrap"}


class Progress:
    """``k/N what`` on one stderr line, rewritten in place, only when stderr is a terminal and
    there is more than one item (nothing in pipes, logs and tests)."""

    def __init__(self, total: int, what: str, enabled: bool = True, stream=None):
        self.stream = stream or sys.stderr
        self.total, self.what, self.done = total, what, 0
        self.on = enabled and total > 1 and self.stream.isatty()

    def step(self):
        self.done += 1
        if self.on:
            end = "\n" if self.done == self.total else ""
            self.stream.write(f"\rinexflow: {self.done}/{self.total} {self.what}{end}")
            self.stream.flush()

    def clear(self):
        """Before a message: end the progress line so the message starts on its own line."""
        if self.on and 0 < self.done < self.total:
            self.stream.write("\n")


def available_cores() -> int:
    """Cores this process may use (the affinity mask where the platform has one, e.g. not macOS)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


# (args, Session, measures, the fast path's scoring: path -> (text, run id) or None) of the running
# ``inexflow score``
_SCORE_JOB = None


def output_format(families) -> str:
    """``inexflow score``'s default ``--format``: trec_eval's layout for the trec family alone,
    else the official INEX tool's."""
    return "trec_eval" if list(families) == ["trec"] else "inex"


def _score_one(path) -> tuple[str, list, InputError | None, str | None]:
    """One run's output block, the warnings it raised, its input error, if any, and its run id
    (run in a worker process when scoring in parallel, so that warnings keep the order of the
    runs)."""
    from inexflow.measures.output import format_scores, json_lines, rows_of, select_scores, trec_eval_lines

    global _SCORE_JOB
    args, session, measures, fast = _SCORE_JOB
    log = logging.getLogger("inexflow")
    caught = _Collect()
    log.addHandler(caught)
    propagate, log.propagate = log.propagate, False
    out = []
    try:
        done = fast(path) if fast is not None else None
        if done is not None:
            return done[0], caught.records, None, done[1]
        caught.records.clear()  # the general path says again what the fast path said of a run it left
        from inexflow.model.runs import read_run  # pandas: only for the runs the fast paths do not score

        if session is None:  # a run the fast path does not score: the general path
            _SCORE_JOB = (args, *scoring_session(args), fast)
            args, session, measures, fast = _SCORE_JOB
            caught.records.clear()  # what reading the assessments says was said before the first run
        run = read_run(path, task=args.task)
        if args.format == "inex":
            out.append(f'<eval run-id="{run.run_id}" file="{path}">\n')
        for fam, scores in session.score_families(run):
            if measures is not None and not (args.cutoff_table and fam == "cutoff"):
                scores = select_scores(scores, measures)
                lines_only = args.format == "trec_eval" and (trec_runid(args.measures) or trec_relstring(args.measures))
                if scores.empty and not lines_only:  # (-m runid or -m relstring alone print lines)
                    continue
            if args.cutoff_table and fam == "cutoff":
                from inexflow.measures.cutoff import cutoff_table
                out.append(cutoff_table(scores).to_csv(sep="\t", index=False, float_format="%.4f"))
            elif args.format == "json":
                out.append(json_lines(scores, args.per_topic, run.name))
            elif args.format == "trec_eval":
                rows = rows_of(scores)
                if fam == "trec" and args.per_topic and (rs := trec_relstring(args.measures)):
                    from inexflow.measures.trec import relstrings
                    rows += [(t, "-", rs, s) for t, s in relstrings(run, session.context, rs)]
                out.append(trec_eval_lines(rows, args.per_topic, run.run_id if trec_runid(args.measures) else None))
            else:
                text = format_scores(scores, args.per_topic, align=args.format == "inex")
                if args.format == "tsv":
                    text = "".join(f"{run.name}\t{line}\n" for line in text.splitlines())
                out.append(text)
        if args.format == "inex":
            out.append("</eval>\n")
        return "".join(out), caught.records, None, run.run_id
    except InputError as e:
        return "", caught.records, e, None
    finally:
        log.removeHandler(caught)
        log.propagate = propagate


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        record.msg, record.args, record.exc_info = record.getMessage(), None, None  # picklable
        self.records.append(record)


def labels_by_run_id(args) -> bool:
    """Whether ``inexflow score``'s output tells runs apart by their run id alone: trec_eval's
    ``runid`` line, the first column of ``tsv``, the ``run`` of ``json`` (``inex`` names each
    run's file too; trec_eval's layout without the ``runid`` line names no run)."""
    return args.format in ("tsv", "json") or (args.format == "trec_eval" and trec_runid(args.measures))


def _write_in_order(paths, results, progress: Progress | None = None, head: str = "", by_id: bool = False):
    """Each run's warnings as it is scored, in the order of the runs (``results`` of the run
    files ``paths``), and with ``by_id`` (:func:`labels_by_run_id`) a warning for a run whose id
    another run file has too; the output (``head``, then every run's text) only once every run
    is scored, so that a bad run leaves no partial table on stdout."""
    log = logging.getLogger("inexflow")
    texts, first = [head], {}
    for path, (text, records, error, run_id) in zip(paths, results):
        shown = [r for r in records if r.levelno >= log.getEffectiveLevel()]
        # the first run file of this run id, when the output tells runs apart by their ids alone
        earlier = first.setdefault(run_id, path) if by_id and error is None else path
        if (shown or error is not None or earlier != path) and progress:
            progress.clear()
        for r in shown:
            log.handle(r)
        if error is not None:
            raise error
        if earlier != path:
            log.warning("%s: run id %r is the run id of %s too: the output tells their scores apart only by their "
                        "order", path, run_id, earlier)
        texts.append(text)
        if progress:
            progress.step()
    sys.stdout.write("".join(texts))


def cmd_validate(args) -> int:
    from inexflow.front.validate import parse_topic_set, validate_run

    assessments = None
    if args.assessments:
        from inexflow.model.assessments import read_assessments
        assessments = read_assessments(args.assessments, args.assessments_format)
    topics = parse_topic_set(args.topics) if args.topics else None
    failed = 0
    for path in args.runs:
        report = validate_run(path, args.task, assessments, topics, args.max_list_length)
        for level, place, problem in report.problems:
            print(f"{place}: {level}: {problem}")
        print(report.summary())
        failed += report.errors > 0
    if len(args.runs) > 1:
        print(f"{len(args.runs) - failed} of {counted(len(args.runs), 'run')} OK" + (f", {failed} FAILED" if failed else ""))
    return 1 if failed else 0


def cmd_check_config(args) -> int:
    from inexflow.campaign.config import load_config  # jsonschema: for check-config only
    from inexflow.campaign.tasks import used_quantisations

    config, campaign = load_config(args.configfile)
    scored = {t: et for t, et in campaign.eval_tasks.items() if campaign.runs_of(t)}
    tasks = [f"{t} {len(campaign.runs_of(t))}" for t in scored]
    idle = [t for t in campaign.eval_tasks if t not in scored]
    sets = campaign.assessment_sets
    files = sum(len(s["files"]) for s in sets.values())
    # the quantisations the scores carry: none where every scored family counts characters
    quants = [q for q in used_quantisations(config, scored)
              if q in score_quants([f for et in scored.values() for f in et["families"]], [q])]
    print(f"config of campaign {campaign.name!r} is valid: {counted(len(campaign.runs), 'run')} in "
          f"{counted(len(tasks), 'evaluation task')} ({', '.join(tasks)}), {counted(len(sets), 'assessment set')} of "
          f"{counted(files, 'file')}, " + (f"quantisations {', '.join(quants)}" if quants else "no quantisation")
          + (f"; no runs for {', '.join(idle)} (nothing is scored for them)" if idle else ""))
    print(analyses_line(config.get("analysis"), campaign.analyses))
    return 0


def analyses_line(an: dict, analyses: list[str]) -> str:
    """Which analyses run, on what task and measures: significance named apart where its own
    ``task`` or ``measures`` differ from the analysed task's."""
    if not analyses:
        return "no analyses"
    sig = an.get("significance") or {}
    own = "significance" in analyses and (sig["task"], sig["measures"]) != (an["task"], an["measures"])
    rest = [a for a in analyses if not (own and a == "significance")]
    parts = [f"analyses of task {an['task']!r} on {', '.join(an['measures'])}: {', '.join(rest)}"] if rest else []
    if own:
        parts.append(f"significance of task {sig['task']!r} on {', '.join(sig['measures'])}")
    return "; ".join(parts) if rest else f"analyses: {parts[0]}"


def cmd_convert(args) -> int:
    from inexflow.io.run_text import fol_run_text
    from inexflow.model.runs import convert_to_fol, read_run

    if not args.collection and not args.assessments:
        raise UsageError("convert needs document lengths: give --collection DIR or --assessments FOL_QRELS")
    lengths = None
    if args.assessments:
        from inexflow.model.assessments import read_assessments
        d = read_assessments(args.assessments).documents
        lengths = d[d["doc_chars"] > 0].drop_duplicates("doc").set_index("doc")["doc_chars"].to_dict()
    text = fol_run_text(convert_to_fol(read_run(args.run), args.collection, lengths),
                        qrels=lengths is not None and not args.collection)
    if args.out:
        write_text(text, args.out)
    else:
        sys.stdout.write(text)
    return 0


def cmd_workflow(args) -> int:
    from inexflow.campaign.deploy import init, workflow_dir

    init(args.dir, force=args.force)
    print(f"deployed the inexflow workflow ({workflow_dir()}) into {args.dir}: edit {args.dir}/config/config.yaml, "
          f"then cd {args.dir} && snakemake --cores all")
    return 0


def cmd_prune_cache(args) -> int:
    from inexflow.model.shard_plan import unused_files

    unused, kept, plans = unused_files(args.cache)
    if not plans:
        print(f"{args.cache}: no plan in {args.cache}/plans, so no shard is known to be unused: nothing removed")
        return 0
    size = sum(f.stat().st_size for f in unused)
    for f in unused:
        if args.dry_run:
            print(f)
        else:
            f.unlink()
    verb = "would remove" if args.dry_run else "removed"
    print(f"{args.cache}: {verb} {counted(len(unused), 'file')} ({size / 1e6:,.1f} MB); {counted(kept, 'shard')} "
          f"kept, named by {counted(plans, 'plan')}")
    return 0


def cmd_simulate(args) -> int:
    from inexflow.simulate.simulate import simulate

    bars: dict[str, Progress] = {}

    def progress(what, done, total):  # one progress line per phase, on a terminal
        bar = bars.get(what) or bars.setdefault(what, Progress(total, what, enabled=not args.quiet))
        bar.done = done - 1  # a phase may advance by more than one (a wikipedia collection: by directory)
        bar.step()

    summary = simulate(args.out, simulation_config({k: getattr(args, k) for k in SETTINGS}), progress,
                       processes=args.processes)
    print(f"wrote {counted(summary['runs'], 'run')}, {counted(summary['topics'], 'topic')}, "
          f"{counted(summary['documents'], 'document')} to {args.out}")
    return 0


class _LowerLevelFormatter(logging.Formatter):
    """``inexflow: warning: MESSAGE`` (``info`` with -v)."""

    def format(self, record):
        return f"inexflow: {record.levelname.lower()}: {record.getMessage()}"


def _assessments_first(args) -> None:
    """Without ``--assessments``, the first file named is the assessments (trec_eval's
    ``QRELS RUN...``)."""
    if args.command not in ("score", "compare") or args.assessments:
        return
    if len(args.runs) < 2:
        raise UsageError("give the assessments and at least one run: --assessments FILE RUN..., or QRELS RUN... as "
                         "trec_eval takes them")
    args.assessments, args.runs = args.runs[:1], args.runs[1:]


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    level = logging.ERROR if args.quiet else logging.INFO if args.verbose else logging.WARNING
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_LowerLevelFormatter())
    logging.basicConfig(handlers=[handler])
    logging.getLogger("inexflow").setLevel(level)
    try:
        _assessments_first(args)
        commands = {"score": cmd_score, "compare": cmd_compare, "validate": cmd_validate, "simulate": cmd_simulate,
                    "check-config": cmd_check_config, "convert": cmd_convert, "workflow": cmd_workflow,
                    "prune-cache": cmd_prune_cache}
        return commands[args.command](args)
    except (InputError, UsageError) as e:
        print(f"inexflow: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:  # an output the user named that cannot be written (a directory, a full disk)
        where = f"{e.filename}: " if e.filename else ""
        print(f"inexflow: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except Exception as e:  # a programming error, not the input's: say so, without a traceback unless --debug
        if args.debug:
            raise
        print(f"inexflow: internal error: {type(e).__name__}: {e} (a bug in inexflow, not in your input; "
              "run again with --debug for the traceback and report it)", file=sys.stderr)
        return 3
