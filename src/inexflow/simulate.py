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

Runs are simulated, not retrieved: each run has a quality q in [0, 1]; an element's
score is q * (its share of highlighted text, plus a document-level signal) + (1 - q) *
noise, so better runs rank relevant text higher. Everything is drawn from one
``numpy.random.Generator`` seeded by ``seed``: the same parameters give the same bytes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from inexflow.formats.assessments import DOCUMENT_COLUMNS, PASSAGE_COLUMNS, Assessments, make_table
from inexflow.formats.collection import index_document
from inexflow.formats.qrels_fol import write_fol_qrels
from inexflow.formats.run_text import fol_run_text
from inexflow.formats.run_xml import write_xml_run
from inexflow.formats.runs import RESULT_COLUMNS, Run
from inexflow.formats.topics import write_topics
from inexflow.pool import build_pool
from inexflow.recallbase import overlap_with_passages
from inexflow.tables import write_json, write_text

WORDS = ("retrieval evaluation element passage structure document section paragraph query topic relevance "
         "assessment judgement pool system measure precision recall gain effort ranking overlap focused "
         "thorough context article wikipedia science history music river mountain city language theory "
         "energy protein market election novel painting galaxy ocean forest climate algorithm network").split()

TASK_LABELS = {"thorough": "Thorough", "focused": "Focused", "relevant-in-context": "RelevantInContext",
               "best-in-context": "BestInContext", "fetch-browse": "FetchBrowse"}


@dataclass
class SimulationConfig:
    seed: int = 42
    n_docs: int = 150
    n_topics: int = 10
    n_groups: int = 4
    runs_per_group: int = 1          # per task
    results_per_topic: int = 100     # maximum list length
    rel_docs_per_topic: tuple = (4, 12)
    pool_target: int = 40
    tasks: tuple = ("thorough", "focused", "relevant-in-context", "best-in-context", "fetch-browse", "fol")
    max_runs: int | None = None      # keep a seeded selection of this many (group, task) runs


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


def _select_non_overlapping(order: np.ndarray, xpaths: np.ndarray, docs: np.ndarray, k: int) -> list[int]:
    taken: dict[str, list[str]] = {}
    out = []
    for i in order:
        d, x = docs[i], xpaths[i]
        if any(x == y or x.startswith(y + "/") or y.startswith(x + "/") for y in taken.get(d, ())):
            continue
        taken.setdefault(d, []).append(x)
        out.append(int(i))
        if len(out) >= k:
            break
    return out


# the keys of the workflow config's ``simulate:`` block and of ``inexflow simulate``'s options
SETTINGS = {"seed": "seed", "docs": "n_docs", "topics": "n_topics", "groups": "n_groups",
            "runs_per_group": "runs_per_group", "results": "results_per_topic", "pool_target": "pool_target",
            "max_runs": "max_runs"}


def simulation_config(settings: dict) -> SimulationConfig:
    """A :class:`SimulationConfig` from the settings named as in :data:`SETTINGS` (missing
    ones keep their defaults; ``out`` is ignored)."""
    return SimulationConfig(**{SETTINGS[k]: v for k, v in settings.items() if k in SETTINGS and v is not None})


def _topic_ids(cfg: SimulationConfig) -> list[str]:
    return [f"{2009001 + i}" for i in range(cfg.n_topics)]


def _run_file(g: int, task: str, r: int) -> tuple[str, str, str]:
    """(file name, run id, group) of run ``r`` of group ``g`` for ``task`` (``fol``: an 8-column text run)."""
    group = f"g{g + 1:02d}"
    run_id = f"{group}-{task}-{r + 1}"
    return f"{run_id}.{'txt' if task == 'fol' else 'xml'}", run_id, group


def planned_files(outdir, cfg: SimulationConfig) -> dict:
    """The files :func:`simulate` writes for ``cfg``, known without simulating: ``marker``
    (``campaign.json``, written last), ``topics``, ``assessments`` (every file) and ``runs``
    ({path: (task, participant)}). The workflow plans a missing demo campaign with it."""
    if cfg.max_runs is not None:
        raise ValueError("a campaign with max_runs (a seeded selection of runs) cannot be planned before it is made")
    out = Path(outdir)
    runs = {}
    for g in range(cfg.n_groups):
        for task in cfg.tasks:
            for r in range(cfg.runs_per_group):
                name, _, group = _run_file(g, task, r)
                runs[str(out / "runs" / name)] = ("focused" if task == "fol" else task, group)
    assessments = [str(out / "assessments" / "qrels.fol")] + [
        str(out / "assessments" / kind / f"{t}.xml") for kind in ("inex2002", "inex2005", "inex2006")
        for t in _topic_ids(cfg)]
    return {"marker": str(out / "campaign.json"), "topics": str(out / "topics.xml"), "assessments": assessments,
            "runs": runs}


