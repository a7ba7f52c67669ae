"""Summaries of stored runs: per scenario, per grid point, over repeats (for tables, exports, the report).

By default a scenario's runs are those its latest session planned: the study
as its latest text, code version and data define it.  Runs of other code,
data or parameters stay in the store and are never mixed into one mean
(``--code-version`` shows a version's runs; points are grouped by their full
parameters).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mpc_rr.core import UsageError
from scenarios.results.store import Store, StoredRun

__all__ = [
    "MetricSummary",
    "PointSummary",
    "by_point",
    "code_versions",
    "grid_of",
    "run_warnings",
    "scenario_metrics",
    "select",
    "summarize_metric",
]


@dataclass(frozen=True)
class MetricSummary:
    """Mean, sample standard deviation, min, max over the runs where the metric is defined."""

    n: int
    mean: float | None
    sd: float | None
    lo: float | None
    hi: float | None

    def text(self, digits: int = 4) -> str:
        if self.mean is None:
            return "-"
        m = _fmt(self.mean, digits)
        return m if self.sd is None or self.n < 2 or self.sd == 0 else f"{m} ± {_fmt(self.sd, 2)}"


def _fmt(x: float, digits: int) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 1e12 or abs(x) < 1e-3:
        return f"{x:.{max(digits - 2, 1)}e}"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def summarize_metric(values: Iterable[Any]) -> MetricSummary:
    """Numbers and booleans (as 0/1) count; ``None`` and text are skipped."""
    xs = [
        float(v)
        for v in values
        if isinstance(v, int | float) and not (isinstance(v, float) and math.isnan(v))
    ]
    if not xs:
        return MetricSummary(0, None, None, None, None)
    n = len(xs)
    mean = math.fsum(xs) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else None
    if sd is not None and sd <= 1e-12 * max(1.0, abs(mean)):  # equal values up to rounding
        sd = 0.0
    return MetricSummary(n, mean, sd, min(xs), max(xs))


@dataclass(frozen=True)
class PointSummary:
    """One grid point: its runs and each metric summarized over them."""

    point: dict[str, Any]
    params: dict[str, Any]
    runs: int
    ok: int
    seeds: tuple[int, ...]
    metrics: dict[str, MetricSummary] = field(default_factory=dict)


def code_versions(store: Store, scenario: str) -> list[str]:
    """The scenario's code versions, most recent first."""
    rows = [s for s in store.scenarios() if s["scenario"] == scenario]
    return [r["code_version"] for r in sorted(rows, key=lambda r: r["last"], reverse=True)]


def select(store: Store, scenario: str, code_version: str | None = None) -> list[StoredRun]:
    """The runs of ``scenario``: by default those its latest session planned (the study as its
    latest text, code and data define it, however far it got); with ``code_version``, every
    stored run of that code version."""
    versions = code_versions(store, scenario)
    if not versions:
        known = sorted({s["scenario"] for s in store.scenarios()})
        raise UsageError(
            f"{store.path}: no runs of scenario {scenario!r} (scenarios: {', '.join(known) or 'none'})"
        )
    if code_version is not None:
        if code_version not in versions:
            raise UsageError(f"{store.path}: scenario {scenario!r} has no runs of code version {code_version!r} "
                             f"(has: {', '.join(versions)})")  # fmt: skip
        return store.runs(scenario, code_version)
    sessions = store.sessions(scenario)
    keys = set(store.planned_keys(sessions[-1]["id"])) if sessions else set()
    runs = [r for r in store.runs(scenario) if r.key in keys] if keys else []
    return runs or store.runs(scenario, versions[0])


def grid_of(store: Store, scenario: str) -> dict[str, list[Any]]:
    """The ``[grid]`` of the scenario's most recent text (raw TOML; ``{}`` without one)."""
    import msgspec

    texts = store.texts(scenario)
    if not texts:
        return {}
    try:
        doc: Any = msgspec.toml.decode(texts[-1]["text"].encode())
    except msgspec.DecodeError:
        return {}
    grid = doc.get("grid", {}) if isinstance(doc, dict) else {}
    return {k: list(v) for k, v in grid.items() if isinstance(v, list)}


def by_point(
    runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]] | None = None
) -> list[PointSummary]:
    """Runs grouped by grid point, metrics summarized; points in the grid's order as written
    (values no longer in ``grid`` after, numbers numerically)."""
    groups: dict[str, list[StoredRun]] = {}
    for r in runs:  # by full parameters: equal points of different fixed parameters stay apart
        groups.setdefault(json.dumps([r.params, r.data_identity], sort_keys=True), []).append(r)
    out = []
    for rs in groups.values():
        rs = sorted(rs, key=lambda r: r.repeat)
        out.append(
            PointSummary(
                point=rs[0].point,
                params=rs[0].params,
                runs=len(rs),
                ok=sum(r.status == "ok" for r in rs),
                seeds=tuple(r.seed for r in rs),
                metrics={m: summarize_metric(r.metrics.get(m) for r in rs) for m in metrics},
            )
        )
    return _grid_order(out, grid or {})


def _grid_order(points: list[PointSummary], grid: dict[str, list[Any]]) -> list[PointSummary]:
    if not points:
        return points
    keys = list(grid) + [k for k in points[0].point if k not in grid]

    def rank(key: str, v: Any) -> tuple[Any, ...]:
        values = grid.get(key, [])
        if v in values:
            return (0, values.index(v), 0, "")
        return (1, 0, v, "") if isinstance(v, int | float) else (1, 0, 0, str(v))

    return sorted(points, key=lambda ps: tuple(rank(k, ps.point.get(k)) for k in keys))


def scenario_metrics(store: Store, scenario: str, runs: Sequence[StoredRun]) -> list[str]:
    """The metrics the scenario asks for (``[scenario] metrics`` of its latest text), else its
    kind's defaults; only those its runs measured."""
    import msgspec

    from scenarios.experiments.kinds import get

    names: list[str] = []
    texts = store.texts(scenario)
    if texts:
        try:
            doc: Any = msgspec.toml.decode(texts[-1]["text"].encode())
            names = [m for m in doc.get("scenario", {}).get("metrics", []) if isinstance(m, str)]
        except (msgspec.DecodeError, AttributeError):
            names = []
    if not names and runs:
        try:
            k = get(runs[0].kind)
            names = list(k.default_metrics or k.metrics)
        except UsageError:
            names = []
    measured = {k for r in runs for k in r.metrics}
    return [m for m in names if m in measured] or sorted(measured)[:8]


def cell_text(v: Any) -> str:
    """One table cell as text: ``-`` for missing, yes/no, 4 significant digits for floats."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def run_warnings(runs: Iterable[StoredRun], limit: int = 5) -> list[str]:
    """What the runs' own warnings say (a run's ``result["warnings"]``: e.g. an RR-Adjustment
    that rests on few records), one line per kind of warning -- its first words -- with how many
    runs gave it and the first such run's point and text; at most ``limit`` lines."""
    seen: dict[str, tuple[int, dict[str, Any], str]] = {}
    for r in runs:
        for w in r.result.get("warnings") or []:
            head = " ".join(str(w).split()[:3])
            k, point, text = seen.get(head, (0, r.point, str(w)))
            seen[head] = (k + 1, point, text)
    out = []
    for k, point, text in list(seen.values())[:limit]:
        where = ", ".join(f"{a}={v}" for a, v in point.items()) or "the only point"
        out.append(f"{k:,} run(s), first at {where}: {text}")
    return out
