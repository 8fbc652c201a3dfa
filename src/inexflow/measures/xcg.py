"""XCG measures for element retrieval (Kazai & Lalmas, INEX 2005 evaluation measures,
section 5; INEX 2006 paper section 3; decisions in ``docs/measures.md``, XCG).

For one topic, with xG the run's gains by rank and xI the ideal gains (sorted
descending), xCG[i] = sum_{j<=i} xG[j] and xCI the same over xI, held at its last
value past |xI| (Eq. 1-2):

- nxCG[i] = xCG[i] / xCI[i] (Eq. 3); MAnxCG[i] = (1/i) sum_{j<=i} nxCG[j].
- gr[i] = xCG[i] / xCI[n], n = |xI| (Eq. 4); effort-precision at gain g: ep = i_ideal /
  i_run (Eq. 5), i_ideal found by linear interpolation on the ideal curve through
  (0, 0), (1, xCI[1]), ... so that with binary gains MAep equals average precision.
- MAep = (1/n) sum of ep over the natural recall points (ranks with xG > 0) (Eq. 6);
  iMAep = mean of ep at gr = 0.01 .. 1.00, ep interpolated linearly between natural
  points, flat before the first, 0 beyond the last reached; a level within
  ``GR_TOLERANCE`` of the last gain-recall reached counts as reached, so a run that
  retrieves all the ideal gain reaches gr = 1.00 whatever the summation order.
- the nxCG curve ``nxCG@[k]`` at k = 1%, ..., 100% of the maximum list length (1500) and
  the ep/gr curve ``ep[x]`` at gr = 0.01 .. 1.00.
- Q and R (Sakai's definitions; Eq. 13-14 of the 2005 paper read as slips for them, see
  docs/measures.md): cbg(i) = sum_{j<=i} (xG[j] + 1 if xG[j] > 0), the cumulated bonused
  gain; cig(i) = xCI[i], the ideal cumulated gain without the bonus (held past |xI|);
  Q = (1/R) sum_i [xG[i] > 0] cbg(i) / (cig(i) + i); R-measure = cbg(R) / (cig(R) + R),
  R = |xI|. Sakai's blended ratio makes the ideal run score exactly 1. Q and R, unlike the
  other measures, change with the scale of the gains: they see the registry's gen = e s / 2
  and genLifted = (e + 1) s / 3 (:mod:`inexflow.model.quantisation`).
- ``Q[printed]`` and ``R[printed]`` (option ``qr_printed``): Eq. 13-14 as printed, for
  comparison with published numbers: the gains on the printed scale of Eq. 1-3 (gen = e s,
  genLifted = (e + 1) s: :func:`~inexflow.model.quantisation.printed_factor`); cig(j) "the
  cumulated bonus gain derived for the ideal vector (analogue to cbg)", i.e. with the bonus;
  Q[printed] = (1/R) sum_j isrel(d_j) cbg(j) / (cig(j) + j) (Eq. 13) and R[printed] =
  cbg(R) / (cbg(R) + R) (Eq. 14).

The Thorough task (overlap off) takes xG[i] = quant of the result's assessment (0 for
unassessed elements) and xI = every element of the full recall-base. The Focused task
(overlap on) takes xG[i] = rv_norm (:mod:`inexflow.measures.overlap`) and xI = the ideal
recall-base.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from inexflow.measures import catalogue
from inexflow.measures.context import ScoringContext, element_results, tidy_blocks
from inexflow.measures.element_arrays import ELEMENT_KEYS, Codes, RowIndex, element_codes, frame_codes, joined_values, row_index, topic_rows
from inexflow.measures.overlap import AssessedDocuments, focused_gains
from inexflow.measures.registry import GAIN_RECALL_PERCENTS, curve_ranks
from inexflow.measures.topicset import scored_topics
from inexflow.model.quantisation import printed_factor

GR_LEVELS = np.round(np.asarray(GAIN_RECALL_PERCENTS) / 100, 2)
EP_NAMES = [f"ep[{lv:.2f}]" for lv in GR_LEVELS]  # the ep/gr curve's measures
GR_TOLERANCE = 1e-9  # gain-recall within this of a level reaches it (summation-order rounding)


def cumulated_bonus_gain(g: np.ndarray) -> np.ndarray:
    """cbg(i) = bg(i) + cbg(i - 1), bg(i) = g(i) + 1 if g(i) > 0 else 0 (2005 paper, section 3.4)."""
    return np.cumsum(np.where(g > 0, g + 1.0, 0.0))


def printed_q_r(xg: np.ndarray, xi: np.ndarray) -> dict[str, float]:
    """Q and R as the 2005 paper prints them (Eq. 13-14), on gains ``xg`` and the ideal vector
    ``xi`` (sorted descending, all > 0) already on the printed scale: cig is the ideal's
    cumulated *bonus* gain, held past |xI|, and R-measure's denominator is cbg(R) + R."""
    n, L = len(xi), len(xg)
    cbg, cig = cumulated_bonus_gain(xg), cumulated_bonus_gain(xi)
    j = np.arange(1, L + 1)
    q = float(((xg > 0) * cbg / (cig[np.minimum(j, n) - 1] + j)).sum() / n) if L else 0.0
    cbg_r = cbg[min(n, L) - 1] if L else 0.0
    return {"Q[printed]": q, "R[printed]": float(cbg_r / (cbg_r + n))}


