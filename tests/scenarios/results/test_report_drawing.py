"""Report figures that do not mislead: tick labels on every cost axis, measured costs never moved,
a log cost axis only over a wide span, shares of few runs read as counts k/n, every share's
interval a shaded band."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from scenarios.figures.report_drawing import BAND, SMALL_N, draw, wide
from scenarios.figures.report_series import Figure, Series, wilson

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"


def _axes(svg: str, index: int) -> ET.Element:
    root = ET.fromstring(svg)
    (ax,) = [g for g in root.iter(f"{SVG}g") if g.get("id") == f"axes_{index}"]
    return ax


def _texts(el: ET.Element) -> list[str]:
    """The text of an SVG (``svg.fonttype = none``: text kept as text), one entry per element."""
    return ["".join(t.itertext()).strip() for t in el.iter(f"{SVG}text")]


def _marker_xs(ax: ET.Element) -> set[float]:
    """x of every marker and error-bar cap drawn in the axes (not the tick marks)."""
    data = [g for g in ax if not (g.get("id") or "").startswith("matplotlib.axis")]
    return {round(float(u.get("x", "nan")), 3) for g in data for u in g.iter(f"{SVG}use") if u.get("x")}


def _equal_cost_figure() -> Figure:
    """Two groups (cluster, lambda) whose every run costs the same: 6,000 messages, 0.91 MB."""
    series = []
    for lab, ys in (("mechanism = cluster", (0.12, 0.2)), ("mechanism = lambda", (0.14, 0.22))):
        series.append(Series("messages", lab, (6000.0, 6000.0), ys, (0.01, 0.02), style="markers"))
        series.append(Series("payload bytes", lab, (0.91, 0.91), ys, (0.01, 0.02), style="markers"))
    return Figure("accuracy-cost", "t", "c", {"messages": "messages", "payload bytes": "MB"},
                  {"messages": "error"}, tuple(series))  # fmt: skip


def test_equal_costs_get_a_tick_label_and_stay_where_they_were_measured() -> None:
    fig = draw(_equal_cost_figure(), panels=("messages", "payload bytes"),
               logx=("messages", "payload bytes"), legend_out=True)  # fmt: skip
    for i, value in ((1, "6,000"), (2, "0.91")):
        ax = _axes(fig.svg, i)
        ticks = [t for t in _texts(ax) if re.fullmatch(r"[0-9.,]+", t)]
        assert value in ticks, (i, ticks)  # before: no tick label at all on either panel
        # every marker (both groups, both points) at the one measured x: nothing dodged apart
        assert len(_marker_xs(ax)) == 1, _marker_xs(ax)
        assert any(f"every group at the same x: {value}" in t for t in _texts(ax))


def test_a_narrow_cost_span_gets_at_least_two_tick_labels() -> None:
    s = Series("messages", "all runs", (90.0, 180.0), (0.2, 0.1), style="markers")
    fig = draw(Figure("k", "t", "c", {}, {}, (s,)), panels=("messages",), logx=("messages",))
    ticks = [t for t in _texts(_axes(fig.svg, 1)) if re.fullmatch(r"[0-9.,]+", t)]
    xticks = [t for t in ticks if float(t.replace(",", "")) >= 50]
    assert len(xticks) >= 2, ticks


def _rates(n: int) -> Series:
    ks = (n, n // 2, 0)
    ci = [wilson(k, n) for k in ks]
    return Series("completed", "drop_step = shares", (0.0, 0.2, 0.5), tuple(k / n for k in ks),
                  lo=tuple(c[0] for c in ci), hi=tuple(c[1] for c in ci), n=(n, n, n))  # fmt: skip


def test_shares_of_few_runs_are_labelled_with_their_counts() -> None:
    fig = draw(Figure("c", "t", "c", {}, {}, (_rates(5),)), panels=("completed",), sharey=False)
    texts = _texts(_axes(fig.svg, 1))
    assert {"5/5", "2/5", "0/5"} <= set(texts), texts
    many = draw(Figure("c", "t", "c", {}, {}, (_rates(SMALL_N),)), panels=("completed",))
    assert not any(re.fullmatch(r"\d+/\d+", t) for t in _texts(_axes(many.svg, 1)))


def test_wilson_intervals_hold_the_share_and_draw_at_every_count() -> None:
    """4/4 put the upper bound a rounding error below 1: matplotlib refused the bar and the whole
    report (and the live view of a study at 4 repeats) failed."""
    for n in range(1, 40):
        for k in range(n + 1):
            lo, hi = wilson(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n, lo, hi)
    ci = wilson(4, 4)
    s = Series("completed", "all runs", (0.0,), (1.0,), lo=(ci[0],), hi=(1.0 - 1e-16,), n=(25,))
    assert draw(Figure("c", "t", "c", {}, {}, (s,)), panels=("completed",)).svg


def test_tick_labels_at_close_costs_do_not_run_into_each_other() -> None:
    """Three costs within 11 % (162, 174, 180 messages) printed as "174180" on one spot."""
    s = Series("messages", "all runs", (162.0, 174.0, 180.0), (0.3, 0.2, 0.25), style="markers")
    fig = draw(Figure("k", "t", "c", {}, {}, (s,)), panels=("messages",), logx=("messages",))
    ticks = [t for t in _texts(_axes(fig.svg, 1)) if t.replace(",", "").isdigit() and int(t) > 100]
    assert ticks == ["162", "180"], ticks


def test_a_linear_axis_of_costs_starts_at_zero() -> None:
    """800 to 1,200 messages on an axis from 780 looked like a factor of five."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from scenarios.figures.report_drawing import _from_zero

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [800.0, 1000.0, 1200.0])
    assert ax.get_ylim()[0] > 700  # matplotlib's own limits hug the data
    _from_zero(ax, [800.0, 1000.0, 1200.0])
    lo, hi = ax.get_ylim()
    assert lo == 0 and hi >= 1200
    fig2, ax2 = plt.subplots()  # a quantity that can be negative keeps its limits
    ax2.plot([1, 2], [-1.0, 3.0])
    before = ax2.get_ylim()
    _from_zero(ax2, [-1.0, 3.0])
    assert ax2.get_ylim() == before
    plt.close(fig)
    plt.close(fig2)


