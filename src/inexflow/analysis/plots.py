"""Plots of the analyses (matplotlib, Agg backend, PNG without timestamps)."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from inexflow.io.atomic import atomic_path  # noqa: E402
from inexflow.measures.catalogue import CURVES, NO_QUANT, curve_point, curve_title  # noqa: E402


def _save(fig, path):
    # the layout is done (tight_layout, or none): without this, tight_layout leaves a placeholder
    # layout engine that makes savefig lay out and draw the figure once more before drawing it
    # (0.02-0.05 s a figure; the same pixels, the same PNG bytes)
    fig.set_layout_engine(None)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)


def tau_curves(df: pd.DataFrame, level: str, xlabel: str, title: str, path):
    """Kendall tau and tau_AP per measure against the level, each in its own panel with its
    standard error where there are samples, as Pal et al.'s Figures 1-3 show them (panels (a)
    tau and (b) tau_AP of one campaign; the paper's (c)-(d) are the next year's)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, stat, name in ((axes[0], "tau", "(a) Kendall tau"), (axes[1], "tau_ap", "(b) tau_AP")):
        for m, g in df.groupby("measure", sort=False):
            g = g.sort_values(level)
            x = g[level] * (100 if level == "fraction" else 1)
            se = f"{stat}_se"
            ax.errorbar(x, g[stat], yerr=g[se] if se in g else None, marker="o", capsize=3, label=m)
        ax.axhline(0.9, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(xlabel)
        ax.set_title(f"{title}: {name}", fontsize=10)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("correlation with the full ranking")
    fig.tight_layout()
    _save(fig, path)


def relevant_vs_depth(curve: pd.DataFrame, path):
    """Relevant documents found in each topic's pool against the pool depth in articles (Pal et al.,
    Figure 6); both axes are counts, with integer ticks. One step line per topic, in the
    colour cycle's order, drawn as one collection: a line artist per topic cost a hundred
    topics 0.035 s more."""
    fig, ax = plt.subplots(figsize=(6, 4))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    steps, labels = [], []
    for t, g in curve.groupby("topic", sort=False):
        x, y = g["depth"].to_numpy(float), g["relevant_found"].to_numpy(float)
        # where="post": each value holds until the next depth
        steps.append(np.column_stack([np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]]))
        labels.append(str(t))
    colours = [cycle[k % len(cycle)] for k in range(len(steps))]
    if steps:
        ax.add_collection(LineCollection(steps, colors=colours, linewidths=1))
        ax.autoscale_view()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("pool depth (articles)")
    ax.set_ylabel("relevant documents in the pool")
    ax.set_title("Relevant documents found versus pool depth")
    if 0 < len(steps) <= 12:
        ax.legend([Line2D([], [], color=c, lw=1) for c in colours], labels, fontsize=7, title="topic")
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
    fig, axes = plt.subplots(max(len(keys), 1), 2, figsize=(10, 4 * max(len(keys), 1)), squeeze=False)
    if not keys:
        for ax in axes[0]:
            ax.axis("off")
        axes[0][0].text(0, 0.5, "no pair of quantisations to compare\n(analysis.significance.quants has one, or "
                        "analysis.significance.differences is empty)", fontsize=11)
    for k, (row, (m, qr, qo)) in enumerate(zip(axes, keys)):
        scatter, density = chr(ord("a") + 2 * k), chr(ord("b") + 2 * k)
        g = df[(df["measure"] == m) & (df["quant_ref"] == qr) & (df["quant_other"] == qo)]
        for label, marker in zip(AGREEMENT, ("o", "x", "+")):
            sel = g[g["agreement"] == label]
            row[0].scatter(sel["diff_ref"], sel["diff_other"], marker=marker, s=18, label=f"{label} ({len(sel)})")
        row[0].axhline(0, color="grey", lw=0.6)
        row[0].axvline(0, color="grey", lw=0.6)
        row[0].set_xlabel(f"{m} difference, {qr}")
        row[0].set_ylabel(f"{m} difference, {qo}")
        row[0].set_title(f"({scatter}) {m}: significant under {qr} or {qo}", fontsize=9)
        row[0].legend(fontsize=8)
        for label, sel in (("both agree", g[g["agreement"] == AGREEMENT[0]]),
                           ("only one", g[g["agreement"] != AGREEMENT[0]])):
            x = sel["diff_ref"].to_numpy(float)
            if len(x):
                bins = np.histogram_bin_edges(g["diff_ref"].to_numpy(float), bins=min(20, max(len(g) // 2, 1)))
                dens, edges = np.histogram(x, bins=bins, density=len(set(x)) > 1 or None)
                row[1].stairs(dens, edges, label=f"{label} ({len(x)})")
        row[1].set_xlabel(f"{m} difference, {qr}")
        row[1].set_ylabel("density")
        row[1].set_title(f"({density}) {m}: density, {qr} and {qo} agree or not", fontsize=9)
        row[1].legend(fontsize=8)
    fig.tight_layout()
    _save(fig, path)


def error_rates(df: pd.DataFrame, fits: pd.DataFrame, n_topics: int, path):
    """Pal et al., Figure 5: per measure, the swap error rate against the topic-set size for
    each tolerance, observed (solid, with markers) and extrapolated by the fitted curve
    Y = A1 exp(-A2 X) (dashed, same colour) up to the campaign's number of topics."""
    measures = list(dict.fromkeys(df["measure"]))
    ncols = min(3, max(len(measures), 1))
    nrows = -(-max(len(measures), 1) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.5 * ncols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(measures):]:
        ax.set_visible(False)
    for ax, m in zip(axes.flat, measures):
        for k, (p, g) in enumerate(df[df["measure"] == m].groupby("tolerance", sort=True)):
            colour = f"C{k}"
            ax.plot(g["size"], 100 * g["error_rate"], marker="o", markersize=3, color=colour,
                    label=f"{100 * p:g}% tolerance")
            f = fits[(fits["measure"] == m) & (fits["tolerance"] == p)]
            if len(f) and np.isfinite(f["A1"].iloc[0]) and np.isfinite(f["A2"].iloc[0]):
                x = np.arange(int(g["size"].min()), max(n_topics, int(g["size"].max())) + 1)
                ax.plot(x, 100 * f["A1"].iloc[0] * np.exp(-f["A2"].iloc[0] * x), linestyle="--", color=colour)
        ax.axhline(5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("topic-set size")
        ax.set_ylabel("swap error rate (%)")
        ax.set_title(m)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize=7)
    fig.suptitle("Error rate versus topic-set size (dashed: fitted and extrapolated)")
    fig.tight_layout()
    _save(fig, path)


def logo_histogram(bins: pd.DataFrame, order, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    measures = list(dict.fromkeys(bins["measure"]))
    width = 0.8 / max(len(measures), 1)
    for k, m in enumerate(measures):
        g = bins[bins["measure"] == m].set_index("bin")["count"].reindex(order, fill_value=0)
        ax.bar([i + k * width for i in range(len(order))], g.to_numpy(), width=width, label=m)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(order))])
    ax.set_xticklabels(order, rotation=30, fontsize=8)
    ax.set_xlabel("relative change in score, % (positive: lower without the group)")
    ax.set_ylabel("query-run pairs")
    ax.set_title("Leave-one-group-out: per-query score changes")
    ax.legend(fontsize=8)
    fig.tight_layout()
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
    fig, axes = plt.subplots(len(rows), ncols, figsize=(5.5 * ncols, 4 * len(rows)), squeeze=False)
    for row, (shown, runs) in zip(axes, rows):
        labelled = len(runs) <= top
        for ax, prefix in zip(row, prefixes):
            title, xlab = curve_title(prefix)
            sel = m[(m["prefix"] == prefix) & m["run"].isin(runs)]
            quants = sorted(sel["quant"].unique())
            groups = sel.groupby(["run", "quant"], sort=False).indices
            for run, quant in [(r, q) for r in runs for q in quants if (r, q) in groups]:  # best run first
                g = sel.iloc[groups[(run, quant)]]
                label = run if len(quants) == 1 else f"{run} ({quant})"
                ax.plot(g["x"].to_numpy(), g["value"].to_numpy(), label=label if labelled else None,
                        lw=1 if labelled else 0.6)
            ax.set_title(f"{task}: {title}{shown}", fontsize=9)
            ax.set_xlabel(xlab)
            ax.set_ylim(0, 1.02)
            if labelled:
                ax.legend(fontsize=6)
    if not prefixes:
        axes[0][0].text(0.5, 0.5, f"no curve measures for {task}", ha="center")
        axes[0][0].set_axis_off()
    fig.tight_layout()
    _save(fig, path)


def topic_differences(df: pd.DataFrame, path):
    """Per-topic score differences of compared runs (``inexflow compare --plot``): one panel
    per measure (columns) and pair (rows), a bar per topic, sorted from the largest
    difference A - B to the smallest, above 0 where A scores higher."""
    keys = list(dict.fromkeys(zip(df["measure"], df["quant"])))
    pairs = list(dict.fromkeys(zip(df["run_a"], df["run_b"])))
    nrows, ncols = max(len(pairs), 1), max(len(keys), 1)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.5 * ncols, 3.2 * nrows), squeeze=False)
    for row, (a, b) in zip(axes, pairs):
        for ax, (m, q) in zip(row, keys):
            g = df[(df["measure"] == m) & (df["quant"] == q) & (df["run_a"] == a) & (df["run_b"] == b)]
            d = np.sort(g["difference"].to_numpy(float))[::-1]
            ax.bar(np.arange(len(d)), d, width=1.0, color=np.where(d >= 0, "C0", "C3"))
            ax.axhline(0, color="grey", lw=0.6)
            ax.set_title(f"{m}{'' if q in NO_QUANT else f' ({q})'}: {a} - {b}", fontsize=9)
            ax.set_xlabel(f"topics, sorted ({int((d > 0).sum())} higher, {int((d < 0).sum())} lower)", fontsize=8)
            ax.set_ylabel("difference", fontsize=8)
    fig.tight_layout()
    _save(fig, path)