class IdealCurve:
    """What :func:`xcg_topic` derives from a topic's ideal vector ``xi`` (sorted descending,
    all > 0) alone, for ranks 1..``kmax``: made once per topic and quantisation and shared by
    the runs of a call."""

    def __init__(self, xi: np.ndarray, kmax: int):
        self.xi = xi
        self.n = n = len(xi)
        self.xci = xci = np.cumsum(xi)
        self.kmax = kmax
        self.ranks = np.arange(1, kmax + 1)
        self.ci = xci[np.minimum(self.ranks, n) - 1]  # xCI held at its last value past |xI|
        self.at_gain = np.concatenate(([0.0], xci))  # the ideal curve through (0, 0), (1, xCI[1]), ...
        self.at_rank = np.arange(0, n + 1, dtype=np.float64)

    def held(self, length: int) -> np.ndarray:
        """xCI[min(i, n)] for i = 1..length."""
        if length <= self.kmax:
            return self.ci[:length]
        return self.xci[np.minimum(np.arange(1, length + 1), self.n) - 1]


def xcg_topic(xg: np.ndarray, xi: np.ndarray, cutoffs, curve_ranks=(), printed_scale: float | None = None,
              ideal: IdealCurve | None = None) -> dict[str, float]:
    """All XCG measures for one topic (xi sorted descending, all > 0).

    ``curve_ranks`` adds nxCG at those ranks (the nxCG curve) as ``nxCG@[k]``; the ep/gr
    curve ``ep[0.01]`` .. ``ep[1.00]`` is always computed (iMAep is its mean). A
    ``printed_scale`` adds ``Q[printed]`` and ``R[printed]`` (:func:`printed_q_r`) on the
    gains times it (the quantisation's :func:`~inexflow.model.quantisation.printed_factor`).
    ``ideal``: ``xi``'s :class:`IdealCurve` for the largest of ``cutoffs`` and ``curve_ranks``,
    where one is kept (made here otherwise).
    """
    kmax = max(list(cutoffs) + list(curve_ranks)) if (cutoffs or curve_ranks) else 0
    if ideal is None or ideal.kmax != kmax:
        ideal = IdealCurve(xi, kmax)
    n, xci = ideal.n, ideal.xci
    xcg = np.cumsum(xg)
    out: dict[str, float] = {}
    if kmax:
        j = ideal.ranks
        cg = xcg[np.minimum(j, len(xcg)) - 1] if len(xcg) else np.zeros(kmax)
        nxcg = cg / ideal.ci
        manxcg = np.cumsum(nxcg) / j
        for k in cutoffs:
            out[f"nxCG[{k}]"] = float(nxcg[k - 1])
        for k in cutoffs:
            out[f"MAnxCG[{k}]"] = float(manxcg[k - 1])
    nat = np.flatnonzero(xg > 0)
    g = np.minimum(xcg[nat], xci[-1])
    ideal_rank = np.interp(g, ideal.at_gain, ideal.at_rank)
    ep = ideal_rank / (nat + 1)
    out["MAep"] = float(ep.sum() / n)
    # the ep/gr curve at standard gain-recall levels and its mean iMAep
    if len(nat):
        gr = g / xci[-1]
        # a level counts as reached up to rounding: the run's gains summed in run order may
        # fall an ulp short of the ideal gains summed in ideal order (full recall 0.999...)
        at = np.interp(GR_LEVELS, gr, ep, left=ep[0], right=ep[-1])
        at[GR_LEVELS > gr[-1] + GR_TOLERANCE] = 0.0
    else:
        at = np.zeros(len(GR_LEVELS))
    out["iMAep"] = float(at.mean())
    # Q and R
    L = len(xg)
    isrel = xg > 0
    cbg = cumulated_bonus_gain(xg)
    i = np.arange(1, L + 1) if L != kmax else ideal.ranks
    cig = ideal.held(L)
    out["Q"] = float((isrel * cbg / (cig + i)).sum() / n)
    cbg_r = cbg[min(n, L) - 1] if L else 0.0
    out["R"] = float(cbg_r / (xci[n - 1] + n))
    if printed_scale is not None:
        out |= printed_q_r(xg * printed_scale, xi * printed_scale)
    out.update(zip(EP_NAMES, at.tolist()))
    if len(curve_ranks):
        out.update(zip(_curve_names(tuple(curve_ranks)), nxcg[np.asarray(curve_ranks) - 1].tolist()))
    return out


