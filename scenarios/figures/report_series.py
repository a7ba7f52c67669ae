"""What a report's figures show: their records (:class:`Series`, :class:`Figure`) and the data behind them.

A :class:`Figure` holds exactly what is plotted (its ``series``), so tests
check the numbers behind every plot against the store; this module turns a
scenario's stored runs into those series: :func:`lines` (a metric's mean ±
sd against a parameter or another metric, one series per group) and
:func:`rates` (the share of runs where a metric is true, with a 95 %
:func:`wilson` interval), plus the axis labels of the metrics and
parameters (:func:`label`) and the parameters a grid sweeps (:func:`swept`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scenarios.results.aggregate import PointSummary
from scenarios.results.store import StoredRun

__all__ = [
    "LABELS",
    "SCALE",
    "Figure",
    "Series",
    "group_label",
    "label",
    "lines",
    "numeric",
    "rates",
    "swept",
    "title",
    "wilson",
]

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
    "bytes_per_party": "payload bytes sent per data party",
    "sum_degree": "secure-sum graph degree (SecAgg+)",
    "sum_threshold": "secure-sum threshold t (SecAgg+)",
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
    # (the interval always holds k/n: at k = n, c + h lands a rounding error below 1)
    return (max(0.0, min(c - h, p)), min(1.0, max(c + h, p)))



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


def numeric(runs: Sequence[StoredRun], key: str) -> bool:
    return all(
        isinstance(r.point.get(key), int | float) and not isinstance(r.point.get(key), bool)
        for r in runs
    )


def group_label(point: dict[str, Any], keys: Sequence[str]) -> str:
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
        out.setdefault(group_label(ps.point, group), []).append(ps)
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
        out.setdefault(group_label(ps.point, group), []).append((ps.point[x], k, len(mine)))
    series = []
    for lab, rows in out.items():
        rows.sort(key=lambda r: r[0])
        ci = [wilson(k, n) for _, k, n in rows]
        series.append(Series(panel, lab, tuple(r[0] for r in rows), tuple(k / n for _, k, n in rows),
                             lo=tuple(c[0] for c in ci), hi=tuple(c[1] for c in ci),
                             n=tuple(n for *_, n in rows)))  # fmt: skip
    return series



def title(scenario: str, what: str, runs: Sequence[StoredRun]) -> str:
    data = sorted({r.dataset for r in runs if r.dataset})
    on = f" on {', '.join(data)}" if data else ""
    return f"{scenario}: {what}{on} ({len(runs):,} runs)"

