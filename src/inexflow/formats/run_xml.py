"""INEX XML run submissions.

``<inex-submission participant-id=".." run-id=".." task=".." ...><topic topic-id="..">
<result><file>..</file><path>..</path> | <fol offset=".." length=".."/><rank>..</rank>
<rsv>..</rsv></result>...</topic></inex-submission>``. ``rank`` and ``rsv`` are optional;
without ranks the results are ordered by descending rsv, then file order.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from inexflow.errors import InputError
from inexflow.formats.runs import RESULT_COLUMNS, Run, check_duplicates, normalise_task, order_results
from inexflow.formats.xmlutil import attr, local, parse_xml, where
from inexflow.formats.xpath import canonical_xpath


def _num(path, el, text, what, conv):
    try:
        v = conv(text)
    except ValueError:
        raise InputError(path, where(el), f"{what} {text!r} is not a number") from None
    if isinstance(v, float) and math.isnan(v):
        raise InputError(path, where(el), f"{what} is NaN")
    return v


def _twice(path, ch):
    """A second <file>, location, <rank> or <rsv> in one result: taking either would be a guess."""
    raise InputError(path, where(ch), f"<{local(ch.tag)}> repeats a child already given in this <result>",
                     "one <file>, one <path> or <fol>, at most one <rank> and one <rsv> per <result>")


def read_xml_run(path) -> Run:
    root = parse_xml(path)
    if local(root.tag) != "inex-submission":
        raise InputError(path, where(root), f"root element <{local(root.tag)}>", "<inex-submission>")
    run_id = attr(path, root, "run-id", "run_id", "runid")
    participant = attr(path, root, "participant-id", "participant_id", required=False, default="")
    task_attr = attr(path, root, "task", required=False, default="")
    task = normalise_task(task_attr) if task_attr else ""
    if task is None:
        raise InputError(path, where(root), f"unknown task {task_attr!r}",
                         "a submission task label: Thorough, Focused, RelevantInContext, BestInContext, "
                         "AllInContext, FetchBrowse, CO.Focussed, COS.Thorough, SSCAS, ...")
    rows = []
    all_ranked = True
    canon: dict[str, str] = {}
    for t in root:
        if local(t.tag) != "topic":
            continue
        topic = attr(path, t, "topic-id", "topic_id", "id")
        for r in t:
            if local(r.tag) != "result":
                continue
            doc = p = rank_t = rsv_t = None
            fol = None
            for ch in r:  # one pass over the result's children
                name = local(ch.tag)
                if name == "file":
                    if doc is not None:
                        _twice(path, ch)
                    doc = (ch.text or "").strip()
                elif name == "path":
                    if p is not None or fol is not None:
                        _twice(path, ch)
                    p = (ch.text or "").strip()
                elif name == "fol":
                    if p is not None or fol is not None:
                        _twice(path, ch)
                    fol = ch
                elif name == "rank":
                    if rank_t is not None:
                        _twice(path, ch)
                    rank_t = (ch.text or "").strip()
                elif name == "rsv":
                    if rsv_t is not None:
                        _twice(path, ch)
                    rsv_t = (ch.text or "").strip()
            if doc is None:
                raise InputError(path, where(r), "missing child element <file>")
            if not doc:
                raise InputError(path, where(r), "empty <file>")
            doc = doc[:-4] if doc.endswith(".xml") else doc
            xpath, off, ln = "", -1, -1
            if fol is not None:
                off = _num(path, fol, attr(path, fol, "offset", "file-offset"), "offset", int)
                ln = _num(path, fol, attr(path, fol, "length", "file-length"), "length", int)
                if off < 0 or ln < 0:
                    raise InputError(path, where(fol), f"negative offset or length ({off}, {ln})",
                                     "non-negative integers")
            elif p is not None:
                xpath = canon.get(p)
                if xpath is None:
                    try:
                        xpath = canon[p] = canonical_xpath(p)
                    except ValueError as e:
                        raise InputError(path, where(r), str(e)) from None
            else:
                raise InputError(path, where(r), "result has neither <path> nor <fol>")
            rank = _num(path, r, rank_t, "rank", int) if rank_t else 0
            all_ranked &= bool(rank_t)
            rsv = _num(path, r, rsv_t, "rsv", float) if rsv_t else float("nan")
            rows.append((topic, doc, xpath, off, ln, rank, rsv, r.sourceline))
    if not rows:
        raise InputError(path, where(root), "run has no results")
    df = pd.DataFrame.from_records(rows, columns=list(RESULT_COLUMNS))
    check_duplicates(df, path)
    df = order_results(df, has_rank=all_ranked)
    return Run(run_id, participant, task, "inex-xml", str(path), df, task_attr)


def _format_distinct(df: pd.DataFrame, columns, fmt) -> np.ndarray:
    """``fmt(*row)`` for every row of ``df[columns]`` (an object array), each distinct row formatted once."""
    key = np.zeros(len(df), dtype=np.int64)
    for c in columns:
        code, uniq = pd.factorize(df[c], use_na_sentinel=False)
        key, _ = pd.factorize(key * len(uniq) + code)
    _, first = np.unique(key, return_index=True)  # the first row of each key, keys in order 0, 1, ...
    values = [df[c].iloc[first].tolist() for c in columns]
    return np.array([fmt(*row) for row in zip(*values)] or [""], dtype=object)[key]


def write_xml_run(run: Run, path, task_label: str):
    """Write ``run`` as an INEX XML submission (used by the simulator)."""
    from xml.sax.saxutils import quoteattr

    from inexflow.tables import write_text

    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<inex-submission participant-id={quoteattr(run.participant)} '
           f'run-id={quoteattr(run.run_id)} task={quoteattr(task_label)} query="automatic">\n']
    res = run.results
    topics = res["topic"].tolist()
    # a run repeats its locations (across topics) and its (rank, rsv) pairs: each distinct one
    # is formatted once, and the lines are joined from them in numpy
    heads = _format_distinct(res, ("doc", "xpath", "offset", "length"), lambda d, x, o, n: (
        f"    <result><file>{d}</file>" + (f"<path>{x}</path>" if x else f'<fol offset="{o}" length="{n}"/>')))
    tails = _format_distinct(res, ("rank", "rsv"), lambda k, v: f"<rank>{k}</rank><rsv>{v!r}</rsv></result>\n")
    lines = (heads + tails).tolist()
    starts = [i for i in range(len(topics)) if i == 0 or topics[i] != topics[i - 1]]
    for a, b in zip(starts, starts[1:] + [len(topics)]):
        out.append(f'  <topic topic-id="{topics[a]}">\n')
        out.append("".join(lines[a:b]))
        out.append("  </topic>\n")
    out.append("</inex-submission>\n")
    write_text("".join(out), path)