def xcg_topics(xgs: list[np.ndarray], ideals: list[IdealCurve], cutoffs, curve_ranks=(),
               printed_scale: float | None = None) -> tuple[list[str], np.ndarray]:
    """:func:`xcg_topic` of many topics at once: (the measure names, in :func:`xcg_topic`'s
    order; a matrix of one row of values per topic). ``ideals``: each topic's
    :class:`IdealCurve` for the largest of ``cutoffs`` and ``curve_ranks``. The running sums
    and the cut-off and curve values are taken over a matrix of the topics' gains (zeros after
    a topic's last result leave its running sums as they are); what each topic sums over its
    own length is summed topic by topic, so that every value equals :func:`xcg_topic`'s."""
    cutoffs, ranks = list(cutoffs), list(curve_ranks)
    kmax = max(cutoffs + ranks) if (cutoffs or ranks) else 0
    lengths = [len(g) for g in xgs]
    width = max([kmax, *lengths]) if xgs else kmax
    gains = np.zeros((len(xgs), width))
    for row, g in zip(gains, xgs):
        row[:len(g)] = g
    xcg = np.cumsum(gains, axis=1)
    cols: dict[str, np.ndarray] = {}
    if kmax:
        nxcg = xcg[:, :kmax] / np.vstack([ideal.ci for ideal in ideals]) if xgs else np.zeros((0, kmax))
        manxcg = np.cumsum(nxcg, axis=1) / np.arange(1, kmax + 1)
        cols |= {f"nxCG[{k}]": nxcg[:, k - 1] for k in cutoffs}
        cols |= {f"MAnxCG[{k}]": manxcg[:, k - 1] for k in cutoffs}
    n = np.asarray([ideal.n for ideal in ideals], dtype=np.int64)
    # Q's terms: isrel(i) cbg(i) / (cig(i) + i), rank by rank
    cbg = np.cumsum(np.where(gains > 0, gains + 1.0, 0.0), axis=1)
    at_rank = np.arange(1, width + 1)
    terms = (gains > 0) * cbg / (np.vstack([ideal.held(width) for ideal in ideals]) + at_rank) if xgs \
        else np.zeros((0, width))
    full = np.asarray(lengths) == width
    q_sum = np.zeros(len(xgs))
    q_sum[full] = terms[full].sum(axis=1)  # whole rows of a C-ordered matrix: each summed as alone
    for t in np.flatnonzero(~full):
        q_sum[t] = terms[t, :lengths[t]].sum()
    maep, imaep, r = np.zeros(len(xgs)), np.zeros(len(xgs)), np.zeros(len(xgs))
    curve = np.zeros((len(xgs), len(GR_LEVELS)))
    printed = np.zeros((len(xgs), 2))
    for t, (ideal, length) in enumerate(zip(ideals, lengths)):
        xci, row = ideal.xci, xcg[t, :length]
        nat = np.flatnonzero(gains[t, :length] > 0)
        g = np.minimum(row[nat], xci[-1])
        ep = np.interp(g, ideal.at_gain, ideal.at_rank) / (nat + 1)
        maep[t] = ep.sum() / ideal.n
        if len(nat):
            gr = g / xci[-1]
            at = np.interp(GR_LEVELS, gr, ep, left=ep[0], right=ep[-1])
            at[GR_LEVELS > gr[-1] + GR_TOLERANCE] = 0.0
            curve[t] = at
        imaep[t] = curve[t].mean()
        cbg_r = cbg[t, min(ideal.n, length) - 1] if length else 0.0
        r[t] = cbg_r / (xci[ideal.n - 1] + ideal.n)
        if printed_scale is not None:
            printed[t] = list(printed_q_r(xgs[t] * printed_scale, ideal.xi * printed_scale).values())
    cols |= {"MAep": maep, "iMAep": imaep, "Q": q_sum / n if len(xgs) else q_sum, "R": r}
    if printed_scale is not None:
        cols |= {"Q[printed]": printed[:, 0], "R[printed]": printed[:, 1]}
    cols |= dict(zip(EP_NAMES, curve.T))
    if ranks:
        cols |= dict(zip(_curve_names(tuple(ranks)), nxcg[:, np.asarray(ranks) - 1].T))
    names = list(cols)
    values = np.column_stack([cols[m] for m in names]) if names else np.zeros((len(xgs), 0))
    return names, values


