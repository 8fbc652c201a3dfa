"""The analyses' figures that are drawn from a few columns, as SVG (:mod:`inexflow.io.svg`),
from plain values without pandas: :mod:`inexflow.analysis.plots` draws them from pandas tables,
the report stage draws the pool analyses' from their tables (:mod:`inexflow.analysis.pool_shapes`)."""

from __future__ import annotations

from inexflow.io.svg import Figure


def _save(fig: Figure, path) -> None:
    fig.save(path)


def draw_tau_curves(series, xlabel: str, title: str, path) -> None:
    """Kendall tau and tau_AP per measure against a level, each in its own panel with its
    standard error where there are samples, as Pal et al.'s Figures 1-3 show them (panels (a)
    tau and (b) tau_AP of one campaign; the paper's (c)-(d) are the next year's). ``series``:
    per measure, (label, levels, {"tau": (values, standard errors or None), "tau_ap": ...})."""
    fig = Figure(1, 2, width=1100, height=400)
    for ax, stat, name in ((fig.axes[0][0], "tau", "(a) Kendall tau"), (fig.axes[0][1], "tau_ap", "(b) tau_AP")):
        for label, x, stats in series:
            y, se = stats[stat]
            ax.line(x, y, yerr=se, marker="o", label=label)
        ax.hline(0.9, dash=True)
        ax.set(xlabel=xlabel, title=f"{title}: {name}")
        ax.legend(11)
    fig.axes[0][0].set(ylabel="correlation with the full ranking")
    _save(fig, path)


def draw_relevant_vs_depth(topics, path) -> None:
    """Relevant documents found in each topic's pool against the pool depth in articles (Pal et al.,
    Figure 6); both axes are counts, with integer ticks. ``topics``: (topic, depths, relevant found)
    in the colour cycle's order; one step line each, and a legend of the topics when there are at
    most 12."""
    fig = Figure(1, 1, width=600, height=400)
    ax = fig.axes[0][0]
    labelled = 0 < len(topics) <= 12
    for t, depth, found in topics:
        # each value holds until the next depth
        ax.steps(depth, found, label=str(t) if labelled else None)
    ax.set(integer_x=True, integer_y=True, xlabel="pool depth (articles)", ylabel="relevant documents in the pool",
           title="Relevant documents found versus pool depth")
    if labelled:
        ax.legend(10, title="topic")
    _save(fig, path)


def draw_logo_histogram(counts, order, path) -> None:
    """Pal et al.'s leave-one-group-out: the query-run pairs per bin of relative score change,
    one bar per measure in each bin of ``order``. ``counts``: per measure, (label, the pairs in
    each bin of ``order``)."""
    fig = Figure(1, 1, width=700, height=400)
    ax = fig.axes[0][0]
    width = 0.8 / max(len(counts), 1)
    for k, (label, heights) in enumerate(counts):
        ax.bars([i + k * width for i in range(len(order))], heights, width=width, label=label)
    ax.set(xticks=[(i + 0.4 - width / 2, str(b)) for i, b in enumerate(order)], xtick_rotation=30, integer_y=True,
           xlabel="relative change in score, % (positive: lower without the group)", ylabel="query-run pairs",
           title="Leave-one-group-out: per-query score changes")
    ax.legend(10)
    _save(fig, path)
