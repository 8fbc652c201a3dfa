"""Charts written as SVG text: lines (solid, dashed, stepped), markers, error bars, bars and
histogram outlines in panels on a grid, each panel with axes ticked at round numbers, a title,
axis labels and a legend where it covers the fewest drawn points.

The workflow's figures are drawn here, not with matplotlib: importing matplotlib with a canvas
costs a job 0.45-1.0 s on the 2-core benchmark machine (``benchmarks/README.md``), more than
drawing all of a campaign's figures here, and it lay on the critical path of every re-run. SVG
is text: the same data give the same bytes, it scales, and the Snakemake report and every
browser show it. Sizes are pixels at 100 per inch (the figures' former PNG size); the colours
are matplotlib's default cycle (``tab10``), ``C0``-``C9`` as there.

    fig = Figure(1, 2, width=1100, height=400, title="...")
    ax = fig.axes[0][0]
    ax.line(x, y, marker="o", label="MAiP")
    ax.hline(0.9, dash=True)
    ax.set(title="(a) Kendall tau", xlabel="% of topics", ylim=(0, 1))
    fig.save(path)

Every method records what it draws (``Axes.series``, ``Axes.title``...), so that a test can
read a figure back without parsing its SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from inexflow.io.atomic import atomic_path


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` of ``text`` as XML entities (``xml.sax.saxutils.escape``, whose
    import pulls in ``urllib`` and ``http``: 0.03 s of every stage that draws)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
GREY = "#808080"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
_CHAR = 0.58  # a character's mean width in this font, as a share of its size (for the layout only)


def colour(c: str | int | None, k: int = 0) -> str:
    """A colour: ``"C3"`` or 3 is the palette's fourth, None the ``k``-th of the cycle, any
    other string is used as it is (``"#808080"``, ``"grey"``)."""
    if c is None:
        return PALETTE[k % len(PALETTE)]
    if isinstance(c, (int, np.integer)):
        return PALETTE[int(c) % len(PALETTE)]
    if len(c) >= 2 and c[0] == "C" and c[1:].isdigit():
        return PALETTE[int(c[1:]) % len(PALETTE)]
    return c


def nice_ticks(lo: float, hi: float, max_ticks: int = 8, integer: bool = False) -> list[float]:
    """Tick values on [lo, hi]: the multiples of the smallest step 1, 2, 2.5 or 5 times a power
    of ten that gives at most ``max_ticks`` of them (whole steps only with ``integer``), as
    matplotlib's ``MaxNLocator`` chooses its steps."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / max(max_ticks - 1, 1)
    mag = 10.0 ** math.floor(math.log10(raw))
    steps = [mult * mag for mult in (1, 2, 2.5, 5, 10, 20)]
    if integer:
        steps = [s for s in steps if s >= 1 and s == round(s)] or [1.0]
    for step in steps:
        k0, k1 = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
        if k1 - k0 + 1 <= max_ticks:
            break
    return [_clean(k * step) for k in range(k0, k1 + 1)]


def _clean(v: float) -> float:
    """``v`` rounded to 12 significant digits (a multiple of a step without its float noise)."""
    return 0.0 if v == 0 else float(f"{v:.12g}")


def tick_label(v: float, ticks: list[float]) -> str:
    """``v`` with as many decimals as the finest of ``ticks`` needs (0.25 -> "0.25", 2 -> "2")."""
    decimals = 0
    for t in ticks:
        s = f"{abs(t):.10f}".rstrip("0")
        decimals = max(decimals, len(s.split(".")[1]) if "." in s else 0)
    s = f"{v:.{decimals}f}"
    return "0" + s[2:] if s.startswith("-0") and float(s) == 0 else s


def _f(v: float) -> str:
    """A coordinate: one decimal, no trailing ".0"."""
    s = f"{v:.1f}"
    s = s[:-2] if s.endswith(".0") else s
    return "0" if s == "-0" else s


def _text_width(text: str, size: float) -> float:
    return len(text) * size * _CHAR