@functools.lru_cache(maxsize=8)
def _curve_names(ranks: tuple[int, ...]) -> list[str]:
    return [f"nxCG@[{k}]" for k in ranks]


def thorough_gains(results: pd.DataFrame, recallbase: pd.DataFrame, index: RowIndex | None = None,
                   codes: Codes | None = None) -> np.ndarray:
    """xG for every result: the quant of its assessment, 0 when unassessed (the recall-base's
    rows looked up in ``index``, its :func:`~inexflow.measures.element_arrays.row_index` on
    (topic, doc, xpath), by the results' ``codes`` (else factorised), where one is given;
    else joined)."""
    if index is not None:
        return joined_values(recallbase["gain"].to_numpy(), index.rows(codes if codes is not None else frame_codes(results)), 0.0)
    m = results[ELEMENT_KEYS].merge(recallbase[[*ELEMENT_KEYS, "gain"]], on=ELEMENT_KEYS, how="left")
    return m["gain"].fillna(0.0).to_numpy(np.float64)


def assessed_gains(ctx: ScoringContext, quant: str, recallbase: pd.DataFrame) -> RowIndex | None:
    """The row index of the recall-base of ``quant`` on (topic, doc, xpath)
    (:func:`~inexflow.measures.element_arrays.row_index`), once per context."""
    return ctx.memo(f"recall-base rows {quant}", lambda: row_index(recallbase, ELEMENT_KEYS))


def assessed_documents(ctx: ScoringContext, quant: str, recallbase: pd.DataFrame) -> AssessedDocuments:
    """The recall-base of ``quant`` by (topic, doc), for the overlap-aware gains, once per context."""
    return ctx.memo(f"recall-base documents {quant}", lambda: AssessedDocuments(recallbase))


