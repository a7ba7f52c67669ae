"""Drawing a report's figures: matplotlib into SVG, text kept as text, from exactly ``fig.series``.

:func:`draw` draws line, marker, interval and dotted series panel by panel
(shared or separate axes, log scales with plain tick labels, reference
lines, a legend beside or under the panels, coinciding series dodged
sideways); :func:`draw_stacked` draws horizontal stacked bars.  Both return
the figure with its ``svg`` filled in and close the matplotlib figure.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from scenarios.results.report_series import Figure

__all__ = ["COLORS", "MARKERS", "draw", "draw_stacked"]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
          "#7f7f7f", "#bcbd22")  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def draw(fig: Figure, *, panels: Sequence[str], logx: Sequence[str] = (), logy: Sequence[str] = (),
         sharey: bool = True, sharex: bool = False, ylim: tuple[float, float] | None = None,
         vlines: dict[str, list[tuple[float, str]]] | None = None, hlines: dict[str, list[tuple[float, str]]] | None = None,
         height: float = 4.2, legend_out: bool = False, dodge: bool = False) -> Figure:  # fmt: skip
    """Draw ``fig.series`` (panel by panel) into an SVG; returns the figure with it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
                lo = [y - (math.nan if v is None else v) for y, v in zip(ys, s.lo, strict=True)]
                hi = [(math.nan if v is None else v) - y for y, v in zip(ys, s.hi, strict=True)]
                ax.errorbar(xs, ys, yerr=[lo, hi], color=c, marker=mk, ls=ls, ms=6, lw=1.6, capsize=3,
                            elinewidth=1.0, alpha=0.9, label=s.label)  # fmt: skip
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
            # two short lines beside the top of the line, so the label stays inside the axes
            ax.annotate(text.replace(" = ", "\n= ", 1), (v, 1.0), xycoords=("data", "axes fraction"),
                        xytext=(4, -4), textcoords="offset points", fontsize=9, color="0.25", va="top")  # fmt: skip
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
            _plain_log(ax.xaxis)
        if panel in logy:
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
        if ylim is not None:
            ax.set_ylim(*ylim)
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
    if labs and not (len(labs) == 1 and labs[0] == "all runs"):
        if below:
            f.legend(handles, labs, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(len(labs), 4),
                     frameon=False)  # fmt: skip
        elif legend_out:
            f.legend(handles, labs, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        else:
            axes[0][-1].legend(handles, labs, loc="best", framealpha=0.85)
    return _with_svg(fig, f)


def _with_svg(fig: Figure, f: Any) -> Figure:
    """``fig`` with the matplotlib figure ``f`` (titled, laid out) as its SVG; ``f`` is closed."""
    import matplotlib.pyplot as plt

    f.suptitle(fig.title, fontsize=12.5, x=0.01, ha="left")
    f.tight_layout()
    buf = io.StringIO()
    f.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(f)
    return replace(fig, svg=buf.getvalue())


def _plain_log(axis: Any) -> None:
    """Tick labels of a log axis as plain numbers (300, 1,000, 0.05), minor ones only over a short span."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def fmt(v: float, _pos: int) -> str:
        return f"{v:,.0f}" if v >= 10 else f"{v:g}"

    def minor(v: float, pos: int) -> str:  # 2, 3 and 5 times a power of ten
        lead = f"{v:.0e}"[0]
        return fmt(v, pos) if lead in "235" else ""

    axis.set_major_formatter(FuncFormatter(fmt))
    lo, hi = axis.get_view_interval()
    short = lo > 0 and hi / lo < 30
    axis.set_minor_formatter(FuncFormatter(minor) if short else NullFormatter())


def draw_stacked(
    fig: Figure, parts: Sequence[tuple[str, str]], rows: Sequence[tuple[str, dict[str, float]]]
) -> Figure:
    """Horizontal stacked bars (one row per grid point) of the ``parts`` means."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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