@dataclass
class Series:
    """One drawn series of an axes: its kind ("line", "scatter", "bars", "stairs"), its data
    as given (x, y; for stairs the edges and the values), its label and how it is drawn."""
    kind: str
    x: np.ndarray
    y: np.ndarray
    label: str | None = None
    color: str = PALETTE[0]
    width: float = 1.5
    dash: bool = False
    marker: str | None = None
    yerr: np.ndarray | None = None
    bar_width: float | np.ndarray = 0.8
    colors: list[str] | None = None


@dataclass
class Axes:
    """One panel. Data methods add series; ``set`` sets its texts and limits."""
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    integer_x: bool = False
    integer_y: bool = False
    xticks: list[tuple[float, str]] | None = None  # (position, label): categories
    xtick_rotation: float = 0.0
    title_size: float = 12.0
    label_size: float = 12.0
    legend_size: float | None = None  # None: no legend
    legend_title: str = ""
    note: str = ""  # a text in place of the axes (nothing to draw)
    visible: bool = True
    series: list[Series] = field(default_factory=list)
    hlines: list[tuple[float, str, float, bool]] = field(default_factory=list)
    vlines: list[tuple[float, str, float, bool]] = field(default_factory=list)
    _cycle: int = 0

    def set(self, **kw) -> Axes:
        for k, v in kw.items():
            if not hasattr(self, k) or k.startswith("_"):
                raise TypeError(f"Axes has no setting {k!r}")
            setattr(self, k, v)
        return self

    def _next_colour(self, c) -> str:
        if c is None:
            self._cycle += 1
            return colour(None, self._cycle - 1)
        return colour(c)

    def line(self, x, y, label=None, color=None, width=1.5, dash=False, marker=None, yerr=None) -> Series:
        """A polyline through (x, y), broken where either is NaN; ``marker`` ("o", "x", "+",
        "s") at each point; ``yerr`` an error bar of that half-length at each point."""
        s = Series("line", np.asarray(x, float), np.asarray(y, float), label, self._next_colour(color), width, dash,
                   marker, None if yerr is None else np.asarray(yerr, float))
        self.series.append(s)
        return s

    def steps(self, x, y, label=None, color=None, width=1.0) -> Series:
        """A step line: each y holds from its x to the next (matplotlib's ``where="post"``)."""
        x, y = np.asarray(x, float), np.asarray(y, float)
        if len(x):
            x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
        return self.line(x, y, label=label, color=color, width=width)

    def scatter(self, x, y, marker="o", label=None, color=None) -> Series:
        s = Series("scatter", np.asarray(x, float), np.asarray(y, float), label, self._next_colour(color), 1.0,
                   marker=marker)
        self.series.append(s)
        return s

    def bars(self, x, heights, width=0.8, label=None, color=None, colors=None) -> Series:
        """Bars centred on x, from 0 to each height; ``colors`` one colour per bar."""
        s = Series("bars", np.asarray(x, float), np.asarray(heights, float), label,
                   self._next_colour(color) if colors is None else colour(colors[0]) if len(colors) else PALETTE[0],
                   bar_width=width, colors=None if colors is None else [colour(c) for c in colors])
        self.series.append(s)
        return s

    def stairs(self, values, edges, label=None, color=None, width=1.5) -> Series:
        """A histogram's outline: ``values[i]`` over ``[edges[i], edges[i + 1])``."""
        s = Series("stairs", np.asarray(edges, float), np.asarray(values, float), label, self._next_colour(color),
                   width)
        self.series.append(s)
        return s

    def hline(self, y, color=GREY, width=0.8, dash=False):
        self.hlines.append((float(y), colour(color), width, dash))

    def vline(self, x, color=GREY, width=0.8, dash=False):
        self.vlines.append((float(x), colour(color), width, dash))

    def legend(self, size=10.0, title=""):
        self.legend_size, self.legend_title = size, title

    # --- layout ----------------------------------------------------------------------------
    def _data_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Every drawn point (x, y), for the limits and the legend's place."""
        xs, ys = [], []
        for s in self.series:
            if s.kind == "stairs":
                xs += [s.x, s.x[1:]]
                ys += [np.r_[s.y, s.y[-1:]] if len(s.y) else s.y, s.y]
            elif s.kind == "bars":
                w = np.broadcast_to(np.asarray(s.bar_width, float), s.x.shape)
                xs += [s.x - w / 2, s.x + w / 2, s.x]
                ys += [np.zeros_like(s.y), np.zeros_like(s.y), s.y]
            else:
                xs.append(s.x)
                ys.append(s.y)
                if s.yerr is not None:
                    xs += [s.x, s.x]
                    ys += [s.y - s.yerr, s.y + s.yerr]
        if not xs:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(xs), np.concatenate(ys)

    def limits(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The x and y ranges shown: set ones as set, others the data's with 5 % on each side
        (as matplotlib's default margins); (0, 1) where there are no data."""
        x, y = self._data_points()
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        for v, *_ in self.hlines:
            y = np.r_[y, v]
        for v, *_ in self.vlines:
            x = np.r_[x, v]
        return (self.xlim or _padded(x, self.xticks)), (self.ylim or _padded(y, None))


def _padded(v: np.ndarray, categories) -> tuple[float, float]:
    if categories:
        pos = [p for p, _ in categories]
        v = np.r_[v, pos] if len(v) else np.asarray(pos, float)
    if not len(v):
        return (0.0, 1.0)
    lo, hi = float(v.min()), float(v.max())
    if hi == lo:
        d = abs(lo) * 0.05 or 0.5
        return (lo - d, hi + d)
    pad = (hi - lo) * 0.05
    return (lo - pad, hi + pad)


class _Map:
    """Data to pixels inside a plot area (y grows upwards in the data, downwards in SVG)."""

    def __init__(self, xlim, ylim, left, top, width, height):
        self.xlim, self.ylim = xlim, ylim
        self.left, self.top, self.width, self.height = left, top, width, height
        self.sx = width / (xlim[1] - xlim[0]) if xlim[1] != xlim[0] else 0.0
        self.sy = height / (ylim[1] - ylim[0]) if ylim[1] != ylim[0] else 0.0

    def x(self, v):
        return self.left + (np.asarray(v, float) - self.xlim[0]) * self.sx

    def y(self, v):
        return self.top + self.height - (np.asarray(v, float) - self.ylim[0]) * self.sy


_DASH = ' stroke-dasharray="5.5,2.4"'


def _polyline(xs, ys, stroke, width, dash) -> list[str]:
    """Polylines through the finite points, one per run of consecutive finite points."""
    ok = np.isfinite(xs) & np.isfinite(ys)
    out = []
    start = None
    for i in range(len(xs) + 1):
        if i < len(xs) and ok[i]:
            start = i if start is None else start
            continue
        if start is not None and i - start >= 2:
            pts = " ".join(f"{_f(a)},{_f(b)}" for a, b in zip(xs[start:i], ys[start:i]))
            out.append(f'<polyline points="{pts}" fill="none" stroke="{stroke}" stroke-width="{width:g}" '
                       f'stroke-linejoin="round"{_DASH if dash else ""}/>')
        start = None
    return out


def _markers(xs, ys, marker, c, size=3.0) -> list[str]:
    ok = np.isfinite(xs) & np.isfinite(ys)
    xs, ys = xs[ok], ys[ok]
    if marker == "o":
        return [f'<circle cx="{_f(a)}" cy="{_f(b)}" r="{size:g}" fill="{c}"/>' for a, b in zip(xs, ys)]
    if marker == "s":
        return [f'<rect x="{_f(a - size)}" y="{_f(b - size)}" width="{2 * size:g}" height="{2 * size:g}" fill="{c}"/>'
                for a, b in zip(xs, ys)]
    if marker in ("x", "+"):
        if marker == "x":
            d = "".join(f"M{_f(a - size)},{_f(b - size)}L{_f(a + size)},{_f(b + size)}"
                        f"M{_f(a - size)},{_f(b + size)}L{_f(a + size)},{_f(b - size)}" for a, b in zip(xs, ys))
        else:
            d = "".join(f"M{_f(a - size)},{_f(b)}H{_f(a + size)}M{_f(a)},{_f(b - size)}V{_f(b + size)}"
                        for a, b in zip(xs, ys))
        return [f'<path d="{d}" stroke="{c}" stroke-width="1.2" fill="none"/>'] if len(xs) else []
    raise ValueError(f"unknown marker {marker!r} (expected o, s, x or +)")


class Figure:
    """Panels on a grid of ``nrows`` x ``ncols``, ``width`` x ``height`` pixels, with an
    optional title over them all; ``axes[row][col]`` is a panel."""

    def __init__(self, nrows: int = 1, ncols: int = 1, width: float = 600, height: float = 400, title: str = ""):
        self.nrows, self.ncols, self.width, self.height, self.title = nrows, ncols, width, height, title
        self.axes = [[Axes() for _ in range(ncols)] for _ in range(nrows)]

    @property
    def flat(self) -> list[Axes]:
        return [ax for row in self.axes for ax in row]

    def svg(self) -> str:
        """The figure as an SVG document."""
        top = 30.0 if self.title else 0.0
        cw, ch = self.width / self.ncols, (self.height - top) / self.nrows
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(self.width)}" height="{_f(self.height)}" '
               f'viewBox="0 0 {_f(self.width)} {_f(self.height)}" font-family="{FONT}">',
               f'<rect width="{_f(self.width)}" height="{_f(self.height)}" fill="white"/>']
        if self.title:
            out.append(_text(self.width / 2, 20, self.title, 14, anchor="middle"))
        for k, ax in enumerate(self.flat):
            r, c = divmod(k, self.ncols)
            if ax.visible:
                out += _draw_axes(ax, k, c * cw, top + r * ch, cw, ch)
        out.append("</svg>\n")
        return "\n".join(out)

    def save(self, path) -> None:
        """Write the SVG atomically (a reader never sees half a file)."""
        with atomic_path(path) as tmp:
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(self.svg())


