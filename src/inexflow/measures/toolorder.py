"""How the official INEX 2009/2010 evaluation tool (inex_eval) reads a run, for the
measure families that reproduce it (:mod:`inexflow.measures.passage`,
:mod:`inexflow.measures.incontext`).

The tool reads a run line by line and never looks at the rank column ("participants' use
of the rank field might not be consistent"): a text run is scored in file order. Lines of
topics without assessments are skipped without touching any state. A topic's state
(ranks, characters retrieved, iP) is created the first time the topic is met and kept
when the topic comes back later in the file, so a topic listed in two separate blocks is
one list, the second block after the first. The table of articles seen so far, however,
is only reset when a topic is met for the first time; a block that comes back continues
with the table of the block before it. That decides which articles count as retrieved
(``num_ret``, ``num_rel_ret``) and which passages are checked against each other for
overlap: only those of one block. :func:`tool_article_counts` reproduces the counting.

Runs in other formats (XML) keep the evaluation order of :mod:`inexflow.formats.runs`
(the spec's ordering rule), as the tool does not read them.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from inexflow.errors import warn_input

TEXT_FORMATS = ("fol-text", "xpath-text", "trec-text")


def tool_order(run) -> pd.DataFrame:
    """The run's results in the order the tool reads them (file order for text runs).

    Warns when a topic's ranks disagree with the file order, since the tool (and so this
    function) follows the file, not the rank column."""
    res = run.results
    if run.format not in TEXT_FORMATS or res["line"].is_monotonic_increasing:
        return res
    res = res.sort_values("line", kind="stable").reset_index(drop=True)
    same_topic = res["topic"].to_numpy()[1:] == res["topic"].to_numpy()[:-1]
    falls = np.flatnonzero(same_topic & (np.diff(res["rank"].to_numpy()) < 0))
    if len(falls):
        r = res.iloc[falls[0] + 1]
        warn_input(run.source, f"line {r.line}", f"run {run.run_id}, topic {r.topic}: rank {r['rank']} comes "
                   f"after rank {res['rank'].iloc[falls[0]]} in the file ({len(falls)} such places); results "
                   "are scored in file order, as the official tool does (it ignores the rank column)")
    return res


def topic_blocks(res: pd.DataFrame, assessed) -> np.ndarray:
    """For each result (in tool order) the number of its topic block among the lines of
    assessed topics (0, 1, ...), -1 for lines of topics without assessments."""
    topic = res["topic"].to_numpy()
    keep = np.isin(topic, np.asarray(list(assessed), dtype=object))
    block = np.full(len(res), -1, dtype=np.int64)
    t = topic[keep]
    if len(t):
        block[keep] = np.cumsum(np.r_[True, t[1:] != t[:-1]]) - 1
    return block


def split_topics(res: pd.DataFrame, blocks: np.ndarray) -> dict[str, list[tuple[int, int]]]:
    """Topics listed in more than one block: topic -> [(first line, last line) of each block]."""
    keep = blocks >= 0
    if not keep.any():
        return {}
    d = pd.DataFrame({"topic": res["topic"].to_numpy()[keep], "block": blocks[keep],
                      "line": res["line"].to_numpy()[keep]})
    spans = d.groupby(["topic", "block"], sort=False)["line"].agg(["min", "max"]).reset_index()
    many = spans["topic"].duplicated(keep=False)
    out: dict[str, list[tuple[int, int]]] = {}
    for r in spans[many].itertuples(index=False):
        out.setdefault(r.topic, []).append((int(r.min), int(r.max)))
    return out


def describe_split(run, split: dict[str, list[tuple[int, int]]]) -> str:
    t, spans = next(iter(split.items()))
    where = ", ".join(f"lines {a}-{b}" for a, b in spans)
    more = f" (and {len(split) - 1} more topics)" if len(split) > 1 else ""
    return f"run {run.run_id}: topic {t} is listed in {len(spans)} separate blocks ({where}){more}"


def tool_article_counts(res: pd.DataFrame, blocks: np.ndarray, relevant: pd.MultiIndex) -> dict[str, tuple[int, int]]:
    """topic -> (articles retrieved, relevant articles retrieved) as the tool counts them.

    Within one block of a topic that is the number of distinct articles; a block that
    comes back counts an article as new unless it is in the carried-over table (see the
    module docstring) or is the same article as the line before it. ``relevant`` holds the
    (topic, doc) pairs with highlighted text."""
    keep = blocks >= 0
    topic = res["topic"].to_numpy()[keep]
    doc = res["doc"].to_numpy()[keep]
    blk = blocks[keep]
    if len(blk) == 0 or blk[-1] + 1 == len(set(topic)):
        # every topic in one block: distinct articles per topic
        d = pd.DataFrame({"topic": topic, "doc": doc}).drop_duplicates()
        rel = pd.MultiIndex.from_frame(d).isin(relevant)
        n = d.groupby("topic", sort=False).size()
        r = pd.Series(rel, index=d.index).groupby(d["topic"], sort=False).sum()
        return {t: (int(n[t]), int(r[t])) for t in n.index}
    relevant = set(relevant)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    met: set = set()
    table: set = set()
    prev = None
    for t, a in zip(topic, doc):
        if t not in met:
            met.add(t)
            table, prev = set(), None
        if a != prev:
            prev = a
            if a not in table:
                table.add(a)
                c = counts[t]
                c[0] += 1
                c[1] += (t, a) in relevant
    return {t: (c[0], c[1]) for t, c in counts.items()}
