"""The SVG charts (inexflow.io.svg): ticks chosen by hand, and drawn coordinates mapped back to
the data through the plot area's frame, computed here independently of the module."""

import numpy as np
import pytest
from lxml import etree

from inexflow.io.svg import PALETTE, Figure, colour, nice_ticks, tick_label

NS = {"s": "http://www.w3.org/2000/svg"}


@pytest.mark.parametrize("lo, hi, integer, want", [
    (0, 1, False, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),  # step 0.1 gives 11 ticks, 0.2 gives 6
    (-0.05, 1.05, False, [0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (5, 107, True, [20, 40, 60, 80, 100]),  # 10 gives 10 ticks; 2.5 x 10 would too and is skipped for 20
    (0.98, 1.002, False, [0.98, 0.985, 0.99, 0.995, 1.0]),  # 0.001, 0.002 and 0.0025 give too many
    (0, 3, True, [0, 1, 2, 3]),  # no fractional step for counts
    (-0.05, 0.05, True, [0]), (0.2, 0.4, True, []),  # nor below 1, whatever the range
    (-7, 7, False, [-6, -4, -2, 0, 2, 4, 6]),
])
def test_ticks_are_the_fewest_round_steps_that_fit(lo, hi, integer, want):
    assert nice_ticks(lo, hi, max_ticks=8, integer=integer) == pytest.approx(want, abs=1e-12)


def test_tick_labels_have_the_decimals_of_the_finest_tick():
    assert [tick_label(v, [0, 0.25, 0.5]) for v in (0, 0.25, 0.5)] == ["0.00", "0.25", "0.50"]
    assert [tick_label(v, [20, 40]) for v in (20, 40)] == ["20", "40"]
    assert tick_label(0.98, [0.98, 0.985]) == "0.980"
    assert tick_label(-1e-17, [0, 0.5]) == "0.0"  # no "-0.0"


def test_colours_follow_matplotlib_names():
    assert colour("C3") == PALETTE[3] == "#d62728" and colour(None, 11) == PALETTE[1] and colour("#123456") == "#123456"


def frame_of(svg):
    """The plot area (left, top, width, height) of the first panel: its frame rectangle."""
    r = next(r for r in svg.iterfind(".//s:rect", NS) if r.get("fill") == "none" and r.get("stroke") == "black")
    return tuple(float(r.get(k)) for k in ("x", "y", "width", "height"))


def points(el):
    return np.array([[float(v) for v in p.split(",")] for p in el.get("points").split()])


def draw(tmp_path, fill):
    fig = Figure(1, 1, width=600, height=400, title="t")
    fill(fig.axes[0][0])
    fig.save(tmp_path / "f.svg")
    return etree.parse(str(tmp_path / "f.svg")).getroot()


def test_a_line_is_drawn_at_its_data_through_the_plot_area(tmp_path):
    x, y = np.array([0, 2.5, 5, 10]), np.array([0.1, 0.9, 0.35, 1.0])
    svg = draw(tmp_path, lambda ax: (ax.line(x, y, label="run"), ax.set(xlim=(0, 10), ylim=(0, 1)), ax.legend(10)))
    left, top, w, h = frame_of(svg)
    (line,) = svg.iterfind(".//s:polyline", NS)
    drawn = points(line)
    # the inverse of the linear map from (xlim, ylim) to the frame, y upwards
    back = np.column_stack([(drawn[:, 0] - left) / w * 10, (top + h - drawn[:, 1]) / h])
    assert back == pytest.approx(np.column_stack([x, y]), abs=0.1 / min(w / 10, h))  # 0.05 px either side
    texts = [t.text for t in svg.iter("{*}text")]
    assert ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"] == [t for t in texts if t and t.startswith(("0.", "1."))]
    assert {"0", "2", "4", "6", "8", "10"} <= set(texts) and "run" in texts  # x ticks, the legend


def test_nan_breaks_a_line_and_labels_are_escaped(tmp_path):
    svg = draw(tmp_path, lambda ax: (ax.line([1, 2, 3, 4, 5], [1, 2, np.nan, 4, 5], label="a<b & c"), ax.legend(10)))
    assert [len(points(p)) for p in svg.iterfind(".//s:polyline", NS)] == [2, 2]
    assert "a<b & c" in [t.text for t in svg.iter("{*}text")]
    assert "a&lt;b &amp; c" in (tmp_path / "f.svg").read_text()


def test_bars_reach_their_heights_from_zero(tmp_path):
    svg = draw(tmp_path, lambda ax: (ax.bars([0, 1], [2, -1], width=0.5, colors=["C0", "C3"]),
                                    ax.set(xlim=(-1, 2), ylim=(-2, 4))))
    left, top, w, h = frame_of(svg)
    bars = [r for r in svg.iterfind(".//s:rect", NS) if r.get("fill") in (PALETTE[0], PALETTE[3])]
    assert [float(b.get("height")) / h * 6 for b in bars] == pytest.approx([2, 1], abs=0.01)
    assert [(float(b.get("x")) - left) / w * 3 - 1 for b in bars] == pytest.approx([-0.25, 0.75], abs=0.01)
    zero = top + h * 4 / 6  # y = 0: the first bar ends there from above, the second starts there
    assert float(bars[0].get("y")) + float(bars[0].get("height")) == pytest.approx(zero, abs=0.1)
    assert float(bars[1].get("y")) == pytest.approx(zero, abs=0.1)


def test_the_legend_goes_where_it_covers_fewest_points(tmp_path):
    # points fill the upper right quarter: the legend moves to the upper left
    xy = np.array([(x, y) for x in np.linspace(0.6, 1, 9) for y in np.linspace(0.6, 1, 9)])
    svg = draw(tmp_path, lambda ax: (ax.scatter(xy[:, 0], xy[:, 1], label="p"), ax.set(xlim=(0, 1), ylim=(0, 1)),
                                    ax.legend(10)))
    left, top, w, h = frame_of(svg)
    box = next(r for r in svg.iterfind(".//s:rect", NS) if r.get("stroke") == "#cccccc")
    assert float(box.get("x")) < left + w / 2 and float(box.get("y")) < top + h / 2


def test_same_figure_same_bytes_and_unknown_markers_fail(tmp_path):
    def fill(ax):
        ax.line([0, 1, 2], [3, 1, 2], marker="o", yerr=[0.1, 0.2, 0.3], label="x")
        ax.steps([0, 1, 2], [0, 1, 1], label="s")
        ax.stairs([1, 2], [0, 1, 2], label="h")
        ax.hline(1.5, dash=True)
        ax.legend(9, title="legend")
    draw(tmp_path, fill)
    first = (tmp_path / "f.svg").read_bytes()
    draw(tmp_path, fill)
    assert (tmp_path / "f.svg").read_bytes() == first
    with pytest.raises(ValueError, match="unknown marker"):
        draw(tmp_path, lambda ax: ax.line([0, 1], [0, 1], marker="*"))
    with pytest.raises(TypeError, match="no setting"):
        Figure().axes[0][0].set(colour="red")


def test_a_note_takes_the_panel_its_lines_one_below_the_other(tmp_path):
    fig = Figure(1, 1, width=1000, height=400)
    fig.axes[0][0].set(note="first line\nsecond line")
    fig.save(tmp_path / "n.svg")
    texts = list(etree.parse(str(tmp_path / "n.svg")).getroot().iter("{*}text"))
    assert [t.text for t in texts] == ["first line", "second line"]
    assert {float(t.get("x")) for t in texts} == {500.0}
    y1, y2 = (float(t.get("y")) for t in texts)
    assert y2 - y1 >= 12 * 1.2 and (y1 + y2) / 2 == pytest.approx(200, abs=1)