def _text(x, y, s, size, anchor="start", rotate=None, weight=None) -> str:
    rot = f' transform="rotate({rotate:g} {_f(x)} {_f(y)})"' if rotate else ""
    w = f' font-weight="{weight}"' if weight else ""
    return (f'<text x="{_f(x)}" y="{_f(y)}" font-size="{size:g}" text-anchor="{anchor}"{rot}{w}>'
            f"{escape(str(s))}</text>")


def axes_ticks(ax: Axes, xlim, ylim) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """The (value, label) ticks of both axes within the limits shown."""
    if ax.xticks is not None:
        xt = [(p, lab) for p, lab in ax.xticks]
    else:
        v = nice_ticks(*xlim, integer=ax.integer_x)
        xt = [(t, tick_label(t, v)) for t in v]
    v = nice_ticks(*ylim, max_ticks=7, integer=ax.integer_y)
    return xt, [(t, tick_label(t, v)) for t in v]


def _draw_axes(ax: Axes, k: int, x0: float, y0: float, cw: float, ch: float) -> list[str]:
    if ax.note:  # its lines centred in the panel, one below the other
        lines = ax.note.splitlines()
        step = ax.label_size * 1.4
        first = y0 + ch / 2 - step * (len(lines) - 1) / 2
        return [_text(x0 + cw / 2, first + step * i, line, ax.label_size, anchor="middle")
                for i, line in enumerate(lines)]
    xlim, ylim = ax.limits()
    xt, yt = axes_ticks(ax, xlim, ylim)
    ls = ax.label_size
    ylab_w = max((_text_width(lab, ls - 1) for _, lab in yt), default=0)
    left = x0 + ylab_w + 12 + (ls + 6 if ax.ylabel else 0)
    rot = ax.xtick_rotation
    xlab_h = (max((_text_width(lab, ls - 2) for _, lab in xt), default=0) * math.sin(math.radians(rot)) + ls
              if rot else ls)
    bottom = y0 + ch - (xlab_h + 10 + (ls + 8 if ax.xlabel else 0))
    top = y0 + (ax.title_size + 14 if ax.title else 10)
    right = x0 + cw - 14
    m = _Map(xlim, ylim, left, top, right - left, bottom - top)
    out = [f'<clipPath id="p{k}"><rect x="{_f(left)}" y="{_f(top)}" width="{_f(right - left)}" '
           f'height="{_f(bottom - top)}"/></clipPath>', f'<g clip-path="url(#p{k})">']
    for v, c, w, dash in ax.hlines:
        out.append(f'<line x1="{_f(left)}" y1="{_f(m.y(v))}" x2="{_f(right)}" y2="{_f(m.y(v))}" stroke="{c}" '
                   f'stroke-width="{w:g}"{_DASH if dash else ""}/>')
    for v, c, w, dash in ax.vlines:
        out.append(f'<line x1="{_f(m.x(v))}" y1="{_f(top)}" x2="{_f(m.x(v))}" y2="{_f(bottom)}" stroke="{c}" '
                   f'stroke-width="{w:g}"{_DASH if dash else ""}/>')
    for s in ax.series:
        out += _draw_series(s, m)
    out.append("</g>")
    out.append(f'<rect x="{_f(left)}" y="{_f(top)}" width="{_f(right - left)}" height="{_f(bottom - top)}" '
               'fill="none" stroke="black" stroke-width="0.8"/>')
    tick = []
    for v, lab in xt:
        px = float(m.x(v))
        if left - 0.5 <= px <= right + 0.5:
            tick.append(f"M{_f(px)},{_f(bottom)}v3.5")
            if rot:
                out.append(_text(px, bottom + ls + 2, lab, ls - 2, anchor="end", rotate=-rot))
            else:
                out.append(_text(px, bottom + ls + 3, lab, ls - 1, anchor="middle"))
    for v, lab in yt:
        py = float(m.y(v))
        if top - 0.5 <= py <= bottom + 0.5:
            tick.append(f"M{_f(left)},{_f(py)}h-3.5")
            out.append(_text(left - 6, py + (ls - 1) * 0.35, lab, ls - 1, anchor="end"))
    if tick:
        out.append(f'<path d="{"".join(tick)}" stroke="black" stroke-width="0.8"/>')
    if ax.title:
        out.append(_text((left + right) / 2, y0 + ax.title_size + 4, ax.title, ax.title_size, anchor="middle"))
    if ax.xlabel:
        out.append(_text((left + right) / 2, y0 + ch - 8, ax.xlabel, ls, anchor="middle"))
    if ax.ylabel:
        out.append(_text(x0 + ls + 2, (top + bottom) / 2, ax.ylabel, ls, anchor="middle", rotate=-90))
    if ax.legend_size:
        out += _legend(ax, m)
    return out


