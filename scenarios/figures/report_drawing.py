"""Drawing a report's figures: matplotlib into SVG, text kept as text, from exactly ``fig.series``.

:func:`draw` draws line, marker, interval and dotted series panel by panel
(shared or separate axes, log scales with plain tick labels -- at least two
labelled ticks however narrow the span --, reference lines, a legend beside
or under the panels).  Series on a grid's x values may be dodged sideways
(``dodge``: for visibility only, the caption says so); markers at a
*measured* x (``style="markers"``: a cost) are never moved: they are drawn
as concentric rings, and a panel where every marker has the same x says so
in the panel.  A share of runs (an interval series) at fewer than
:data:`SMALL_N` runs per point is labelled ``k/n`` with its interval drawn
faint, so the count and not the width of a Wilson interval is what is read.
Every share's interval is drawn as a band between its points (the legend
says so), never as bars that read like data.  A measured x (a cost) is on a
log axis only when it spans at least :data:`LOG_SPAN` (:func:`wide`), else
on a linear axis from zero.
:func:`draw_stacked` draws horizontal stacked bars.  Both return the figure
with its ``svg`` filled in and close the matplotlib figure.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from scenarios.figures._backend import LOG_SPAN, plain_log, pyplot
from scenarios.figures.report_series import Figure

__all__ = ["BAND", "COLORS", "LOG_SPAN", "MARKERS", "SMALL_N", "draw", "draw_stacked", "wide"]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
          "#7f7f7f", "#bcbd22")  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
# below this many runs per point a share is shown as its count k/n (a Wilson bar at n = 5 spans
# about half the axis and would be all the eye sees)
SMALL_N = 20
BAND = "95 % Wilson interval (shaded band)"


def wide(values: Sequence[float | None]) -> bool:
    """Whether positive ``values`` span at least :data:`LOG_SPAN` (largest / smallest): a log axis then."""
    pos = [float(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    return bool(pos) and max(pos) / min(pos) >= LOG_SPAN


def draw(fig: Figure, *, panels: Sequence[str], logx: Sequence[str] = (), logy: Sequence[str] = (),
         sharey: bool = True, sharex: bool = False, ylim: tuple[float, float] | None = None,
         vlines: dict[str, list[tuple[float, str]]] | None = None, hlines: dict[str, list[tuple[float, str]]] | None = None,
         height: float = 4.2, legend_out: bool = False, dodge: bool = False,
         xzero: Sequence[str] = ()) -> Figure:  # fmt: skip
    """Draw ``fig.series`` (panel by panel) into an SVG; returns the figure with it.  ``xzero``:
    panels whose linear x axis (of non-negative values) starts at zero."""
    plt = pyplot()

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 11, "axes.titlesize": 11, "axes.labelsize": 11,
                         "legend.fontsize": 9.5, "xtick.labelsize": 10, "ytick.labelsize": 10,
                         "font.family": "DejaVu Sans"})  # fmt: skip
    n = len(panels)
    below = (
        legend_out and n > 1
    )  # several panels: the legend goes under them, the page stays 12 in wide
    width = min(max(4.0 * n, 7.6) + (2.6 if legend_out and not below else 0.4), 12.2)
    f, axes = plt.subplots(
        1, n, figsize=(width, height), sharey=sharey, sharex=sharex, squeeze=False
    )
    labels = list(dict.fromkeys(s.label for s in fig.series))
    color = {lab: COLORS[i % len(COLORS)] for i, lab in enumerate(labels)}
    marker = {lab: MARKERS[i % len(MARKERS)] for i, lab in enumerate(labels)}
    for ax, panel in zip(axes[0], panels, strict=True):
        mine = [s for s in fig.series if s.panel == panel]
        # dodge only where the series share their x values (a grid), never a measured x
        shared_x = len({tuple(s.x) for s in mine if s.style != "dotted"}) == 1
        for s in mine:
            xs = list(s.x)
            ys = [math.nan if v is None else v for v in s.y]
            c, mk = color[s.label], marker[s.label]
            if s.style == "bar":
                continue
            if s.style == "dotted":
                ax.plot(xs, ys, color="0.2", ls=":", lw=1.8, label=s.label)
                continue
            ls = "-" if s.style == "line" else "none"
            if s.style == "markers":  # a measured x is never moved: rings, the first the widest
                _rings(ax, s, xs, ys, c, mk, labels.index(s.label), len(labels))
                continue
            if (
                dodge and shared_x and len(labels) > 1 and xs
            ):  # coinciding series side by side (drawing only)
                shift = labels.index(s.label) - (len(labels) - 1) / 2
                if panel in logx and min(xs) > 0:
                    ratio = max(xs) / min(xs) if max(xs) > min(xs) else 10.0
                    xs = [v * ratio ** (0.008 * shift) for v in xs]
                else:
                    span = (max(xs) - min(xs)) or 1.0
                    xs = [v + shift * 0.008 * span for v in xs]
            if s.lo is not None and s.hi is not None:
                # (clamped: a Wilson bound can miss k/n by a rounding error, and matplotlib refuses a
                # negative bar)
                lo = [max(0.0, y - (math.nan if v is None else v)) for y, v in zip(ys, s.lo, strict=True)]
                hi = [max(0.0, (math.nan if v is None else v) - y) for y, v in zip(ys, s.hi, strict=True)]
                _band(ax, xs, ys, lo, hi, c)
                if s.n and max(s.n) < SMALL_N:  # few runs: the count k/n is what is read
                    _counts(ax, s, xs, ys, c, mk, ls, labels.index(s.label))
                    continue
                ax.plot(xs, ys, color=c, marker=mk, ls=ls, ms=6, lw=1.6, alpha=0.9, label=s.label)
                continue
            if s.yerr is not None and any(e for e in s.yerr):
                ax.errorbar(xs, ys, yerr=[0.0 if e is None else e for e in s.yerr], color=c, marker=mk, ls=ls,
                            ms=6, lw=1.6, capsize=3, label=s.label)  # fmt: skip
            else:
                every = max(1, len(xs) // 15)  # long curves: a marker every few points
                ax.plot(
                    xs, ys, color=c, marker=mk, ls=ls, ms=6, lw=1.6, label=s.label, markevery=every
                )
        for v, text in (vlines or {}).get(panel, []):
            ax.axvline(v, color="0.35", ls="--", lw=1.1)
            # along the line at mid-height, on its left: the top and bottom rows hold the k/n labels
            ax.annotate(text, (v, 0.5), xycoords=("data", "axes fraction"), xytext=(-3, 0),
                        textcoords="offset points", fontsize=9, color="0.25", rotation=90,
                        ha="right", va="center")  # fmt: skip
        for j, (v, text) in enumerate((hlines or {}).get(panel, [])):
            ax.axhline(
                v,
                color=("0.15", "#b8860b", "0.5")[j % 3],
                ls=(":", "--", "-.")[j % 3],
                lw=1.5,
                label=text,
            )
        if panel in logx:
            ax.set_xscale("log")
            plain_log(ax.xaxis)
            _two_ticks(ax, "x", [v for s in mine if s.style != "dotted" for v in s.x if v is not None])
        _same_x_note(ax, mine)
        if panel in logy:
            ax.set_yscale("log")
            plain_log(ax.yaxis)
            _two_ticks(ax, "y", [v for s in mine for v in s.y if v is not None])
        if ylim is not None:
            ax.set_ylim(*ylim)
        elif panel not in logy:
            _from_zero(ax, [v for s in mine for v in s.y if v is not None])
        if panel in xzero and panel not in logx:
            _from_zero(ax, [v for s in mine for v in s.x if v is not None], "x")
        ax.set_xlabel(fig.xlabel.get(panel, ""))
        if ax is axes[0][0] or not sharey:
            ax.set_ylabel(fig.ylabel.get(panel, ""))
        t = panel if n > 1 or panel else ""
        if t:
            ax.set_title(t)
        ax.grid(True, alpha=0.3, which="both")
    handles, labs = axes[0][0].get_legend_handles_labels()
    for ax in axes[0][1:]:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labs:
                handles.append(h)
                labs.append(lab)
    bands = any(s.lo is not None and s.hi is not None for s in fig.series)
    if bands:  # the bands' one legend entry
        from matplotlib.patches import Patch

        handles.append(Patch(facecolor="0.45", alpha=0.3, lw=0))
        labs.append(BAND)
        if labs[0] == "all runs" and len(labs) == 2:  # one series: only the band needs saying
            handles, labs = handles[1:], labs[1:]
    if labs and not (len(labs) == 1 and labs[0] == "all runs"):
        if below:
            f.legend(handles, labs, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(labs), 4),
                     frameon=False)  # fmt: skip
        elif legend_out or bands:  # a share's band and its k/n labels fill the axes: beside them
            f.legend(handles, labs, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        else:
            axes[0][-1].legend(handles, labs, loc="best", framealpha=0.85)
    return _with_svg(fig, f)


def _rings(ax: Any, s: Any, xs: list[Any], ys: list[float], c: str, mk: str, index: int, count: int) -> None:
    """Markers at their measured x, hollow and the larger the earlier the series: series that cost
    the same stay visible as concentric rings instead of being pushed apart."""
    ms = 6.0 + 3.0 * (count - 1 - index)
    err = [0.0 if e is None else e for e in s.yerr] if s.yerr is not None else None
    ax.errorbar(xs, ys, yerr=err if err and any(err) else None, color=c, marker=mk, ls="none", ms=ms,
                mfc="none", mew=1.8, capsize=3, elinewidth=1.0, alpha=0.9, label=s.label)  # fmt: skip


def _band(ax: Any, xs: list[Any], ys: list[float], lo: list[float], hi: list[float], c: str) -> None:
    """A share's interval as a shaded band from point to point (``lo``, ``hi``: how far below and
    above the share), under its line: it reads as uncertainty, not as bars of data."""
    lower = [y - d for y, d in zip(ys, lo, strict=True)]
    upper = [y + d for y, d in zip(ys, hi, strict=True)]
    ax.fill_between(xs, lower, upper, color=c, alpha=0.13, lw=0, zorder=1)


def _counts(ax: Any, s: Any, xs: list[Any], ys: list[float], c: str, mk: str, ls: str, index: int) -> None:
    """A share of few runs: the marker labelled ``k/n`` (its Wilson interval: the band beneath)."""
    ax.plot(xs, ys, color=c, marker=mk, ls=ls, ms=6, lw=1.6, label=s.label)
    ax.set_ylim(-0.05, 1.12)  # a share: the whole axis, room above for the labels
    for x, y, n in zip(xs, ys, s.n, strict=False):
        if math.isnan(y):
            continue
        k = round(y * n)
        # beside the marker, one row per series so two series at one point do not overwrite;
        # stacked downwards from a high share, upwards from a low one: inside the axes either way
        dy = 9 - 13 * index if y >= 0.5 else 9 + 13 * index
        ax.annotate(f"{k}/{n}", (x, y), xytext=(7, dy), textcoords="offset points",
                    fontsize=9, color=c, va="center", fontweight="bold")  # fmt: skip


def _from_zero(ax: Any, values: Sequence[float], which: str = "y") -> None:
    """A linear axis (``which``: ``"y"`` or ``"x"``) of non-negative quantities (messages, bytes,
    seconds, errors) starts at 0: an axis from 800 messages makes a 5 % difference look like a
    factor of two."""
    finite = [v for v in values if math.isfinite(v)]
    lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
    if finite and min(finite) >= 0 and lo > 0:  # room for a marker at the far end
        (ax.set_ylim if which == "y" else ax.set_xlim)(0, hi + 0.04 * (hi - lo))


def _same_x_note(ax: Any, mine: Sequence[Any]) -> None:
    """Say so in the panel when every marker of a measured x has one value (all runs cost the same)."""
    xs = {v for s in mine if s.style == "markers" for v in s.x if v is not None}
    groups = {s.label for s in mine if s.style == "markers"}
    if len(xs) == 1 and len(groups) > 1:
        (v,) = xs
        ax.annotate(f"every group at the same x: {_num(v)}\n(rings: markers drawn over each other)",
                    (0.5, 0.02), xycoords="axes fraction", ha="center", va="bottom", fontsize=9,
                    color="0.25", bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.8", "alpha": 0.9})  # fmt: skip


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _two_ticks(ax: Any, which: str, values: Sequence[float]) -> None:
    """A log axis whose span holds fewer than two labelled ticks (all values within a factor of a few,
    or all equal: matplotlib then labels none) gets fixed ticks: the data's distinct values (up to
    four), else four log-spaced ones."""
    import numpy as np
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator

    axis = ax.xaxis if which == "x" else ax.yaxis
    distinct = sorted({float(v) for v in values if v and v > 0})
    narrow = bool(distinct) and distinct[-1] / distinct[0] < 1.5
    if narrow:  # (one cost: matplotlib spans a decade around it, the value at neither tick)
        (ax.set_xlim if which == "x" else ax.set_ylim)(distinct[0] / 1.25, distinct[-1] * 1.25)
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    lo, hi = min(lo, hi), max(lo, hi)
    shown = [t for t in axis.get_majorticklocs() if lo <= t <= hi]
    fmt_minor = axis.get_minor_formatter()
    minor = [t for t in axis.get_minorticklocs() if lo <= t <= hi and fmt_minor(t, 0)]
    if (len(shown) + len(minor) >= 2 and not narrow) or lo <= 0:
        return
    if 1 <= len(distinct) <= 4:  # (one value: the one tick that matters, at it)
        ticks = _apart(distinct, lo, hi)
    else:
        ticks = sorted({float(f"{v:.2g}") for v in np.geomspace(lo, hi, 6)[1:-1]})
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: _num(v)))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())
    (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)


def _apart(values: Sequence[float], lo: float, hi: float, gap: float = 0.14) -> list[float]:
    """``values`` (ascending) whose labels do not run into each other on a log axis from ``lo`` to
    ``hi``: each kept value at least ``gap`` of the axis from the one kept before (the last value
    replaces its too-close predecessor, so the span's both ends are labelled)."""
    width = math.log(hi / lo)
    kept: list[float] = []
    for v in values:
        if not kept or math.log(v / kept[-1]) >= gap * width:
            kept.append(v)
        elif v == values[-1] and len(kept) > 1:
            kept[-1] = v
    return kept


def _with_svg(fig: Figure, f: Any) -> Figure:
    """``fig`` with the matplotlib figure ``f`` (titled, laid out) as its SVG; ``f`` is closed."""
    import matplotlib.pyplot as plt

    f.suptitle(fig.title, fontsize=12.5, x=0.01, ha="left")
    f.tight_layout()
    buf = io.StringIO()
    f.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(f)
    return replace(fig, svg=buf.getvalue())


def draw_stacked(
    fig: Figure, parts: Sequence[tuple[str, str]], rows: Sequence[tuple[str, dict[str, float]]]
) -> Figure:
    """Horizontal stacked bars (one row per grid point) of the ``parts`` means."""
    plt = pyplot()

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 11, "font.family": "DejaVu Sans"})
    f, ax = plt.subplots(figsize=(11.5, 1.2 + 0.34 * len(rows)))
    left = [0.0] * len(rows)
    ys = list(range(len(rows)))[::-1]
    for i, (key, text) in enumerate(parts):
        vals = [r[1].get(key, 0.0) or 0.0 for r in rows]
        ax.barh(ys, vals, left=left, color=COLORS[i % len(COLORS)], label=text, height=0.7)
        left = [a + b for a, b in zip(left, vals, strict=True)]
    ax.set_yticks(ys, [r[0] for r in rows], fontsize=9.5)
    ax.set_xlabel(fig.xlabel.get("", "wall time (s), mean over repeats"))
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=9.5)
    return _with_svg(fig, f)

