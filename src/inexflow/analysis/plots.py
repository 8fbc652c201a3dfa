"""The figures of the scores and analyses, as SVG (:mod:`inexflow.io.svg`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from inexflow.io.svg import Figure
from inexflow.measures.catalogue import CURVES, NO_QUANT, curve_point, curve_title


def _save(fig: Figure, path):
    fig.save(path)


def tau_curves(df: pd.DataFrame, level: str, xlabel: str, title: str, path):
    """Kendall tau and tau_AP per measure against the level, each in its own panel with its
    standard error where there are samples, as Pal et al.'s Figures 1-3 show them (panels (a)
    tau and (b) tau_AP of one campaign; the paper's (c)-(d) are the next year's)."""
    fig = Figure(1, 2, width=1100, height=400)
    for ax, stat, name in ((fig.axes[0][0], "tau", "(a) Kendall tau"), (fig.axes[0][1], "tau_ap", "(b) tau_AP")):
        for m, g in df.groupby("measure", sort=False):
            g = g.sort_values(level)
            x = g[level] * (100 if level == "fraction" else 1)
            se = f"{stat}_se"
            ax.line(x, g[stat], yerr=g[se] if se in g else None, marker="o", label=str(m))
        ax.hline(0.9, dash=True)
        ax.set(xlabel=xlabel, title=f"{title}: {name}")
        ax.legend(11)
    fig.axes[0][0].set(ylabel="correlation with the full ranking")
    _save(fig, path)


def relevant_vs_depth(curve: pd.DataFrame, path):
    """Relevant documents found in each topic's pool against the pool depth in articles (Pal et al.,
    Figure 6); both axes are counts, with integer ticks. One step line per topic, in the
    colour cycle's order; a legend of the topics when there are at most 12."""
    fig = Figure(1, 1, width=600, height=400)
    ax = fig.axes[0][0]
    topics = curve.groupby("topic", sort=False)
    labelled = 0 < topics.ngroups <= 12
    for t, g in topics:
        # each value holds until the next depth
        ax.steps(g["depth"].to_numpy(float), g["relevant_found"].to_numpy(float), label=str(t) if labelled else None)
    ax.set(integer_x=True, integer_y=True, xlabel="pool depth (articles)", ylabel="relevant documents in the pool",
           title="Relevant documents found versus pool depth")
    if labelled:
        ax.legend(10, title="topic")
    _save(fig, path)