def simulate(outdir, cfg: SimulationConfig | None = None) -> dict:
    """Write a complete campaign to ``outdir``; returns a summary dict (also ``campaign.json``)."""
    cfg = cfg or SimulationConfig()
    out = Path(outdir)
    rng = np.random.default_rng(cfg.seed)
    docs = [f"{1000 + i}" for i in range(cfg.n_docs)]
    indexes = []
    for d in docs:
        text = make_document(rng, d)
        p = out / "collection" / f"{d}.xml"
        write_text(text, p)
        indexes.extend(index_document(p, d))
    index = pd.DataFrame.from_records(indexes, columns=["doc", "xpath", "tag", "start", "end", "depth", "parent"])
    by_doc = {d: g for d, g in index.groupby("doc", sort=False)}

    topics = _topic_ids(cfg)
    write_topics(pd.DataFrame({
        "topic": topics, "ct_no": [str(100 + i) for i in range(cfg.n_topics)],
        "type": ["CO+S"] * cfg.n_topics,
        "title": [_words(rng, 3) for _ in topics],
        "castitle": [f"//article[about(., {_words(rng, 2)})]//sec[about(., {_words(rng, 2)})]" for _ in topics],
        "description": [_words(rng, 10) for _ in topics], "narrative": [_words(rng, 25) for _ in topics]}),
        out / "topics.xml")

    truth = []  # topic, doc, start, end
    for t in topics:
        n = int(rng.integers(cfg.rel_docs_per_topic[0], cfg.rel_docs_per_topic[1] + 1))
        for d in rng.choice(docs, size=n, replace=False):
            truth.extend((t, str(d), s, e) for s, e in highlight(rng, by_doc[str(d)]))
    truth_df = pd.DataFrame.from_records(truth, columns=["topic", "doc", "start", "end"])

    # every (topic, element) with its highlighted share: the signal runs are built from
    cand = pd.concat([index.assign(topic=t) for t in topics], ignore_index=True)
    cand = cand[cand["tag"].isin(["article", "bdy", "sec", "ss1", "p"])].reset_index(drop=True)
    cand["rsize"] = overlap_with_passages(cand, truth_df)
    size = (cand["end"] - cand["start"]).to_numpy()
    spec = cand["rsize"].to_numpy() / np.maximum(size, 1)
    docrel = cand.groupby(["topic", "doc"])["rsize"].transform("max").to_numpy() > 0
    cand_topic = cand["topic"].to_numpy()
    cand_doc = cand["doc"].to_numpy()
    cand_xpath = cand["xpath"].to_numpy()
    cand_doc_idx = pd.Index(docs).get_indexer(cand_doc)
    topic_rows = {t: np.flatnonzero(cand_topic == t) for t in topics}

    runs: dict[str, tuple[Run, str]] = {}  # file name -> (run, task)
    tasks = [t for t in cfg.tasks]
    wanted = [(g, task, r) for g in range(cfg.n_groups) for task in tasks for r in range(cfg.runs_per_group)]
    if cfg.max_runs is not None and cfg.max_runs < len(wanted):
        pick = rng.permutation(len(wanted))[:cfg.max_runs]
        wanted = [wanted[i] for i in sorted(pick)]
    wanted = set(wanted)
    for g in range(cfg.n_groups):
        base_q = rng.uniform(0.1, 0.7)
        # each group favours its own fifth of the collection (its "sources"): the documents only
        # one group ranks high make pools depend on who contributed (leave-one-group-out effects)
        favoured = (rng.random(len(docs)) < 0.2)[cand_doc_idx]
        for task in tasks:
            for r in range(cfg.runs_per_group):
                if (g, task, r) not in wanted:
                    continue
                q = float(np.clip(base_q + rng.normal(0, 0.08), 0.02, 0.98))
                file_name, run_id, group = _run_file(g, task, r)
                rows = []
                for t in topics:
                    ix = topic_rows[t]
                    score = q * (spec[ix] + 0.5 * docrel[ix]) + (1 - q) * 2.5 * rng.random(len(ix)) \
                        + 0.8 * favoured[ix]
                    order = ix[np.argsort(-score, kind="stable")]
                    k = cfg.results_per_topic
                    if task == "thorough":
                        sel = list(order[:k])
                    elif task == "fetch-browse":  # thorough elements grouped per article, best article first
                        sel = list(order[:k])
                        first = {}
                        for pos, i in enumerate(sel):
                            first.setdefault(cand_doc[i], pos)
                        sel.sort(key=lambda i: first[cand_doc[i]])
                    elif task == "best-in-context":
                        seen, sel = set(), []
                        for i in order:
                            if cand_doc[i] not in seen:
                                seen.add(cand_doc[i])
                                sel.append(int(i))
                            if len(sel) >= k:
                                break
                    else:
                        sel = _select_non_overlapping(order, cand_xpath, cand_doc, k)
                        if task == "relevant-in-context":
                            first = {}
                            for pos, i in enumerate(sel):
                                first.setdefault(cand_doc[i], pos)
                            sel.sort(key=lambda i: (first[cand_doc[i]], int(cand["start"].iat[i])))
                    for rank, i in enumerate(sel, 1):
                        fol = task == "fol"
                        rows.append((t, cand_doc[i], "" if fol else cand_xpath[i],
                                     int(cand["start"].iat[i]) if fol else -1,
                                     int(size[i]) if fol else -1, rank, float(round(1.0 / rank, 6)), 0))
                res = pd.DataFrame.from_records(rows, columns=list(RESULT_COLUMNS))
                real_task = "focused" if task == "fol" else task
                runs[file_name] = (
                    Run(run_id, group, real_task, "sim", "", res), task)

    for name, (run, task) in runs.items():
        p = out / "runs" / name
        if task == "fol":
            write_text(fol_run_text(run), p)
        else:
            write_xml_run(run, p, TASK_LABELS[task])

    pool, depths = build_pool({n: r.results for n, (r, _) in runs.items()}, target=cfg.pool_target)
    pooled = set(zip(pool["topic"], pool["doc"]))
    assessed = truth_df[[k in pooled for k in zip(truth_df["topic"], truth_df["doc"])]]
    _write_assessments(out, assessed, pool, index, topics)
    summary = {"config": asdict(cfg), "documents": len(docs), "topics": len(topics), "runs": len(runs),
               "relevant_documents": int(truth_df[["topic", "doc"]].drop_duplicates().shape[0]),
               "pooled_relevant_documents": int(assessed[["topic", "doc"]].drop_duplicates().shape[0]),
               "pool_size": int(len(pool))}
    write_json(summary, out / "campaign.json")
    return summary