def run_gains(results: pd.DataFrame, rb: pd.DataFrame, overlap: bool, alpha: float, source="run",
              index: RowIndex | None = None, codes: Codes | None = None,
              documents: AssessedDocuments | None = None) -> np.ndarray:
    """xG per result: quant (overlap off, Eq. 10; ``index`` and ``codes`` as :func:`thorough_gains`
    takes them) or rv_norm (overlap on, Eq. 9; ``documents`` as :func:`focused_gains` takes them)."""
    if not overlap:
        return thorough_gains(results, rb, index, codes)
    return focused_gains(results, rb, alpha, source, documents, codes)


def ideal_vectors(rb: pd.DataFrame, overlap: bool) -> dict[str, np.ndarray]:
    """xI per topic: the full recall-base (overlap off) or the ideal recall-base (on)."""
    sel = rb[rb["gain"] > 0]
    if overlap:
        sel = sel[sel["ideal"]]
    return {t: np.sort(g["gain"].to_numpy())[::-1] for t, g in sel.groupby("topic", sort=False)}


def mean_rows(family: str, per: dict[str, dict[str, float]], quant: str) -> list[tuple]:
    """Means over topics of every measure (topic ``all``), then num_q, aggregated as the
    catalogue declares for ``family`` (:func:`inexflow.measures.catalogue.mean_rows`)."""
    names = list(next(iter(per.values()))) if per else []
    columns = {m: np.asarray([v[m] for v in per.values()], dtype=np.float64) for m in names}
    return catalogue.mean_rows(family, quant, columns, [*names, "num_q"])


def score_xcg(run, ctx: ScoringContext) -> pd.DataFrame:
    """XCG for every configured quantisation; ``overlap`` on (Focused) or off (Thorough).

    Per-topic rows leave out the curves (ep[x], nxCG@[k]) unless ``per_topic_curves``;
    the means always have them.
    """
    cutoffs = [int(k) for k in ctx.opt("cutoffs")]
    overlap = ctx.opt("overlap") == "on"  # None (no task known) = off
    alpha = float(ctx.opt("alpha"))
    ranks = curve_ranks(int(ctx.opt("max_list_length")))
    keep_curves = bool(ctx.opt("per_topic_curves"))
    printed = bool(ctx.opt("qr_printed"))
    results = element_results(run, "xcg")
    codes = element_codes(run)
    blocks = []
    for quant, rb in sorted(ctx.recallbases.items()):
        scale = printed_factor(ctx.assessments.scale, quant) if printed else None
        ideal_by_topic = ctx.memo(f"ideal vectors {quant} {overlap}", lambda rb=rb: ideal_vectors(rb, overlap))
        topics = scored_topics(run, [t for t in ctx.assessed_topics() if t in ideal_by_topic], ctx,
                               judged=ctx.assessed_topics())
        gains = run_gains(results, rb, overlap, alpha, run.source, assessed_gains(ctx, quant, rb), codes,
                          assessed_documents(ctx, quant, rb) if overlap else None)
        by_topic = {t: gains[idx] for t, idx in topic_rows(codes).items()}
        if not topics:
            continue
        kmax = max(cutoffs + list(ranks)) if (cutoffs or len(ranks)) else 0
        ideals = ctx.memo(f"ideal curves {quant} {overlap} {kmax}", lambda: {})  # made as topics are met
        names, values = xcg_topics([by_topic.get(t, np.zeros(0)) for t in topics],
                                   [ideals.get(t) or ideals.setdefault(t, IdealCurve(ideal_by_topic[t], kmax))
                                    for t in topics], cutoffs, ranks, scale)
        shown = [j for j, m in enumerate(names) if keep_curves or not (m.startswith("ep[") or m.startswith("nxCG@["))]
        means = catalogue.mean_rows("xcg", quant, dict(zip(names, values.T)), [*names, "num_q"])
        blocks.append((topics, quant, [names[j] for j in shown], values[:, shown], means))
    return tidy_blocks(blocks)