def _draw_series(s: Series, m: _Map) -> list[str]:
    if s.kind == "bars":
        out = []
        w = np.broadcast_to(np.asarray(s.bar_width, float), s.x.shape)
        for i, (x, h) in enumerate(zip(s.x, s.y)):
            if not (np.isfinite(x) and np.isfinite(h)):
                continue
            xa, xb = float(m.x(x - w[i] / 2)), float(m.x(x + w[i] / 2))
            ya, yb = sorted((float(m.y(0)), float(m.y(h))))
            fill = s.colors[i % len(s.colors)] if s.colors else s.color
            out.append(f'<rect x="{_f(xa)}" y="{_f(ya)}" width="{_f(xb - xa)}" height="{_f(yb - ya)}" fill="{fill}"/>')
        return out
    if s.kind == "stairs":
        if not len(s.y):
            return []
        d = f"M{_f(m.x(s.x[0]))},{_f(m.y(s.y[0]))}" + "".join(
            f"H{_f(m.x(s.x[i + 1]))}" + (f"V{_f(m.y(s.y[i + 1]))}" if i + 1 < len(s.y) else "")
            for i in range(len(s.y)))
        return [f'<path d="{d}" fill="none" stroke="{s.color}" stroke-width="{s.width:g}"/>']
    xs, ys = m.x(s.x), m.y(s.y)
    out = []
    if s.yerr is not None:
        lo, hi = m.y(s.y - s.yerr), m.y(s.y + s.yerr)
        d = "".join(f"M{_f(a)},{_f(b)}V{_f(c)}M{_f(a - 3)},{_f(b)}h6M{_f(a - 3)},{_f(c)}h6"
                    for a, b, c in zip(xs, lo, hi) if np.isfinite(a) and np.isfinite(b) and np.isfinite(c))
        if d:
            out.append(f'<path d="{d}" stroke="{s.color}" stroke-width="1" fill="none"/>')
    if s.kind == "line":
        out += _polyline(xs, ys, s.color, s.width, s.dash)
    if s.marker:
        out += _markers(xs, ys, s.marker, s.color, 2.5 if s.kind == "line" else 3.0)
    return out


