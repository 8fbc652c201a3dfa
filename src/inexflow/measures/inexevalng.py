"""inex_eval_ng, the INEX 2003 overlap-aware recall and precision (Hiemstra & Mihajlovic,
"The simplest evaluation measures for XML information retrieval that could possibly be
useful", section 2.3, Eq. 5-7; after Gövert, Kazai, Fuhr & Lalmas).

For a ranked list c_1 .. c_n of one topic, with |c_i| the size of element c_i in characters
and |c'_i| the part of it not seen before (Eq. 7: its size minus the union of the elements
retrieved at ranks 1 .. i-1 in the same document)::

    recall_o[k]    = sum_{i<=k} e(c_i) |c'_i| / |c_i|  /  sum over every assessed element of e   (Eq. 5)
    precision_o[k] = sum_{i<=k} s(c_i) |c'_i|          /  sum_{i<=k} |c'_i|                     (Eq. 6)

e and s are the exhaustivity and specificity (0..3, the INEX 2002-2004 scale) each quantised
on its own (:data:`NG_QUANTS`): ``strict`` maps 3 to 1 and everything else to 0, ``gen``
maps v to v / 3. Unassessed elements have e = s = 0. A list shorter than k is summed over
the elements it has; ``precision_o`` is 0 when nothing unseen was retrieved. The measures are
taken at the ``cutoff_ks``; means are over the topics with a non-zero recall denominator
that the run retrieved for. Element sizes come from the results' character ranges, so runs
must be resolved against the collection (config ``collection``, ``--collection``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.errors import UsageError
from inexflow.measures.catalogue import aggregate
from inexflow.measures.context import ScoringContext, element_results, tidy
from inexflow.measures.topicset import scored_topics

# the separate quantisations of exhaustivity and specificity (f'_quant(e), f'_quant(s))
NG_QUANTS = {"strict": lambda v: (v == 3).astype(float), "gen": lambda v: v / 3.0}


def unseen_sizes(docs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """|c'_i| of Eq. 7 for a ranked list: each element's characters not covered by the
    elements of the same document ranked above it."""
    out = np.zeros(len(docs))
    seen: dict[str, list[tuple[int, int]]] = {}
    for i, (d, s, e) in enumerate(zip(docs, starts, ends)):
        spans = seen.setdefault(d, [])
        covered = sum(max(0, min(e, b) - max(s, a)) for a, b in spans)
        out[i] = (e - s) - covered
        # keep the spans disjoint: merge the new one with those it touches
        merged_s, merged_e, keep = s, e, []
        for a, b in spans:
            if b < s or a > e:
                keep.append((a, b))
            else:
                merged_s, merged_e = min(merged_s, a), max(merged_e, b)
        keep.append((merged_s, merged_e))
        seen[d] = keep
    return out


def score_inex_eval_ng(run, ctx: ScoringContext) -> pd.DataFrame:
    a = ctx.assessments
    if a.scale != "inex2002":
        raise UsageError(f"family inex_eval_ng needs exhaustivity and specificity on the INEX 2002-2004 scale "
                         f"(0..3); {a.source} is on the {a.scale} scale")
    quants = list(ctx.opt("quantisations"))
    unknown = [q for q in quants if q not in NG_QUANTS]
    if unknown:
        raise UsageError(f"family inex_eval_ng quantises exhaustivity and specificity separately with "
                         f"{' or '.join(NG_QUANTS)}, not {', '.join(unknown)}")
    res = element_results(run, "inex_eval_ng")
    if (res["offset"] < 0).any():
        raise UsageError(f"family inex_eval_ng needs element sizes: resolve {run.source} against the collection "
                         "(config 'collection', or --collection)")
    els = a.elements
    key = pd.MultiIndex.from_arrays([els["topic"], els["doc"], els["xpath"]])
    rkey = pd.MultiIndex.from_arrays([res["topic"], res["doc"], res["xpath"]])
    pos = key.get_indexer(rkey)
    found = pos >= 0
    exh = np.where(found, els["exh"].to_numpy(float)[np.maximum(pos, 0)], 0.0)
    spec = np.where(found, els["spec"].to_numpy(float)[np.maximum(pos, 0)], 0.0)
    size = res["length"].to_numpy(float)
    starts = res["offset"].to_numpy()
    unseen = np.zeros(len(res))
    groups = res.groupby("topic", sort=False).indices
    for idx in groups.values():
        unseen[idx] = unseen_sizes(res["doc"].to_numpy()[idx], starts[idx], starts[idx] + res["length"].to_numpy()[idx])
    ks = [int(k) for k in ctx.opt("cutoff_ks")]
    rows, per = [], {}
    for quant in quants:
        fq = NG_QUANTS[quant]
        total = pd.Series(fq(els["exh"].to_numpy(float)), index=els["topic"].to_numpy()).groupby(level=0).sum()
        total = total[total > 0]
        topics = scored_topics(run, list(total.index), ctx, judged=a.topics)
        if topics:
            rows.append(("all", quant, "num_q", float(len(topics))))
        e_q, s_q = fq(exh), fq(spec)
        with np.errstate(divide="ignore", invalid="ignore"):
            rec_gain = np.where(size > 0, e_q * unseen / size, 0.0)
        for t in topics:
            idx = groups.get(t, np.zeros(0, dtype=np.int64))
            cum_r = np.cumsum(rec_gain[idx])
            cum_s = np.cumsum(s_q[idx] * unseen[idx])
            cum_u = np.cumsum(unseen[idx])
            for k in ks:
                n = min(k, len(idx))
                r = float(cum_r[n - 1] / total[t]) if n else 0.0
                p = float(cum_s[n - 1] / cum_u[n - 1]) if n and cum_u[n - 1] > 0 else 0.0
                rows += [(t, quant, f"recall_o[{k}]", r), (t, quant, f"precision_o[{k}]", p)]
                per.setdefault((quant, f"recall_o[{k}]"), []).append(r)
                per.setdefault((quant, f"precision_o[{k}]"), []).append(p)
    rows.extend(("all", q, m, aggregate("inex_eval_ng", m, v)) for (q, m), v in per.items())
    return tidy(rows)
