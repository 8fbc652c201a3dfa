"""Re-scoring focused passage runs when only a subset of the relevant documents is judged
relevant (pool sampling, pool-depth reduction, leave-one-group-out), from cached data.

:class:`JudgedRuns` computes once, for every run and result, the result's size and the
highlighted characters it retrieves, and the index of its document among the topic's
relevant documents. A judgement "mask" (which relevant documents stay relevant) then
re-scores every run without touching the run files again: results in documents that are
no longer relevant retrieve 0 highlighted characters, Trel drops to the kept documents'
highlighted characters, and iP/AiP follow :mod:`inexflow.measures.passage`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from inexflow.formats.assessments import Assessments
from inexflow.measures import in_evaluation_order
from inexflow.measures.passage import interpolated_precision, passage_results
from inexflow.recallbase import normalised_passages, overlap_with_passages

# per-topic measure -> the interpolated-precision level it reads (None = AiP, the mean)
PASSAGE_MEASURES = {"AiP": None, "iP[0.00]": 0, "iP[0.01]": 1, "iP[0.05]": 5, "iP[0.10]": 10}


def labelled(names) -> tuple[list[str], Callable]:
    """The per-topic measures the analyses compute for the configured ``names`` (``MAiP`` ->
    ``AiP``), and a function that names a table's ``measure`` column as the config does, so
    one measure has one name in every analysis table."""
    from inexflow.measures.catalogue import per_topic_name

    per_topic = [per_topic_name(m) for m in names]
    back = dict(zip(per_topic, names))

    def relabel(df):
        return df.assign(measure=df["measure"].map(lambda m: back.get(m, m))) if len(df) else df

    return per_topic, relabel


def analysis_measures() -> list[str]:
    """The measure names the re-judging analyses can compute (config ``analysis.measures``):
    the passage measures below and their means (``MAiP``)."""
    from inexflow.measures.catalogue import MEANS

    return [m for m, per in MEANS.items() if per in PASSAGE_MEASURES] + list(PASSAGE_MEASURES)


class JudgedRuns:
    def __init__(self, assessments: Assessments, runs: dict[str, object]):
        docs = assessments.documents
        self.topics = sorted(set(docs["topic"]), key=lambda t: (0, int(t), "") if t.isdigit() else (1, 0, t))
        self.rel_docs = {t: g["doc"].tolist() for t, g in docs.groupby("topic", sort=False)}
        self.rel_chars = {t: g["rel_chars"].to_numpy(np.int64) for t, g in docs.groupby("topic", sort=False)}
        passages = normalised_passages(assessments)
        self.runs = list(runs)
        self.data: dict[str, dict[str, tuple]] = {}
        import logging
        log = logging.getLogger("inexflow")
        reldoc = pd.DataFrame([(t, d, i) for t, docs in self.rel_docs.items() for i, d in enumerate(docs)],
                              columns=["topic", "doc", "didx"])
        for k, (name, run) in enumerate(runs.items(), 1):
            log.info("judging run %s (%d/%d)", name, k, len(runs))
            res = passage_results(in_evaluation_order(run, "passage"))
            res["rsize"] = overlap_with_passages(res, passages)
            didx = res[["topic", "doc"]].merge(reldoc, on=["topic", "doc"], how="left")["didx"]
            didx = didx.fillna(-1).to_numpy(np.int64)
            length = res["length"].to_numpy(np.int64)
            rsize = res["rsize"].to_numpy(np.int64)
            per = {}
            for t, idx in res.groupby("topic", sort=False).indices.items():
                if t in self.rel_docs:
                    per[t] = (length[idx], rsize[idx], didx[idx])
            self.data[name] = per

    def full_masks(self) -> dict[str, np.ndarray]:
        return {t: np.ones(len(d), bool) for t, d in self.rel_docs.items()}

    def score(self, masks: dict[str, np.ndarray], measures=("AiP",), runs=None, topics=None) -> dict:
        """{measure: DataFrame runs x topics} under the judgement ``masks`` (topic -> kept docs).

        Topics without any kept relevant document are left out (as topics without
        assessments are); topics a run does not answer score 0 for it.
        """
        runs = runs or self.runs
        topics = [t for t in (topics or self.topics) if masks.get(t) is not None and masks[t].any()]
        out = {m: np.zeros((len(runs), len(topics))) for m in measures}
        for j, t in enumerate(topics):
            keep = masks[t]
            trel = int(self.rel_chars[t][keep].sum())
            for i, r in enumerate(runs):
                d = self.data[r].get(t)
                if d is None:
                    continue
                size, rsize, didx = d
                kept = np.where(didx >= 0, keep[np.maximum(didx, 0)], False)
                ip = interpolated_precision(size, np.where(kept, rsize, 0), trel)
                for m in measures:
                    lv = PASSAGE_MEASURES[m]
                    out[m][i, j] = ip.mean() if lv is None else ip[lv]
        return {m: pd.DataFrame(v, index=runs, columns=topics) for m, v in out.items()}