def test_count_labels_of_a_low_share_stack_upwards_inside_the_axes() -> None:
    """0/3 of four series at a share of 0 were stacked downwards, under the x axis."""
    series = tuple(Series("completed", f"s{i}", (0.0, 0.5), (1.0, 0.0), lo=(0.4, 0.0), hi=(1.0, 0.6), n=(3, 3))
                   for i in range(4))  # fmt: skip
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    captured: list[tuple[float, float]] = []
    real = plt.Axes.annotate

    def spy(self, text, xy, *a, **k):  # type: ignore[no-untyped-def]
        if text.endswith("/3"):
            captured.append((xy[1], k["xytext"][1]))
        return real(self, text, xy, *a, **k)

    plt.Axes.annotate = spy  # type: ignore[method-assign]
    try:
        draw(Figure("c", "t", "c", {}, {}, series), panels=("completed",))
    finally:
        plt.Axes.annotate = real  # type: ignore[method-assign]
    low = [dy for y, dy in captured if y == 0.0]
    high = [dy for y, dy in captured if y == 1.0]
    assert len(low) == 4 and min(low) > 0  # every label of the zero share above its marker
    assert max(high) == 9 and min(high) < 0  # from the top share downwards, as before


def _ids(ax: ET.Element) -> list[str]:
    return [g.get("id") or "" for g in ax.iter(f"{SVG}g")]


def test_wilson_intervals_are_drawn_as_bands_and_the_legend_says_so() -> None:
    """Intervals were vertical bars (few runs: thick faint ones) that read as data."""
    for n in (5, SMALL_N):
        fig = draw(Figure("c", "t", "c", {}, {}, (_rates(n),)), panels=("completed",))
        ax = _axes(fig.svg, 1)
        assert any("PolyCollection" in i for i in _ids(ax)), _ids(ax)  # the band
        assert not any(i.startswith("LineCollection") for i in _ids(ax)), _ids(ax)  # no error bars
        assert BAND in _texts(ET.fromstring(fig.svg)), n
    plain = Series("messages", "all runs", (1.0, 2.0), (0.2, 0.1), style="markers")
    fig = draw(Figure("k", "t", "c", {}, {}, (plain,)), panels=("messages",))
    assert BAND not in _texts(ET.fromstring(fig.svg))  # no interval, no band in the legend


def test_a_cost_axis_is_log_only_from_a_decade_and_a_half() -> None:
    assert wide([90.0, 3000.0]) and wide([0.01, 0.3, None])
    assert not wide([300.0, 3000.0]) and not wide([900.0, 900.0]) and not wide([])
    s = Series("messages", "all runs", (800.0, 1200.0), (0.2, 0.1), style="markers")
    fig = draw(Figure("k", "t", "c", {}, {}, (s,)), panels=("messages",), xzero=("messages",))
    ticks = [t for t in _texts(_axes(fig.svg, 1)) if re.fullmatch(r"[0-9.,]+", t)]
    assert "0" in ticks, ticks  # the linear cost axis starts at zero


def test_a_share_plot_keeps_its_legend_and_its_bound_label_off_the_count_labels() -> None:
    """The max_dropout label sat at the top of its line, over the k/n labels of the points beside
    it, and the legend ("best") over a band: the label now runs along the line at mid-height, and
    a figure of shares puts its legend beside the axes."""
    fig = draw(Figure("c", "t", "c", {}, {}, (_rates(5),)), panels=("completed",),
               vlines={"completed": [(0.34, "max_dropout = 0.34")]})  # fmt: skip
    ax = _axes(fig.svg, 1)
    assert BAND not in _texts(ax) and BAND in _texts(ET.fromstring(fig.svg))  # the legend: outside
    (label,) = [t for t in ax.iter(f"{SVG}text") if "max_dropout" in "".join(t.itertext())]
    assert "rotate(-90" in (label.get("transform") or ""), label.attrib  # along the line
