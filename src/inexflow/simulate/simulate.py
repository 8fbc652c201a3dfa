"""A seeded generator of synthetic but realistic INEX campaigns (``inexflow simulate``).

It writes, under one output directory:

- ``collection/NNN.xml`` nested article/fm/bdy/sec/ss1/p documents of varied lengths;
- ``topics.xml`` an INEX topic file;
- ground truth: per topic a few relevant documents with 1-2 highlighted passages
  (contiguous paragraphs, sometimes starting or ending inside one);
- ``runs/``: runs of several groups of varying quality for every task -- thorough
  (overlapping elements, XML), fetch-browse (thorough elements grouped per article, XML),
  focused (non-overlapping elements, XML),
  relevant-in-context (focused elements grouped per article, XML), best-in-context (one
  element per article, XML) and focused passage runs (FOL, 8-column text);
- a pool built from all runs (INEX pooling to ``pool_target`` documents per topic) and
  assessments of the pooled documents only, in three real formats:
  ``assessments/qrels.fol`` (2007-2010 FOL), ``assessments/inex2005/TOPIC.xml``
  (2005 highlighting XML with element exhaustivity, size and rsize),
  ``assessments/inex2006/TOPIC.xml`` (the same without exhaustivity) and
  ``assessments/inex2002/TOPIC.xml`` (2002-2004 e/s on 0..3).

With ``structure="inex2005"`` the campaign has INEX 2005's structure instead (Kazai &
Lalmas, INEX 2005 evaluation measures, section 6): CO+S topics, two thirds of them with a
``<castitle>`` (the COS topics, :func:`cos_topics`), and as many CAS topics; submissions
labelled with the ten 2005 tasks (CO/COS .Focussed, .Thorough, .FetchBrowse on their topics;
SSCAS, SVCAS, VSCAS, VVCAS on the CAS topics); and 2005 assessments in five sets:
``assessments/CO+S/TOPIC.xml`` and ``assessments/{SSCAS,SVCAS,VSCAS,VVCAS}/TOPIC.xml``. The
four CAS sets read the CAS topics' structural constraints more or less strictly: the target
``sec`` alone (SSCAS), ``sec`` and ``ss1`` (SVCAS), also ``p`` (VSCAS), every element (VVCAS)
holding highlighted text counts as relevant -- a simulation choice, not INEX's assessment
procedure, made so that the four sets rank runs differently.

With ``structure="wikipedia"`` the campaign has INEX 2007's shape: the collection is
Wikipedia-shaped (:mod:`inexflow.simulate.wikipedia`: ``collection/part-NNN/ID.xml``, about
7 KB and 150 elements per article, optionally by several processes; runs and assessments name
an article by its number ``ID``, as INEX's did), the groups submit element
runs (XML) in the four 2007 tasks (thorough, focused, relevant-in-context, best-in-context)
and focused passage runs (FOL), each group about four of these five (:func:`submits`), and
the assessments are FOL qrels only. Topics, ground truth and runs are drawn over a working
set of :data:`WIKI_WORKING_SET` articles spread over the collection (only these are
indexed), so that a campaign over the full 659,388 articles is simulated in memory.

Runs are simulated, not retrieved: each run has a quality q in [0, 1]; an element's
score is q * (its share of highlighted text, plus a document-level signal) + (1 - q) *
noise, so better runs rank relevant text higher. Everything is drawn from one
``numpy.random.Generator`` seeded by ``seed``: the same parameters give the same bytes.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from inexflow.io.atomic import write_json, write_text
from inexflow.io.canonical import DOCUMENT_COLUMNS, PASSAGE_COLUMNS, RESULT_COLUMNS, make_table
from inexflow.io.collection import INDEX_COLUMNS, index_document, index_files
from inexflow.io.qrels_fol import write_fol_qrels
from inexflow.io.run_text import fol_run_text
from inexflow.io.run_xml import write_xml_run
from inexflow.io.topics import write_topics
from inexflow.model.assessments import Assessments
from inexflow.model.pool import entries_from_first_positions, first_positions, pool_from_entries
from inexflow.model.recallbase import overlap_with_passages
from inexflow.model.runs import Run
from inexflow.model.shard_plan import document_name
from inexflow.simulate.simconfig import SETTINGS, STRUCTURES, SimulationConfig, simulation_config  # noqa: F401
from inexflow.simulate.wikipedia import doc_ids, write_collection

# the articles of a wikipedia campaign that topics, ground truth and runs are drawn from
WIKI_WORKING_SET = 2500
# the four INEX 2007 tasks' element runs and focused passage runs
WIKI_TASKS = ("thorough", "focused", "relevant-in-context", "best-in-context", "fol")
# the elements runs return, per structure
CANDIDATE_TAGS = {"wikipedia": ("article", "body", "section", "p")}

WORDS = ("retrieval evaluation element passage structure document section paragraph query topic relevance "
         "assessment judgement pool system measure precision recall gain effort ranking overlap focused "
         "thorough context article wikipedia science history music river mountain city language theory "
         "energy protein market election novel painting galaxy ocean forest climate algorithm network").split()

TASK_LABELS = {"thorough": "Thorough", "focused": "Focused", "relevant-in-context": "RelevantInContext",
               "best-in-context": "BestInContext", "fetch-browse": "FetchBrowse"}


# INEX 2005's ten tasks: label -> (scoring type, topics: CO+S, COS or CAS)
INEX2005_TASKS = {
    "CO.Focussed": ("focused", "CO+S"), "COS.Focussed": ("focused", "COS"),
    "CO.Thorough": ("thorough", "CO+S"), "COS.Thorough": ("thorough", "COS"),
    "CO.FetchBrowse": ("fetch-browse", "CO+S"), "COS.FetchBrowse": ("fetch-browse", "COS"),
    "SSCAS": ("thorough", "CAS"), "SVCAS": ("thorough", "CAS"), "VSCAS": ("thorough", "CAS"),
    "VVCAS": ("thorough", "CAS")}
# the element tags each simulated CAS assessment set counts as relevant (module docstring)
CAS_SETS = {"SSCAS": ("sec",), "SVCAS": ("sec", "ss1"), "VSCAS": ("sec", "ss1", "p"),
            "VVCAS": ("article", "bdy", "sec", "ss1", "p")}


def _words(rng, n) -> str:
    return " ".join(rng.choice(WORDS, size=n))


def make_document(rng, doc: str) -> str:
    """One article: fm/tl, bdy with 1-6 sections of 1-6 paragraphs, some with subsections."""
    parts = [f'<?xml version="1.0" encoding="UTF-8"?>\n<article id="{doc}"><fm><tl>{_words(rng, int(rng.integers(2, 7)))}'
             "</tl></fm><bdy>"]
    for _ in range(int(rng.integers(1, 7))):
        parts.append(f"<sec><st>{_words(rng, int(rng.integers(2, 6)))}</st>")
        for _ in range(int(rng.integers(1, 7))):
            parts.append(f"<p>{_words(rng, int(rng.integers(8, 90)))}</p>")
        if rng.random() < 0.3:
            parts.append(f"<ss1><st>{_words(rng, 3)}</st>")
            for _ in range(int(rng.integers(1, 4))):
                parts.append(f"<p>{_words(rng, int(rng.integers(8, 60)))}</p>")
            parts.append("</ss1>")
        parts.append("</sec>")
    parts.append("</bdy></article>\n")
    return "".join(parts)


def highlight(rng, index: pd.DataFrame) -> list[tuple[int, int]]:
    """1-2 highlighted passages in one document: runs of consecutive paragraphs."""
    paras = index[index["tag"] == "p"].sort_values("start")
    out = []
    for _ in range(1 if rng.random() < 0.6 else 2):
        i = int(rng.integers(0, len(paras)))
        j = min(len(paras), i + int(rng.integers(1, 4)))
        s, e = int(paras["start"].iloc[i]), int(paras["end"].iloc[j - 1])
        if rng.random() < 0.3:  # start inside the first paragraph
            s += int((paras["end"].iloc[i] - paras["start"].iloc[i]) * rng.uniform(0.2, 0.6))
        out.append((s, e))
    out.sort()
    merged = []
    for s, e in out:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _cas_sections(truth: pd.DataFrame, index: pd.DataFrame, cas: set) -> pd.DataFrame:
    """The CAS topics ask for sections: each of their highlighted passages grows to cover the
    whole ``sec`` it starts in, so that every CAS set has fully specific, highly exhaustive
    sections (strict quantisation) to find. Deterministic: no random draw."""
    secs = index[index["tag"] == "sec"]
    rows = []
    for (t, d), g in truth.groupby(["topic", "doc"], sort=False):
        spans = list(zip(g["start"], g["end"]))
        if t in cas:
            ds = secs[secs["doc"] == d]
            grown = []
            for s, e in spans:
                hit = ds[(ds["start"] <= s) & (s < ds["end"])]
                grown.append((int(hit["start"].iloc[0]), max(e, int(hit["end"].iloc[0]))) if len(hit) else (s, e))
            spans = []
            for s, e in sorted(grown):  # merge what now overlaps
                if spans and s <= spans[-1][1]:
                    spans[-1] = (spans[-1][0], max(spans[-1][1], e))
                else:
                    spans.append((s, e))
        rows.extend((t, d, s, e) for s, e in spans)
    return pd.DataFrame.from_records(rows, columns=list(truth.columns))


def _related(doc_idx: np.ndarray, start: np.ndarray, end: np.ndarray) -> list[list[int]]:
    """For each element (rows of one topic's candidates, grouped per document), the rows it
    overlaps in its document, itself included: its ancestors and descendants, since elements
    are non-empty and nest (two elements overlap exactly when one's xpath is a prefix of the
    other's)."""
    related: list[list[int]] = [[] for _ in range(len(doc_idx))]
    bounds = np.flatnonzero(np.diff(doc_idx)) + 1
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, len(doc_idx)]):
        s, e = start[lo:hi], end[lo:hi]
        hit = (s[:, None] < e[None, :]) & (s[None, :] < e[:, None])
        for a, b in zip(*np.nonzero(hit)):
            related[lo + a].append(int(lo + b))
    return related


