"""The figures of a report: data first (:class:`Series`), then an SVG drawn from exactly that data.

Each builder takes one scenario's stored runs and returns :class:`Figure` s
whose ``series`` are what is plotted (so tests check the numbers behind every
plot against the store), drawn with matplotlib into SVG with text kept as
text.  Points are means over a grid point's repeats, error bars one sample
standard deviation; rates (completion) carry a 95 % Wilson interval.  Which
figures a scenario gets depends on its kind and on what its grid sweeps:

* pipeline: accuracy against cost (messages, bytes, wall time; shared y
  axis), error against p and against n, time per phase, and completion and
  error against the dropout rate when it is swept;
* secure-sum: completion (and exactness) against the dropout rate, cost
  against the number of parties or the dropout rate;
* rrba: convergence curves, final error and epsilon against p;
* linkability: linkage success against n per channel (one panel per p,
  shared axes), attribute inference likewise;
* audit: the epsilon lower bound against trials, with the true and claimed epsilon;
* any other kind: each of its metrics against each swept number.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scenarios.results.aggregate import PointSummary, by_point, summarize_metric
from scenarios.results.store import StoredRun

__all__ = ["BUILDERS", "Figure", "Series", "figures_for", "wilson"]

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
          "#7f7f7f", "#bcbd22")  # fmt: skip
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
PHASES = (("setup_s", "setup (roles, keys)"), ("phase_network_s", "network setup (TLS keys, handshakes)"),
          ("phase_dependence_s", "dependence phase"),
          ("phase_release_s", "clustering broadcast + release"), ("phase_estimation_s", "estimation + adjustment"),
          ("evaluation_s", "evaluation (queries vs truth)"))  # fmt: skip
LABELS = {
    "messages": "messages sent (all parties)",
    "bytes": "payload bytes sent (MB)",
    "wall_s": "protocol wall time (s)",
    "protocol_s": "protocol wall time (s)",
    "parties": "parties n",
    "p": "p (keep / truthful probability)",
    "dropout": "dropout rate (fraction of parties that crash)",
    "trials": "mechanism runs (trials)",
    "completed": "share of runs that completed",
    "exact": "share of runs with the exact sum",
    "epsilon_total": "total epsilon per party",
    "max_abs_error": "max |estimate - truth| (probability)",
    "mean_max_abs_error": "mean over subsets of max |estimate - truth|",
    "l2_2": "l2 error of 2-way marginals (counts)",
    "js_2": "Jensen-Shannon of 2-way marginals (bits)",
    "success": "linkage success (share of pair values)",
    "inference_success": "attribute inference accuracy (MAP)",
    "epsilon_lower": "epsilon lower bound (Clopper-Pearson)",
    "td": "Td (min dependence to merge)",
    "tv": "Tv (max combinations per cluster)",
    "clients": "clients (records)",
    "block": "block size B",
    "cells": "cells per vector",
}
SCALE = {"bytes": 1e-6}


def label(name: str) -> str:
    if name in LABELS:
        return LABELS[name]
    if name.startswith("error_"):
        parts = name.split("_")
        sigma = parts[-1]
        method = {"clusters": "RR-Clusters", "clusters_adj": "RR-Clusters+Adjustment", "independent": "RR-Independent",
                  "independent_adj": "RR-Independent+Adjustment"}.get("_".join(parts[1:-1]), "_".join(parts[1:-1]))  # fmt: skip
        return f"median relative error, {method} (σ = {sigma})"
    return name.replace("_", " ")


@dataclass(frozen=True)
class Series:
    """One line or set of markers: what is drawn, exactly."""

    panel: str
    label: str
    x: tuple[Any, ...]
    y: tuple[float | None, ...]
    yerr: tuple[float | None, ...] | None = None
    lo: tuple[float | None, ...] | None = None  # interval (instead of yerr)
    hi: tuple[float | None, ...] | None = None
    n: tuple[int, ...] = ()
    style: str = "line"  # line | markers | bar | step


@dataclass(frozen=True)
class Figure:
    """A titled, captioned figure: its data (``series``) and its SVG."""

    key: str
    title: str
    caption: str
    xlabel: dict[str, str]
    ylabel: dict[str, str]
    series: tuple[Series, ...]
    svg: str = field(default="", repr=False)
    runs: int = 0

    def csv(self) -> str:
        """The plotted data as CSV (panel, series, x, y, error/interval, n)."""
        lines = ["panel,series,x,y,err_or_lo,hi,n"]
        for s in self.series:
            for i, x in enumerate(s.x):
                e = s.yerr[i] if s.yerr is not None else (s.lo[i] if s.lo is not None else None)
                h = s.hi[i] if s.hi is not None else None
                n = s.n[i] if i < len(s.n) else ""
                lines.append(",".join(_c(v) for v in (s.panel, s.label, x, s.y[i], e, h, n)))
        return "\n".join(lines) + "\n"


def _c(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    t = str(v)
    return f'"{t}"' if "," in t else t


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


# -- grouping helpers ------------------------------------------------------------------------
def swept(runs: Sequence[StoredRun]) -> list[str]:
    """Parameters that take more than one value among the runs (grid order)."""
    keys: list[str] = []
    for r in runs:
        for k in r.point:
            if k not in keys:
                keys.append(k)
    return [k for k in keys if len({_h(r.point.get(k)) for r in runs}) > 1]


def _h(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _numeric(runs: Sequence[StoredRun], key: str) -> bool:
    return all(
        isinstance(r.point.get(key), int | float) and not isinstance(r.point.get(key), bool)
        for r in runs
    )


def _group_label(point: dict[str, Any], keys: Sequence[str]) -> str:
    return ", ".join(f"{k} = {point[k]}" for k in keys) or "all runs"


def _scaled(metric: str, v: float | None) -> float | None:
    return None if v is None else v * SCALE.get(metric, 1.0)


def lines(
    points: Sequence[PointSummary], x: str, y: str, group: Sequence[str], panel: str = "", *, x_metric: bool = False,
    style: str = "line",
) -> list[Series]:  # fmt: skip
    """One series per combination of ``group`` values: ``y`` (mean ± sd) against ``x``
    (a parameter, or a metric's mean when ``x_metric``)."""
    out: dict[str, list[PointSummary]] = {}
    for ps in points:
        out.setdefault(_group_label(ps.point, group), []).append(ps)
    series = []
    for lab, pss in out.items():
        rows = []
        for ps in pss:
            xv = _scaled(x, ps.metrics[x].mean) if x_metric else ps.point.get(x, ps.params.get(x))
            m = ps.metrics[y]
            if xv is None or m.mean is None:
                continue
            rows.append(
                (xv, _scaled(y, m.mean), _scaled(y, m.sd) if m.sd is not None else None, m.n)
            )
        if not x_metric:
            rows.sort(key=lambda r: r[0])
        if rows:
            series.append(Series(panel, lab, tuple(r[0] for r in rows), tuple(r[1] for r in rows),
                                 tuple(r[2] for r in rows), n=tuple(r[3] for r in rows), style=style))  # fmt: skip
    return series


def rates(points: Sequence[PointSummary], runs: Sequence[StoredRun], x: str, metric: str, group: Sequence[str],
          panel: str = "") -> list[Series]:  # fmt: skip
    """Share of runs where ``metric`` is true, with 95 % Wilson intervals, against ``x``."""
    out: dict[str, list[tuple[Any, int, int]]] = {}
    for ps in points:
        mine = [r for r in runs if r.point == ps.point]
        k = sum(bool(r.metrics.get(metric)) for r in mine)
        out.setdefault(_group_label(ps.point, group), []).append((ps.point[x], k, len(mine)))
    series = []
    for lab, rows in out.items():
        rows.sort(key=lambda r: r[0])
        ci = [wilson(k, n) for _, k, n in rows]
        series.append(Series(panel, lab, tuple(r[0] for r in rows), tuple(k / n for _, k, n in rows),
                             lo=tuple(c[0] for c in ci), hi=tuple(c[1] for c in ci),
                             n=tuple(n for *_, n in rows)))  # fmt: skip
    return series


# -- drawing ---------------------------------------------------------------------------------
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


# -- per kind ----------------------------------------------------------------------------------
def _title(scenario: str, what: str, runs: Sequence[StoredRun]) -> str:
    data = sorted({r.dataset for r in runs if r.dataset})
    on = f" on {', '.join(data)}" if data else ""
    return f"{scenario}: {what}{on} ({len(runs):,} runs)"


def _accuracy_metric(metrics: Sequence[str]) -> str:
    return next((m for m in metrics if m.startswith("error_")), "error_clusters_0.1")


def _pipeline(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    acc = _accuracy_metric(metrics)
    ok = [r for r in runs if r.status == "ok"]
    phase_keys = [k for k, _ in PHASES]
    pts = by_point(runs, [acc, "messages", "bytes", "wall_s", "completed", *phase_keys], grid)
    pts_ok = by_point(ok, [acc, "messages", "bytes", "wall_s", *phase_keys], grid)
    if ok:
        cat = [k for k in sw if not _numeric(runs, k)]
        group = cat or [k for k in sw if k in ("parties",)] or []
        series = []
        for cost, panel in (
            ("messages", "messages"),
            ("bytes", "payload bytes"),
            ("wall_s", "wall time"),
        ):
            series += lines(pts_ok, cost, acc, group, panel, x_metric=True, style="markers")
        fig = Figure(
            "accuracy-cost", _title(scenario, "accuracy against cost", ok),
            f"Each marker is one grid point: {label(acc)} (mean ± sd over its repeats) against what the run "
            "cost — messages and payload bytes sent by all parties, and the protocol's wall time (runner start "
            "to end; over TCP the deployment's keys and TLS handshakes included). "
            f"Grouped by {', '.join(group) or 'nothing (one group)'}, dodged sideways where markers coincide; "
            "the y axis is shared.",
            {"messages": "messages sent (log)", "payload bytes": "payload bytes sent (MB, log)", "wall time": "protocol wall time (s, log)"},
            {"messages": label(acc)}, tuple(series), runs=len(ok),
        )  # fmt: skip
        # the legend under the panels: inside one it hid markers
        figs.append(draw(fig, panels=("messages", "payload bytes", "wall time"), logx=("messages", "payload bytes", "wall time"),
                         legend_out=True, dodge=True))  # fmt: skip
    for x in ("p", "parties"):
        if x in sw and ok:
            others = [k for k in sw if k != x]
            series = lines(pts_ok, x, acc, others, "")
            fig = Figure(
                f"error-{x}", _title(scenario, f"error against {'p' if x == 'p' else 'n'}", ok),
                f"{label(acc)} (mean ± sd over repeats) against {label(x)}; one line per "
                f"{', '.join(others) or 'scenario'}, dodged sideways where lines coincide.",
                {"": label(x)}, {"": label(acc)}, tuple(series), runs=len(ok),
            )  # fmt: skip
            figs.append(
                draw(
                    fig,
                    panels=("",),
                    logx=("",) if x == "parties" else (),
                    legend_out=len(series) > 5,
                    dodge=True,
                )
            )
    if "dropout" in sw:
        others = [k for k in sw if k != "dropout"]
        series = rates(pts, runs, "dropout", "completed", others, "completion")
        series += lines(pts_ok, "dropout", acc, others, "accuracy")
        fig = Figure(
            "completion-dropout", _title(scenario, "completion and error against the dropout rate", runs),
            "Left: share of runs that completed (95 % Wilson interval); right: "
            f"{label(acc)} of the completed runs (mean ± sd).",
            {"completion": label("dropout"), "accuracy": label("dropout")},
            {"completion": label("completed"), "accuracy": label(acc)}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(
            draw(
                fig,
                panels=("completion", "accuracy"),
                sharey=False,
                legend_out=len(set(s.label for s in series)) > 4,
                dodge=True,
            )
        )
    if ok:
        rows = []
        series = []
        for ps in pts_ok:
            means = {k: ps.metrics[k].mean or 0.0 for k in phase_keys}
            rows.append((_group_label(ps.point, sw) if sw else "all runs", means))
        for k, text in PHASES:
            series.append(
                Series(
                    "", text, tuple(r[0] for r in rows), tuple(r[1][k] for r in rows), style="bar"
                )
            )
        fig = Figure(
            "phases", _title(scenario, "time per phase", ok),
            "Wall time of each phase (mean over a grid point's completed repeats), cut where the coordinator "
            "reports progress: setup builds the roles and keys; network setup is the runner's time before the "
            "parties run (over TCP: the deployment's keys and certificates, one TLS handshake per party); the "
            "dependence phase ends with the last "
            "dependence submission (or secure-sum message); clustering + release with the last release; "
            "then estimation and RR-Adjustment; evaluation answers the count queries against the truth.",
            {"": "wall time (s), mean over repeats"}, {"": ""}, tuple(series), runs=len(ok),
        )  # fmt: skip
        figs.append(draw_stacked(fig, PHASES, rows))
    return figs


def _secure_sum(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    pts = by_point(
        runs, ["completed", "exact", "messages", "bytes", "wall_s", "bytes_per_party"], grid
    )
    if "dropout" in sw:
        others = [k for k in sw if k != "dropout"]
        series = rates(pts, runs, "dropout", "completed", others, "completed")
        series += rates(pts, runs, "dropout", "exact", others, "exact")
        tol = sorted(
            {
                float(r.params["max_dropout"])
                for r in runs
                if r.params.get("max_dropout") is not None
            }
        )
        maxd = sorted(
            {
                r.metrics["max_dropped"] / r.params["parties"]
                for r in runs
                if r.metrics.get("max_dropped")
            }
        )
        v = [(float(t), f"max_dropout = {t:g}") for t in (tol or maxd[:1])]
        fig = Figure(
            "completion-dropout", _title(scenario, "completion against the dropout rate", runs),
            "Share of runs that produced a sum (left) and whose sum equals the plaintext sum of the included "
            "parties (right), with 95 % Wilson intervals, against the fraction of parties that crash at the "
            "given step. The dashed line is the tolerance the protocol was configured with; past it, a run must "
            "abort cleanly, never return a wrong sum.",
            {"completed": label("dropout"), "exact": label("dropout")},
            {"completed": "share of runs"}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=("completed", "exact"), ylim=(-0.04, 1.04), vlines={"completed": v, "exact": v},
                         legend_out=len({s.label for s in series}) > 3, dodge=True))  # fmt: skip
    x = "parties" if "parties" in sw else ("dropout" if "dropout" in sw else None)
    if x is not None:
        others = [k for k in sw if k != x]
        ok = [r for r in runs if r.status == "ok"] if x == "parties" else list(runs)
        pts2 = by_point(ok, ["messages", "bytes", "wall_s"], grid)
        series = []
        for m, panel in (
            ("messages", "messages"),
            ("bytes", "payload bytes"),
            ("wall_s", "wall time"),
        ):
            series += lines(pts2, x, m, others, panel)
        fig = Figure(
            "cost", _title(scenario, f"cost against {'n' if x == 'parties' else 'the dropout rate'}", ok),
            f"Messages, payload bytes (all parties) and wall time (mean ± sd over repeats) against {label(x)}.",
            {p: label(x) for p in ("messages", "payload bytes", "wall time")},
            {"messages": "messages sent", "payload bytes": "payload bytes sent (MB)", "wall time": "wall time (s)"},
            tuple(series), runs=len(ok),
        )  # fmt: skip
        figs.append(draw(fig, panels=("messages", "payload bytes", "wall time"), sharey=False,
                         logx=("messages", "payload bytes", "wall time") if x == "parties" else (),
                         legend_out=len({s.label for s in series}) > 3))  # fmt: skip
    return figs


def _rrba(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    pts = by_point(runs, ["max_abs_error", "l2_2", "epsilon_true", "epsilon_paper"], grid)
    series = []
    for ps in pts:
        mine = [r for r in runs if r.point == ps.point and r.result.get("curve")]
        if not mine:
            continue
        length = min(len(r.result["curve"]["block"]) for r in mine)
        xs = [
            summarize_metric(r.result["curve"]["answers_median"][b] for r in mine).mean
            for b in range(length)
        ]
        ys = [
            summarize_metric(r.result["curve"]["error_median"][b] for r in mine).mean
            for b in range(length)
        ]
        series.append(
            Series("", _group_label(ps.point, sw), tuple(xs), tuple(ys), n=(len(mine),) * length)
        )
    if series:
        fig = Figure(
            "convergence", _title(scenario, "convergence", runs),
            "Median over the attribute subsets of max |estimate - truth| after each block, against the answers "
            "collected per subset (mean over repeats). The pooled estimator should keep falling; the paper's "
            "Eq. 4 replaces the table by one block's estimate and stalls (DESIGN note 8).",
            {"": "answers collected per subset (median over subsets)"},
            {"": "max |estimate - truth| (median, log)"}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=("",), logy=("",), legend_out=len(series) > 4))
    if "p" in sw:
        others = [k for k in sw if k != "p"]
        s2 = lines(pts, "p", "max_abs_error", others, "final error")
        eps = lines(pts, "p", "epsilon_true", others, "epsilon")
        paper = lines(pts, "p", "epsilon_paper", [], "epsilon")
        s2 += eps + [Series(s.panel, "paper: ln(1/(1-p))", s.x, s.y, s.yerr, n=s.n) for s in paper]
        fig = Figure(
            "rrba-p", _title(scenario, "final error and epsilon against p", runs),
            "Left: max |estimate - truth| over all subsets at the end (mean ± sd over repeats). Right: the true "
            "epsilon of the worst client (its view's subsets composed) next to the paper's ln(1/(1-p)) per answer.",
            {"final error": label("p"), "epsilon": label("p")},
            {"final error": label("max_abs_error"), "epsilon": "epsilon"}, tuple(s2), runs=len(runs),
        )  # fmt: skip
        figs.append(
            draw(
                fig,
                panels=("final error", "epsilon"),
                sharey=False,
                legend_out=len({s.label for s in s2}) > 3,
            )
        )
    return figs


def _linkability(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    if "parties" not in sw:
        return _generic(scenario, runs, metrics, grid)
    pts = by_point(runs, ["success", "baseline", "inference_success", "inference_baseline"], grid)
    ps_values = sorted({float(r.point.get("p", r.params.get("p", 0.0))) for r in runs})
    group = [k for k in sw if k not in ("parties", "p")]
    for metric, base, what in (
        ("success", "baseline", "linkage"),
        ("inference_success", "inference_baseline", "attribute inference"),
    ):
        series = []
        panels = []
        for p in ps_values:
            panel = f"p = {p}"
            panels.append(panel)
            mine = [ps for ps in pts if ps.point.get("p", ps.params.get("p")) == p]
            series += lines(mine, "parties", metric, group, panel)
            b = lines(mine, "parties", base, [], panel)
            series += [
                Series(s.panel, "random grouping (baseline)", s.x, s.y, n=s.n, style="dotted")
                for s in b
            ]
        fig = Figure(
            f"{metric}-parties", _title(scenario, f"{what} against n", runs),
            (f"{label(metric)} (mean ± sd over repeats) against the number of parties, one line per "
             f"{', '.join(group) or 'run'}, dodged sideways where lines coincide (the anonymous and the "
             "secure-sum channels deliver the same multiset of reports); dotted: "
             + ("what a random grouping achieves. Success is the share of a party's other pair values that the "
                "group holding one of its reports contains." if metric == "success" else
                "guessing each attribute's most frequent value (the prior). Accuracy of the MAP guess of each "
                "attribute from the linked group, averaged over attributes and parties.")
             + " One panel per p, shared axes."),
            {pn: label("parties") for pn in panels}, {panels[0]: label(metric)}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=panels, logx=panels, ylim=(0, 1.03), sharex=True,
                         legend_out=len({s.label for s in series}) > 3, dodge=True))  # fmt: skip
    return figs


def _audit(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    sw = swept(runs)
    if "trials" not in sw:
        return _generic(scenario, runs, metrics, grid)
    pts = by_point(runs, ["epsilon_lower", "epsilon_true", "epsilon_claimed"], grid)
    others = [k for k in sw if k != "trials"]
    series = [
        Series(
            s.panel, "lower bound" if s.label == "all runs" else s.label, s.x, s.y, s.yerr, n=s.n
        )
        for s in lines(pts, "trials", "epsilon_lower", others, "")
    ]
    hl = []
    for m, text in (("epsilon_true", "true epsilon"), ("epsilon_claimed", "claimed epsilon")):
        v = summarize_metric(r.metrics.get(m) for r in runs)
        if v.mean is not None and v.hi == v.lo:
            hl.append((v.mean, f"{text} = {v.mean:.3f}"))
    fig = Figure(
        "audit-trials", _title(scenario, "empirical epsilon against trials", runs),
        "Clopper-Pearson lower bound on epsilon (mean ± sd over repeats) against the number of mechanism runs; "
        "dotted lines: the mechanism's true epsilon and the claimed one. A bound above the claim refutes it.",
        {"": label("trials")}, {"": "epsilon"}, tuple(series), runs=len(runs),
    )  # fmt: skip
    return [draw(fig, panels=("",), logx=("",), hlines={"": hl})]


def _generic(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    sw = [k for k in swept(runs) if _numeric(runs, k)]
    if not sw:
        return []
    nums = [m for m in metrics if any(isinstance(r.metrics.get(m), int | float) for r in runs)][:3]
    figs = []
    pts = by_point(runs, nums, grid)
    for x in sw[:2]:
        others = [k for k in swept(runs) if k != x]
        series = [s for m in nums for s in lines(pts, x, m, others, m)]
        if not series:
            continue
        fig = Figure(
            f"{x}-metrics", _title(scenario, f"metrics against {x}", runs),
            f"Each metric (mean ± sd over repeats) against {label(x)}.",
            {m: label(x) for m in nums}, {m: label(m) for m in nums}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=nums, sharey=False))
    return figs


BUILDERS: dict[
    str, Callable[[str, Sequence[StoredRun], Sequence[str], dict[str, list[Any]]], list[Figure]]
] = {
    "pipeline": _pipeline,
    "secure-sum": _secure_sum,
    "rrba": _rrba,
    "linkability": _linkability,
    "audit": _audit,
}


def figures_for(kind: str, scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str],
                grid: dict[str, list[Any]]) -> list[Figure]:  # fmt: skip
    """The figures of one scenario (the kind's builder, else metrics against swept numbers)."""
    if not runs:
        return []
    return BUILDERS.get(kind, _generic)(scenario, runs, metrics, grid)
