"""The figures of a scenario of any other kind: each of its metrics against each swept number.

Up to three numeric metrics, against each of the first two numeric
parameters the grid sweeps (mean ± sd over repeats, one line per value of
the other swept parameters).  Also the fallback of the kinds whose own
figures need a parameter the grid does not sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scenarios.figures.report_drawing import draw
from scenarios.figures.report_series import Figure, label, lines, numeric, swept, title
from scenarios.results.aggregate import by_point
from scenarios.results.store import StoredRun

__all__ = ["generic_figures"]


def generic_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    sw = [k for k in swept(runs) if numeric(runs, k)]
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
            f"{x}-metrics", title(scenario, f"metrics against {x}", runs),
            f"Each metric (mean ± sd over repeats) against {label(x)}.",
            {m: label(x) for m in nums}, {m: label(m) for m in nums}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=nums, sharey=False))
    return figs