def _legend(ax: Axes, m: _Map) -> list[str]:
    """The legend in the corner of the plot area where it covers the fewest drawn points
    (upper right first on ties, as matplotlib's ``loc="best"`` orders its corners)."""
    entries = [s for s in ax.series if s.label]
    if not entries:
        return []
    size = ax.legend_size
    row = size * 1.35
    width = 34 + max(_text_width(s.label, size) for s in entries) + 8
    if ax.legend_title:
        width = max(width, _text_width(ax.legend_title, size) + 16)
    height = row * (len(entries) + (1 if ax.legend_title else 0)) + 6
    x, y = ax._data_points()
    px, py = m.x(x), m.y(y)
    pad = 6
    corners = [(m.left + m.width - width - pad, m.top + pad), (m.left + pad, m.top + pad),
               (m.left + pad, m.top + m.height - height - pad), (m.left + m.width - width - pad, m.top + m.height - height - pad)]

    def covered(c):
        return int(np.sum((px >= c[0]) & (px <= c[0] + width) & (py >= c[1]) & (py <= c[1] + height)))

    lx, ly = min(corners, key=covered)
    out = [f'<rect x="{_f(lx)}" y="{_f(ly)}" width="{_f(width)}" height="{_f(height)}" fill="white" '
           'fill-opacity="0.85" stroke="#cccccc" stroke-width="0.8" rx="2"/>']
    yy = ly + 3
    if ax.legend_title:
        out.append(_text(lx + width / 2, yy + size, ax.legend_title, size, anchor="middle"))
        yy += row
    for s in entries:
        mid = yy + row / 2
        if s.kind == "bars":
            out.append(f'<rect x="{_f(lx + 8)}" y="{_f(mid - size / 3)}" width="20" height="{_f(size * 2 / 3)}" '
                       f'fill="{s.color}"/>')
        elif s.kind == "scatter":
            out += _markers(np.array([lx + 18]), np.array([mid]), s.marker, s.color)
        else:
            out.append(f'<line x1="{_f(lx + 6)}" y1="{_f(mid)}" x2="{_f(lx + 30)}" y2="{_f(mid)}" stroke="{s.color}" '
                       f'stroke-width="{s.width:g}"{_DASH if s.dash else ""}/>')
            if s.marker:
                out += _markers(np.array([lx + 18]), np.array([mid]), s.marker, s.color, 2.5)
        out.append(_text(lx + 34, mid + size * 0.35, s.label, size))
        yy += row
    return out


__all__ = ["Axes", "Figure", "PALETTE", "Series", "axes_ticks", "colour", "nice_ticks", "tick_label"]
