"""Document scoring without pandas: how ``inexflow score`` scores TREC document runs against
TREC qrels with the ``trec`` family, at the speed of the Arrow readers and the array core.

The same readers, measures and printing as every other path (:mod:`inexflow.io.qrels_trec`,
:mod:`inexflow.io.run_arrow`, :mod:`inexflow.measures.trec_arrays`,
:func:`inexflow.measures.output.format_rows`), without building pandas tables: a run read
this way prints exactly what the general path (:class:`inexflow.measures.session.Session`)
prints for it. Whatever this path does not handle goes to the general path instead: options
other than the output format, ``-q``, ``-c``, ``-e``, ``-m``, ``-l`` and ``-J`` (``--topics``, JSON
output, a collection), several assessment files, assessments that are not TREC qrels, and any run that is
not a plain 6-column TREC run or that the general reader would warn about (several run ids,
a negative rank, an infinite score, a document repeated in a topic, blank lines).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from inexflow.io.arrow_arrays import arrow_of, numpy_of, take
from inexflow.io.detect import detect_assessment_format
from inexflow.io.qrels_trec import read_trec_judgements
from inexflow.io.run_arrow import PlainRun, read_quiet_run
from inexflow.io.topic_order import topic_sort_key, trec_topic_order
from inexflow.measures.output import format_rows, trec_eval_lines
from inexflow.measures.registry import (
    OFFICIAL,
    relstring_length,
    select_measures,
    trec_parameters,
    trec_relstring,
    trec_runid,
    unanswered_relstring,
)
from inexflow.measures.topicset import topics_to_score
from inexflow.measures.trec_arrays import (
    Judged,
    codes_of,
    complete_num_rel,
    document_rows,
    is_numbers,
    pair_keys,
    per_topic_measures,
    rank_documents,
    trec_order,
)


def handles(args) -> bool:
    """Whether the command line ``args`` of ``inexflow score`` is one this path scores."""
    return (list(args.family or ["trec"]) == ["trec"] and len(args.assessments) == 1
            and args.assessments_format in ("auto", "trec") and args.format in (None, "inex", "trec",
                                                                                       "trec_eval", "tsv")
            and not (args.topic_subset or args.collection or args.cutoff_table)
            and Path(args.assessments[0]).is_file()
            and (args.assessments_format == "trec" or detect_assessment_format(args.assessments[0]) == "trec"))


def judged_documents(path) -> Judged:
    """The judgements of the TREC qrels ``path``."""
    rows = read_trec_judgements(path)
    return Judged.of([r[0] for r in rows], [r[1] for r in rows], np.array([r[2] for r in rows], dtype=np.float64))


def plain_run(path) -> PlainRun | None:
    """The run at ``path`` read by Arrow if it is a plain TREC run the general reader would read
    without a word; else None."""
    run = read_quiet_run(Path(path), 6)  # (named as the general reader names it: a/./b.run is a/b.run)
    if run is None:
        return None
    dcode = run.doc if is_numbers(run.doc) else numpy_of(run.doc.indices)
    pair = pair_keys(numpy_of(run.topic.indices), dcode.astype(np.int64))
    pair.sort()
    if (pair[1:] == pair[:-1]).any():
        return None
    return run


def score_path(path, judged: Judged, args) -> tuple[str, str] | None:
    """What ``inexflow score`` prints for the run at ``path`` and its run id, or None where it
    is not a plain run (:func:`plain_run`)."""
    run = plain_run(path)
    return None if run is None else score_text(path, run, judged, args)


def measure_names(args) -> list[str]:
    """The trec family's measures ``args`` ask for: ``-m``, else what the family prints by
    default (trec_eval's default table)."""
    return list(_measure_names(tuple(args.measures or ())))


@cache
def _measure_names(measures: tuple) -> tuple:
    """:func:`measure_names` of the ``-m`` specs ``measures`` (once per call of ``inexflow score``)."""
    specs = list(measures)
    return tuple(select_measures(specs or [OFFICIAL], ["trec"], {"trec_measures": trec_parameters(specs)}))


def score_text(path, run: PlainRun, judged: Judged, args) -> tuple[str, str]:
    """What ``inexflow score`` prints for ``run`` (read from ``path``), and the run's id: its
    stages :func:`in_trec_order`, :func:`score_rows` and :func:`output_text`."""
    topic, doc, run_topics = in_trec_order(run)
    rows = score_rows(path, topic, doc, run_topics, judged, args)
    return output_text(path, run, rows, args)


def in_trec_order(run: PlainRun) -> tuple:
    """The run's topics (dictionary-encoded) and documents in the order trec_eval reads them,
    and its distinct topics."""
    tcode, run_topics = codes_of(run.topic)
    order = trec_order(tcode, run.rsv, run.doc)
    doc = run.doc[order] if is_numbers(run.doc) else take(run.doc, arrow_of(order))
    topic = pa.DictionaryArray.from_arrays(arrow_of(tcode[order].astype(np.int32)), run.topic.dictionary)
    return topic, doc, run_topics


def score_rows(path, topic, doc, run_topics: list[str], judged: Judged, args) -> list[tuple]:
    """The rows ``(topic, quant, measure, value)`` printed for the results ``topic``, ``doc``
    (in trec_eval's order) of the run at ``path``: the judgement lookup, the rank x topic
    matrix and the measures."""
    # the run's topics in topic order, as the general reader orders them (for its warnings);
    # scored, summed and printed in trec_eval's order
    run_topics = sorted(run_topics, key=topic_sort_key)
    topics = trec_topic_order(topics_to_score(run_topics, str(Path(path)), judged.topic_ids,
                                              empty_zero=args.empty_topics_zero or args.all_qrels_topics))
    names = measure_names(args)
    ranking = rank_documents(topic, doc, topics, judged, level=args.relevance_level,
                             judged_only=args.judged_only, distinct=True, max_docs=args.max_docs_per_topic)
    values = ranking.measures(per_topic_measures(names))
    rows = document_rows(topics, values, names, complete_num_rel(judged, topics) if args.all_qrels_topics else None,
                         per_topic=args.per_topic)
    if args.per_topic and args.format == "trec_eval" and (rs := trec_relstring(args.measures)):
        answered, none = set(run_topics), unanswered_relstring(rs, args.judged_only)
        rows += [(t, "-", rs, s if t in answered else none)
                 for t, s in zip(topics, ranking.relstring(relstring_length(rs)))]
    return rows


def output_text(path, run: PlainRun, rows: list[tuple], args) -> tuple[str, str]:
    """The text of ``rows`` in the output format ``args`` ask for, and the run's id."""
    run_id = run.run_id.dictionary[0].as_py()
    if args.format == "trec_eval":
        return trec_eval_lines(rows, args.per_topic, run_id if trec_runid(args.measures) else None), run_id
    text = format_rows(rows, args.per_topic, align=args.format == "inex")
    if args.format == "inex":
        return f'<eval run-id="{run_id}" file="{path}">\n{text}</eval>\n', run_id
    if args.format == "tsv":
        return "".join(f"{run_id}\t{line}\n" for line in text.splitlines()), run_id
    return text, run_id