def _write_assessments(out: Path, truth: pd.DataFrame, pool: pd.DataFrame, index: pd.DataFrame, topics):
    doclen = index[index["depth"] == 1].set_index("doc")["end"]
    passages = [(t, d, s, e - s, "", "") for t, d, s, e in truth.itertuples(index=False)]
    docs = []
    for (t, d), g in truth.groupby(["topic", "doc"], sort=False):
        docs.append((t, d, int((g["end"] - g["start"]).sum()), int(doclen[d]), int(g["start"].min()), ""))
    fol = Assessments("fol", "simulated", passages=make_table(passages, PASSAGE_COLUMNS),
                      documents=make_table(docs, DOCUMENT_COLUMNS))
    write_fol_qrels(fol, out / "assessments" / "qrels.fol")

    # element assessments of every pooled document (2005 and 2002-2004 scales)
    pdocs = pool[["topic", "doc"]]
    els = pdocs.merge(index[["doc", "xpath", "start", "end"]], on="doc")
    els["rsize"] = overlap_with_passages(els, truth)
    els["size"] = els["end"] - els["start"]
    els = els[els["rsize"] > 0]
    for t in topics:
        x05 = [f'<?xml version="1.0" encoding="UTF-8"?>\n<assessments topic="{t}" version="sim-1">\n']
        x06 = [x05[0]]
        x02 = [f'<?xml version="1.0" encoding="UTF-8"?>\n<assessments topic="{t}">\n']
        for d in pool.loc[pool["topic"] == t, "doc"]:
            g = els[(els["topic"] == t) & (els["doc"] == d)]
            x05.append(f'  <file name="{d}" collection="sim">\n')
            x06.append(f'  <file name="{d}" collection="sim">\n')
            x02.append(f'  <file file="{d}">\n')
            if len(g):
                # the deepest element starting first among those holding highlighted text
                bep = g.assign(_d=-g["xpath"].str.len()).sort_values(["start", "_d"]).iloc[0]
                x05.append(f'    <best-entry-point path="{bep.xpath}"/>\n')
                x06.append(f'    <best-entry-point path="{bep.xpath}"/>\n')
            for r in g.itertuples():
                e05 = "?" if r.size < 40 else ("2" if r.rsize >= 300 else "1")
                x05.append(f'    <element path="{r.xpath}" exhaustivity="{e05}" size="{r.size}" rsize="{r.rsize}"/>\n')
                x06.append(f'    <element path="{r.xpath}" size="{r.size}" rsize="{r.rsize}"/>\n')
                sp = r.rsize / r.size
                s02 = 3 if sp >= 0.95 else (2 if sp >= 0.5 else 1)
                e02 = 3 if r.rsize >= 600 else (2 if r.rsize >= 200 else 1)
                x02.append(f"    <path path='{r.xpath}' exhaustiveness='{e02}' specificity='{s02}'/>\n")
            x05.append("  </file>\n")
            x06.append("  </file>\n")
            x02.append("  </file>\n")
        x05.append("</assessments>\n")
        x06.append("</assessments>\n")
        x02.append("</assessments>\n")
        write_text("".join(x05), out / "assessments" / "inex2005" / f"{t}.xml")
        write_text("".join(x02), out / "assessments" / "inex2002" / f"{t}.xml")
        write_text("".join(x06), out / "assessments" / "inex2006" / f"{t}.xml")