def quant_differences(df: pd.DataFrame, path):
    """Ogilvie & Lalmas, Figure 1: per (measure, reference and other quantisation), (a) the
    score differences of the pairs significant under either, under the reference (x)
    against the other (y), by agreement; (b) the density of the reference differences of
    the pairs both found and of those only one found. One row of two panels per
    comparison, in the order of ``df``, lettered on: the second row is (c)-(d), as the
    paper's Strict 5 against Fully Spec; with no comparison, a note saying so."""
    from inexflow.analysis.significance import AGREEMENT

    keys = list(dict.fromkeys(zip(df["measure"], df["quant_ref"], df["quant_other"])))
    fig = Figure(max(len(keys), 1), 2 if keys else 1, width=1000, height=400 * max(len(keys), 1))
    if not keys:
        fig.axes[0][0].set(note="no pair of quantisations to compare\n(analysis.significance.quants has one, or "
                                "analysis.significance.differences is empty)")
    for k, (row, (m, qr, qo)) in enumerate(zip(fig.axes, keys)):
        scatter, density = chr(ord("a") + 2 * k), chr(ord("b") + 2 * k)
        g = df[(df["measure"] == m) & (df["quant_ref"] == qr) & (df["quant_other"] == qo)]
        for label, marker in zip(AGREEMENT, ("o", "x", "+")):
            sel = g[g["agreement"] == label]
            row[0].scatter(sel["diff_ref"], sel["diff_other"], marker=marker, label=f"{label} ({len(sel)})")
        row[0].hline(0)
        row[0].vline(0)
        row[0].set(xlabel=f"{m} difference, {qr}", ylabel=f"{m} difference, {qo}",
                   title=f"({scatter}) {m}: significant under {qr} or {qo}", title_size=12)
        row[0].legend(10)
        for label, sel in (("both agree", g[g["agreement"] == AGREEMENT[0]]),
                           ("only one", g[g["agreement"] != AGREEMENT[0]])):
            x = sel["diff_ref"].to_numpy(float)
            if len(x):
                bins = np.histogram_bin_edges(g["diff_ref"].to_numpy(float), bins=min(20, max(len(g) // 2, 1)))
                dens, edges = np.histogram(x, bins=bins, density=len(set(x)) > 1 or None)
                row[1].stairs(dens, edges, label=f"{label} ({len(x)})")
        row[1].set(xlabel=f"{m} difference, {qr}", ylabel="density",
                   title=f"({density}) {m}: density, {qr} and {qo} agree or not", title_size=12)
        row[1].legend(10)
    _save(fig, path)


def error_rates(df: pd.DataFrame, fits: pd.DataFrame, n_topics: int, path):
    """Pal et al., Figure 5: per measure, the swap error rate against the topic-set size for
    each tolerance, observed (solid, with markers) and extrapolated by the fitted curve
    Y = A1 exp(-A2 X) (dashed, same colour) up to the campaign's number of topics."""
    measures = list(dict.fromkeys(df["measure"]))
    ncols = min(3, max(len(measures), 1))
    nrows = -(-max(len(measures), 1) // ncols)
    fig = Figure(nrows, ncols, width=450 * ncols, height=380 * nrows + 30,
                 title="Error rate versus topic-set size (dashed: fitted and extrapolated)")
    for ax in fig.flat[len(measures):]:
        ax.set(visible=False)
    for ax, m in zip(fig.flat, measures):
        for k, (p, g) in enumerate(df[df["measure"] == m].groupby("tolerance", sort=True)):
            ax.line(g["size"], 100 * g["error_rate"], marker="o", color=k, label=f"{100 * p:g}% tolerance")
            f = fits[(fits["measure"] == m) & (fits["tolerance"] == p)]
            if len(f) and np.isfinite(f["A1"].iloc[0]) and np.isfinite(f["A2"].iloc[0]):
                x = np.arange(int(g["size"].min()), max(n_topics, int(g["size"].max())) + 1)
                ax.line(x, 100 * f["A1"].iloc[0] * np.exp(-f["A2"].iloc[0] * x), dash=True, color=k)
        ax.hline(5, dash=True)
        ax.set(xlabel="topic-set size", ylabel="swap error rate (%)", title=str(m), integer_x=True)
        ax.legend(10)
    _save(fig, path)


def logo_histogram(bins: pd.DataFrame, order, path):
    """Pal et al.'s leave-one-group-out: the query-run pairs per bin of relative score change,
    one bar per measure in each bin."""
    fig = Figure(1, 1, width=700, height=400)
    ax = fig.axes[0][0]
    measures = list(dict.fromkeys(bins["measure"]))
    width = 0.8 / max(len(measures), 1)
    for k, m in enumerate(measures):
        g = bins[bins["measure"] == m].set_index("bin")["count"].reindex(order, fill_value=0)
        ax.bars([i + k * width for i in range(len(order))], g.to_numpy(), width=width, label=str(m))
    ax.set(xticks=[(i + 0.4 - width / 2, str(b)) for i, b in enumerate(order)], xtick_rotation=30, integer_y=True,
           xlabel="relative change in score, % (positive: lower without the group)", ylabel="query-run pairs",
           title="Leave-one-group-out: per-query score changes")
    ax.legend(10)
    _save(fig, path)


def top_runs(scores: pd.DataFrame, task: str, main_measure: str | None, top: int) -> list[str]:
    """The ``top`` best runs of ``task`` by the mean of ``main_measure`` (under its first
    quantisation; ties by run name), every run when there are no more or no main measure."""
    m = scores[(scores["task"] == task) & (scores["topic"] == "all")]
    runs = sorted(m["run"].unique())
    sel = m[m["measure"] == main_measure] if main_measure else m.iloc[:0]
    if len(runs) <= top or sel.empty:
        return runs
    sel = sel[sel["quant"] == sorted(sel["quant"].unique())[0]]
    ranked = sorted(zip(sel["value"], sel["run"]), key=lambda v: (-v[0], v[1]))
    return [r for _, r in ranked[:top]]


def task_curves(scores: pd.DataFrame, task: str, path, main_measure: str | None = None, top: int = 10):
    """The curves a reader wants for one task, means over topics per run: the ep/gr curve and
    the nxCG curve (XCG), the interpolated precision curve (passage measures), the EPRUM
    precision-recall graph (Best in Context 2006). With more than ``top`` runs, a first row
    shows every run (unlabelled) and a second the ``top`` best by ``main_measure`` (Pal et al.'s
    Figure 4: "precision-recall curves for focused runs and top-10 systems")."""
    m = scores[(scores["task"] == task) & (scores["topic"] == "all")]
    n_runs = m["run"].nunique()
    keep = top_runs(scores, task, main_measure, top)
    points = m["measure"].map(curve_point)
    on_curve = points.notna().to_numpy(bool)
    m, points = m[on_curve], points[on_curve]
    m = m.assign(prefix=[p[0] for p in points], x=[p[1] for p in points])
    found = list(dict.fromkeys(m["prefix"]))
    prefixes = [p for p in CURVES if p in found] + [p for p in found if p not in CURVES]
    rows = [("", sorted(m["run"].unique()))]
    if len(keep) < n_runs:
        rows = [(f" (all {n_runs} runs)", rows[0][1]), (f" (top {len(keep)} of {n_runs} runs by {main_measure})", keep)]
    ncols = max(len(prefixes), 1)
    fig = Figure(len(rows), ncols, width=550 * ncols, height=400 * len(rows))
    for row, (shown, runs) in zip(fig.axes, rows):
        labelled = len(runs) <= top
        for ax, prefix in zip(row, prefixes):
            title, xlab = curve_title(prefix)
            sel = m[(m["prefix"] == prefix) & m["run"].isin(runs)]
            quants = sorted(sel["quant"].unique())
            groups = sel.groupby(["run", "quant"], sort=False).indices
            for run, quant in [(r, q) for r in runs for q in quants if (r, q) in groups]:  # best run first
                g = sel.iloc[groups[(run, quant)]]
                label = run if len(quants) == 1 else f"{run} ({quant})"
                ax.line(g["x"].to_numpy(), g["value"].to_numpy(), label=label if labelled else None,
                        width=1.2 if labelled else 0.7)
            ax.set(title=f"{task}: {title}{shown}", title_size=12, xlabel=xlab, ylim=(0, 1.02))
            if labelled:
                ax.legend(9)
    if not prefixes:
        fig.axes[0][0].set(note=f"no curve measures for {task}")
    _save(fig, path)


def topic_differences(df: pd.DataFrame, path):
    """Per-topic score differences of compared runs (``inexflow compare --plot``): one panel
    per measure (columns) and pair (rows), a bar per topic, sorted from the largest
    difference A - B to the smallest, above 0 where A scores higher."""
    keys = list(dict.fromkeys(zip(df["measure"], df["quant"])))
    pairs = list(dict.fromkeys(zip(df["run_a"], df["run_b"])))
    nrows, ncols = max(len(pairs), 1), max(len(keys), 1)
    fig = Figure(nrows, ncols, width=450 * ncols, height=320 * nrows)
    for row, (a, b) in zip(fig.axes, pairs):
        for ax, (m, q) in zip(row, keys):
            g = df[(df["measure"] == m) & (df["quant"] == q) & (df["run_a"] == a) & (df["run_b"] == b)]
            d = np.sort(g["difference"].to_numpy(float))[::-1]
            ax.bars(np.arange(len(d)), d, width=1.0, colors=np.where(d >= 0, "C0", "C3").tolist())
            ax.hline(0)
            ax.set(title=f"{m}{'' if q in NO_QUANT else f' ({q})'}: {a} - {b}", title_size=12, label_size=11,
                   xlabel=f"topics, sorted ({int((d > 0).sum())} higher, {int((d < 0).sum())} lower)",
                   ylabel="difference", integer_x=True)
    _save(fig, path)