def _select_non_overlapping(order, related: list[list[int]], k: int) -> list[int]:
    """Greedily the first ``k`` elements of ``order`` (local rows) overlapping none taken before."""
    blocked = bytearray(len(related))
    out = []
    for i in order:
        if blocked[i]:
            continue
        out.append(i)
        if len(out) >= k:
            break
        for j in related[i]:
            blocked[j] = 1
    return out


def _best_per_group(neg: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Rows of the smallest ``neg`` of each group (the first row among ties); ``group`` is
    non-decreasing (each group's rows together)."""
    bounds = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    low = np.minimum.reduceat(neg, bounds)
    hit = np.flatnonzero(neg == np.repeat(low, np.diff(np.r_[bounds, len(neg)])))
    return hit[np.r_[True, np.diff(group[hit]) != 0]]


def _grouped_by_first(keys: np.ndarray, *then: np.ndarray) -> np.ndarray:
    """The stable order putting together the items of one key, keys in order of first occurrence
    (then by ``then``, the last array the primary among them)."""
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    return np.lexsort((*then, first[inv]))


def _top(neg: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` of ``np.argsort(neg, kind="stable")``, without sorting everything."""
    if k >= len(neg):
        return np.argsort(neg, kind="stable")
    thr = neg[np.argpartition(neg, k - 1)[:k]].max()
    cand = np.flatnonzero(neg <= thr)  # every tie at the threshold, in index order
    return cand[np.argsort(neg[cand], kind="stable")][:k]


def _selection(task: str, neg: np.ndarray, k: int, doc: np.ndarray, start: np.ndarray, related) -> np.ndarray:
    """One topic's results of a simulated run (local rows, in rank order) from its elements'
    negated scores: the best ``k`` (thorough); grouped per article, best article first
    (fetch-browse); the best element of each article (best-in-context); the best
    non-overlapping ones (focused), grouped per article in document order (relevant-in-context).
    Only as deep a prefix of the ranking is sorted as the selection reads."""
    if task in ("thorough", "fetch-browse"):
        sel = _top(neg, k)
        return sel[_grouped_by_first(doc[sel])] if task == "fetch-browse" else sel
    if task == "best-in-context":  # each article's first element in the ranking, articles in ranking order
        best = _best_per_group(neg, doc)
        return best[_top(neg[best], k)]
    depth = min(len(neg), 2 * k)
    while True:
        sel = np.asarray(_select_non_overlapping(_top(neg, depth).tolist(), related, k), dtype=np.int64)
        if len(sel) >= k or depth >= len(neg):
            break
        depth = min(len(neg), 2 * depth)
    if task == "relevant-in-context":
        sel = sel[_grouped_by_first(doc[sel], start[sel])]
    return sel


def _topic_ids(cfg: SimulationConfig) -> list[str]:
    """Every topic: the demo's, or 2005's CO+S topics (202...) then as many CAS topics."""
    if cfg.structure == "inex2005":
        return [str(202 + i) for i in range(2 * cfg.n_topics)]
    return [f"{2009001 + i}" for i in range(cfg.n_topics)]


def cos_topics(cfg: SimulationConfig) -> list[str]:
    """The COS topics of an ``inex2005`` campaign: the CO+S topics with a ``<castitle>``
    (every one but each third), the POOLS of the COS tasks."""
    return [str(202 + i) for i in range(cfg.n_topics) if i % 3 != 2]


def topic_group(cfg: SimulationConfig, which: str) -> list[str]:
    """The topics of ``which``: ``all``, ``CO+S``, ``COS`` or ``CAS``."""
    if which == "COS":
        return cos_topics(cfg)
    ids = _topic_ids(cfg)
    return {"all": ids, "CO+S": ids[:cfg.n_topics], "CAS": ids[cfg.n_topics:]}[which]


def run_kinds(cfg: SimulationConfig) -> list[tuple[str, str, str, str]]:
    """The kinds of run each group submits: (file-name key, scoring type, submission task
    label, topics: see :func:`topic_group`); key ``fol`` is an 8-column FOL text run."""
    if cfg.structure not in STRUCTURES:
        raise ValueError(f"unknown structure {cfg.structure!r} (one of {', '.join(STRUCTURES)})")
    if cfg.structure == "inex2005":
        return [(label.lower().replace(".", "-"), kind, label, topics)
                for label, (kind, topics) in INEX2005_TASKS.items()]
    tasks = WIKI_TASKS if cfg.structure == "wikipedia" else cfg.tasks
    return [(t, "focused" if t == "fol" else t, TASK_LABELS["focused" if t == "fol" else t], "all")
            for t in tasks]


def submits(cfg: SimulationConfig, g: int, key: str) -> bool:
    """Whether group ``g`` submits runs of kind ``key``: every kind, but in a ``wikipedia``
    campaign each group leaves out one or two of the five (group g the kinds g mod 5 and, unless
    g mod 5 is 2, (g + 2) mod 5): four fifths of the groups submit three kinds, the others four,
    about 80 runs from 25 groups as in INEX 2007."""
    if cfg.structure != "wikipedia":
        return True
    k = WIKI_TASKS.index(key)
    return k != g % 5 and (g % 5 == 2 or k != (g + 2) % 5)


def _run_file(g: int, key: str, r: int) -> tuple[str, str, str]:
    """(file name, run id, group) of run ``r`` of group ``g`` of kind ``key`` (``fol``: an 8-column text run)."""
    group = f"g{g + 1:02d}"
    run_id = f"{group}-{key}-{r + 1}"
    return f"{run_id}.{'txt' if key == 'fol' else 'xml'}", run_id, group


def assessment_files(out: Path, cfg: SimulationConfig) -> dict[str, str]:
    """Every assessment file of the campaign, with its format."""
    if cfg.structure == "inex2005":
        return {str(out / "assessments" / s / f"{t}.xml"): "inex2005"
                for s, group in (("CO+S", "CO+S"), *((s, "CAS") for s in CAS_SETS)) for t in topic_group(cfg, group)}
    if cfg.structure == "wikipedia":
        return {str(out / "assessments" / "qrels.fol"): "fol"}
    return {str(out / "assessments" / "qrels.fol"): "fol"} | {
        str(out / "assessments" / kind / f"{t}.xml"): kind for kind in ("inex2002", "inex2005", "inex2006")
        for t in _topic_ids(cfg)}


def planned_files(outdir, cfg: SimulationConfig) -> dict:
    """The files :func:`simulate` writes for ``cfg``, known without simulating: ``marker``
    (``campaign.json``, written last), ``topics``, ``assessments`` (every file) and ``runs``
    ({path: what :func:`inexflow.campaign.config.sniff_run` will read in it: the XML ``task_label`` and
    ``participant``, nothing for a text run}) and ``formats`` ({assessment file: its format}). The
    workflow plans a missing demo campaign with it."""
    if cfg.max_runs is not None:
        raise ValueError("a campaign with max_runs (a seeded selection of runs) cannot be planned before it is made")
    out = Path(outdir)
    formats = assessment_files(out, cfg)
    runs = {}
    for g in range(cfg.n_groups):
        for key, _, label, _ in run_kinds(cfg):
            if not submits(cfg, g, key):
                continue
            for r in range(cfg.runs_per_group):
                name, _, group = _run_file(g, key, r)
                runs[str(out / "runs" / name)] = {} if key == "fol" else {"task_label": label, "participant": group}
    return {"marker": str(out / "campaign.json"), "topics": str(out / "topics.xml"),
            "assessments": list(formats), "formats": formats, "runs": runs}


def simulate(outdir, cfg: SimulationConfig | None = None, progress=None, processes: int | None = None) -> dict:
    """Write a complete campaign to ``outdir``; returns a summary dict (also ``campaign.json``).

    ``progress(what, done, total)``, if given, is called as the work advances (``inexflow
    simulate`` shows it on a terminal); each phase is also logged at info level. A
    ``wikipedia`` collection is written by ``processes`` processes (default one); the bytes
    written do not depend on it."""
    cfg = cfg or SimulationConfig()
    log = logging.getLogger("inexflow")

    def advance(what, done, total):
        if progress is not None:
            progress(what, done, total)
        if done == total:
            log.info("simulate: %d %s", total, what)
    out = Path(outdir)
    rng = np.random.default_rng(cfg.seed)
    indexes = []
    stats = None
    if cfg.structure == "wikipedia":
        stats = write_collection(out / "collection", cfg.n_docs, cfg.seed, processes,
                                 lambda done, total: advance("documents written", done, total))
        every = doc_ids(cfg.n_docs)
        pick = np.sort(rng.choice(cfg.n_docs, size=min(cfg.n_docs, WIKI_WORKING_SET), replace=False))
        paths = [out / "collection" / f"{every[i]}.xml" for i in pick]
        docs = [document_name(every[i]) for i in pick]  # runs and assessments name articles by number
        del every
        table = index_files(zip(docs, paths))
        indexes.extend(zip(*(table[c].to_pylist() for c in INDEX_COLUMNS)))
        advance("working-set documents indexed", len(docs), len(docs))
    else:
        docs = [f"{1000 + i}" for i in range(cfg.n_docs)]
        for i, d in enumerate(docs, 1):
            text = make_document(rng, d)
            p = out / "collection" / f"{d}.xml"
            write_text(text, p)
            indexes.extend(index_document(p, d))
            advance("documents written", i, len(docs))
    index = pd.DataFrame.from_records(indexes, columns=["doc", "xpath", "tag", "start", "end", "depth", "parent"])
    by_doc = {d: g for d, g in index.groupby("doc", sort=False)}

    kinds = run_kinds(cfg)
    topics = _topic_ids(cfg)
    n = len(topics)
    titles = [_words(rng, 3) for _ in topics]
    castitles = [f"//article[about(., {_words(rng, 2)})]//sec[about(., {_words(rng, 2)})]" for _ in topics]
    types = ["CO+S"] * n
    if cfg.structure == "inex2005":  # CO+S topics without castitle are not COS; the CAS topics
        cos, cas = set(cos_topics(cfg)), set(topic_group(cfg, "CAS"))
        castitles = [c if t in cos or t in cas else "" for t, c in zip(topics, castitles)]
        types = ["CAS" if t in cas else "CO+S" for t in topics]
    write_topics(pd.DataFrame({
        "topic": topics, "ct_no": [str(100 + i) for i in range(n)], "type": types,
        "title": titles, "castitle": castitles,
        "description": [_words(rng, 10) for _ in topics], "narrative": [_words(rng, 25) for _ in topics]}),
        out / "topics.xml")

    truth = []  # topic, doc, start, end
    for t in topics:
        n = int(rng.integers(cfg.rel_docs_per_topic[0], cfg.rel_docs_per_topic[1] + 1))
        for d in rng.choice(docs, size=n, replace=False):
            truth.extend((t, str(d), s, e) for s, e in highlight(rng, by_doc[str(d)]))
    truth_df = pd.DataFrame.from_records(truth, columns=["topic", "doc", "start", "end"])
    if cfg.structure == "inex2005":
        truth_df = _cas_sections(truth_df, index, set(topic_group(cfg, "CAS")))

    # every (topic, element) with its highlighted share: the signal runs are built from. Every
    # topic has the same candidates (the elements of these tags), in the same order, so they
    # are kept once; row i * m + j is candidate j of topic i. Only the highlighted characters
    # differ, computed topic by topic
    tags = CANDIDATE_TAGS.get(cfg.structure, ("article", "bdy", "sec", "ss1", "p"))
    base = index[index["tag"].isin(tags)].reset_index(drop=True)
    m, nt = len(base), len(topics)
    base_doc, base_docs = pd.factorize(base["doc"])
    rsize = np.zeros(nt * m, dtype=np.int64)
    docrel = np.zeros(nt * m, dtype=bool)
    truth_of = dict(iter(truth_df.groupby("topic", sort=False)))
    for i, t in enumerate(topics):
        if t in truth_of:
            r = overlap_with_passages(base.assign(topic=t), truth_of[t])
            best = np.zeros(len(base_docs), dtype=np.int64)
            np.maximum.at(best, base_doc, r)
            rsize[i * m:(i + 1) * m] = r
            docrel[i * m:(i + 1) * m] = best[base_doc] > 0  # a document with highlighted text
    size = np.tile((base["end"] - base["start"]).to_numpy(), nt)
    spec = rsize / np.maximum(size, 1)
    cand_xpath = base["xpath"].to_numpy()
    cand_start = np.tile(base["start"].to_numpy(np.int64), nt)
    cand_doc_idx = np.tile(pd.Index(docs).get_indexer(base["doc"].to_numpy()), nt)
    topic_rows = {t: np.arange(i * m, (i + 1) * m) for i, t in enumerate(topics)}
    first = topic_rows[topics[0]]
    related = _related(cand_doc_idx[first], cand_start[first], cand_start[first] + size[first])
    xpath_code, xpaths = pd.factorize(cand_xpath[first])
    xpaths = list(xpaths)
    rsv_of_rank = np.array([round(1.0 / r, 6) for r in range(1, cfg.results_per_topic + 1)])

    # file name -> the run's first positions: each run is written as soon as it is made, and
    # only what pooling needs is kept
    firstpos: dict[str, pd.DataFrame] = {}
    wanted = [(g, key, r) for g in range(cfg.n_groups) for key, *_ in kinds for r in range(cfg.runs_per_group)
              if submits(cfg, g, key)]
    if cfg.max_runs is not None and cfg.max_runs < len(wanted):
        pick = rng.permutation(len(wanted))[:cfg.max_runs]
        wanted = [wanted[i] for i in sorted(pick)]
    wanted = set(wanted)
    for g in range(cfg.n_groups):
        base_q = rng.uniform(0.1, 0.7)
        # each group favours its own fifth of the collection (its "sources"): the documents only
        # one group ranks high make pools depend on who contributed (leave-one-group-out effects)
        favoured = (rng.random(len(docs)) < 0.2)[cand_doc_idx]
        for key, task, label, which in kinds:
            for r in range(cfg.runs_per_group):
                if (g, key, r) not in wanted:
                    continue
                q = float(np.clip(base_q + rng.normal(0, 0.08), 0.02, 0.98))
                file_name, run_id, group = _run_file(g, key, r)
                tops, sels = [], []
                for t in topic_group(cfg, which):
                    ix = topic_rows[t]
                    score = q * (spec[ix] + 0.5 * docrel[ix]) + (1 - q) * 2.5 * rng.random(len(ix)) \
                        + 0.8 * favoured[ix]
                    sel = ix[_selection(task, -score, cfg.results_per_topic, cand_doc_idx[ix], cand_start[ix],
                                        related)]
                    tops.append(t)
                    sels.append(sel)
                res = _results(tops, sels, key == "fol", m, cand_doc_idx, docs, xpath_code, xpaths, cand_start, size,
                               rsv_of_rank)
                run = Run(run_id, group, task, "sim", "", res)
                firstpos[file_name] = first_positions(res)
                advance("runs simulated", len(firstpos), len(wanted))
                p = out / "runs" / file_name
                if file_name.endswith(".txt"):
                    write_text(fol_run_text(run), p)
                else:
                    write_xml_run(run, p, label)
                advance("runs written", len(firstpos), len(wanted))
                del run, res

    pool, depths = pool_from_entries(entries_from_first_positions(firstpos), target=cfg.pool_target)
    pooled = set(zip(pool["topic"], pool["doc"]))
    assessed = truth_df[[k in pooled for k in zip(truth_df["topic"], truth_df["doc"])]]
    if cfg.structure == "inex2005":
        _write_inex2005_sets(out, assessed, pool, index, cfg)
    else:
        _write_assessments(out, assessed, pool, index, topics, elements=cfg.structure != "wikipedia")
    summary = {"config": asdict(cfg), "documents": cfg.n_docs, "topics": len(topics), "runs": len(firstpos),
               "relevant_documents": int(truth_df[["topic", "doc"]].drop_duplicates().shape[0]),
               "pooled_relevant_documents": int(assessed[["topic", "doc"]].drop_duplicates().shape[0]),
               "pool_size": int(len(pool))}
    if stats is not None:  # the collection's bytes and elements (the working set's only were indexed)
        summary["collection"] = stats
    advance("assessment sets written", 1, 1)
    write_json(summary, out / "campaign.json")
    return summary


def _results(topics, sels, fol: bool, m: int, doc_code, docs, xpath_code, xpaths, start, size,
             rsv_of_rank) -> pd.DataFrame:
    """A simulated run's result table: each topic's selected candidates (rows of ``m`` per
    topic) in rank order, as character ranges (an FOL run) or xpaths. Topic, document and xpath
    are categorical (codes of the candidates), which the writers and the pool factorise at
    no cost."""
    sel = np.concatenate(sels) if sels else np.zeros(0, dtype=np.int64)
    n = len(sel)
    rank = np.concatenate([np.arange(1, len(x) + 1) for x in sels]) if sels else np.zeros(0, dtype=np.int64)
    none = np.full(n, -1, dtype=np.int64)
    cat = pd.Categorical.from_codes
    return pd.DataFrame({
        "topic": cat(np.repeat(np.arange(len(topics)), [len(x) for x in sels]), topics),
        "doc": cat(doc_code[sel], docs),
        "xpath": cat(np.zeros(n, dtype=np.int64), [""]) if fol else cat(xpath_code[sel % m], xpaths),
        "offset": start[sel] if fol else none, "length": size[sel].astype(np.int64) if fol else none,
        "rank": rank.astype(np.int64), "rsv": rsv_of_rank[rank - 1], "line": np.zeros(n, dtype=np.int64)},
        columns=list(RESULT_COLUMNS))


def _pooled_elements(truth: pd.DataFrame, pool: pd.DataFrame, index: pd.DataFrame) -> pd.DataFrame:
    """Every element of a pooled document holding highlighted text, with size and rsize."""
    els = pool[["topic", "doc"]].merge(index[["doc", "xpath", "tag", "start", "end"]], on="doc")
    els["rsize"] = overlap_with_passages(els, truth)
    els["size"] = els["end"] - els["start"]
    return els[els["rsize"] > 0]


def _by_topic_doc(els: pd.DataFrame) -> dict:
    """(topic, doc) -> its elements as (xpath, start, size, rsize) tuples, in table order."""
    out: dict = {}
    for t, d, x, st, sz, rs in zip(els["topic"].tolist(), els["doc"].tolist(), els["xpath"].tolist(),
                                   els["start"].tolist(), els["size"].tolist(), els["rsize"].tolist()):
        out.setdefault((t, d), []).append((x, st, sz, rs))
    return out


def _pool_docs(pool: pd.DataFrame) -> dict:
    """topic -> its pooled documents, in pool order."""
    out: dict = {}
    for t, d in zip(pool["topic"].tolist(), pool["doc"].tolist()):
        out.setdefault(t, []).append(d)
    return out


def _inex2005_xml(topic: str, docs, els: dict, exhaustivity=True) -> str:
    """One topic's 2005 assessment file (2006 without ``exhaustivity``): every pooled document,
    its best entry point and its relevant elements (``els``: :func:`_by_topic_doc`)."""
    x = [f'<?xml version="1.0" encoding="UTF-8"?>\n<assessments topic="{topic}" version="sim-1">\n']
    for d in docs:
        g = els.get((topic, d), ())
        x.append(f'  <file name="{d}" collection="sim">\n')
        if g:
            # the deepest element starting first among those holding highlighted text
            bep = min(g, key=lambda e: (e[1], -len(e[0])))
            x.append(f'    <best-entry-point path="{bep[0]}"/>\n')
        for xpath, _, size, rsize in g:
            e05 = "?" if size < 40 else ("2" if rsize >= 300 else "1")
            ex = f' exhaustivity="{e05}"' if exhaustivity else ""
            x.append(f'    <element path="{xpath}"{ex} size="{size}" rsize="{rsize}"/>\n')
        x.append("  </file>\n")
    x.append("</assessments>\n")
    return "".join(x)


def _inex2002_xml(topic: str, docs, els: dict) -> str:
    """One topic's 2002-2004 assessment file: e and s on 0..3 from rsize and the highlighted share."""
    x = [f'<?xml version="1.0" encoding="UTF-8"?>\n<assessments topic="{topic}">\n']
    for d in docs:
        x.append(f'  <file file="{d}">\n')
        for xpath, _, size, rsize in els.get((topic, d), ()):
            sp = rsize / size
            s02 = 3 if sp >= 0.95 else (2 if sp >= 0.5 else 1)
            e02 = 3 if rsize >= 600 else (2 if rsize >= 200 else 1)
            x.append(f"    <path path='{xpath}' exhaustiveness='{e02}' specificity='{s02}'/>\n")
        x.append("  </file>\n")
    x.append("</assessments>\n")
    return "".join(x)


def _write_assessments(out: Path, truth: pd.DataFrame, pool: pd.DataFrame, index: pd.DataFrame, topics,
                       elements: bool = True):
    doclen = index[index["depth"] == 1].set_index("doc")["end"]
    passages = [(t, d, s, e - s, "", "") for t, d, s, e in truth.itertuples(index=False)]
    per_doc = truth.assign(_n=truth["end"] - truth["start"]).groupby(["topic", "doc"], sort=False).agg(
        rel=("_n", "sum"), first=("start", "min"))
    docs = [(t, d, int(n), int(doclen[d]), int(f), "") for (t, d), n, f in
            zip(per_doc.index, per_doc["rel"].tolist(), per_doc["first"].tolist())]
    fol = Assessments("fol", "simulated", passages=make_table(passages, PASSAGE_COLUMNS),
                      documents=make_table(docs, DOCUMENT_COLUMNS))
    write_fol_qrels(fol, out / "assessments" / "qrels.fol")
    if not elements:
        return

    # element assessments of every pooled document (2005 and 2002-2004 scales)
    els = _by_topic_doc(_pooled_elements(truth, pool, index))
    pooled = _pool_docs(pool)
    for t in topics:
        tdocs = pooled.get(t, [])
        write_text(_inex2005_xml(t, tdocs, els), out / "assessments" / "inex2005" / f"{t}.xml")
        write_text(_inex2002_xml(t, tdocs, els), out / "assessments" / "inex2002" / f"{t}.xml")
        write_text(_inex2005_xml(t, tdocs, els, exhaustivity=False), out / "assessments" / "inex2006" / f"{t}.xml")


def _write_inex2005_sets(out: Path, truth: pd.DataFrame, pool: pd.DataFrame, index: pd.DataFrame,
                         cfg: SimulationConfig):
    """INEX 2005's assessment sets: CO+S (every relevant element) and the four CAS sets
    (:data:`CAS_SETS`: the element tags each counts as relevant)."""
    els = _pooled_elements(truth, pool, index)
    pooled = _pool_docs(pool)
    sets = {"CO+S": (topic_group(cfg, "CO+S"), None)} | {s: (topic_group(cfg, "CAS"), tags)
                                                         for s, tags in CAS_SETS.items()}
    for name, (topics, tags) in sets.items():
        kept = _by_topic_doc(els[els["tag"].isin(tags)] if tags else els)
        for t in topics:
            write_text(_inex2005_xml(t, pooled.get(t, []), kept), out / "assessments" / name / f"{t}.xml")
