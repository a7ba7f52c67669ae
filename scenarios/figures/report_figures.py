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

This module is the API (:func:`figures_for`, :data:`BUILDERS`); the code is in
:mod:`~scenarios.figures.report_series` (the records and the data behind
them), :mod:`~scenarios.figures.report_drawing` (matplotlib into SVG), and
one module per family of figures: :mod:`~scenarios.figures.report_protocol_figures`
(pipeline, secure-sum), :mod:`~scenarios.figures.report_privacy_figures`
(rrba, linkability, audit) and :mod:`~scenarios.figures.report_generic_figures`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scenarios.figures.report_drawing import COLORS as COLORS
from scenarios.figures.report_drawing import MARKERS as MARKERS
from scenarios.figures.report_drawing import draw as draw
from scenarios.figures.report_drawing import draw_stacked as draw_stacked
from scenarios.figures.report_generic_figures import generic_figures
from scenarios.figures.report_privacy_figures import (
    audit_figures,
    linkability_figures,
    rrba_figures,
)
from scenarios.figures.report_protocol_figures import PHASES as PHASES
from scenarios.figures.report_protocol_figures import pipeline_figures, secure_sum_figures
from scenarios.figures.report_series import LABELS as LABELS
from scenarios.figures.report_series import SCALE as SCALE
from scenarios.figures.report_series import Figure, Series, wilson
from scenarios.figures.report_series import label as label
from scenarios.figures.report_series import lines as lines
from scenarios.figures.report_series import rates as rates
from scenarios.figures.report_series import swept as swept
from scenarios.results.store import StoredRun

# the API; the helpers imported `as` themselves above (labels, grouping, drawing) stay importable
# from here, where they were before this module was split
__all__ = ["BUILDERS", "Figure", "Series", "figures_for", "wilson"]


BUILDERS: dict[
    str, Callable[[str, Sequence[StoredRun], Sequence[str], dict[str, list[Any]]], list[Figure]]
] = {
    "pipeline": pipeline_figures,
    "secure-sum": secure_sum_figures,
    "rrba": rrba_figures,
    "linkability": linkability_figures,
    "audit": audit_figures,
}


def figures_for(kind: str, scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str],
                grid: dict[str, list[Any]]) -> list[Figure]:  # fmt: skip
    """The figures of one scenario (the kind's builder, else metrics against swept numbers)."""
    if not runs:
        return []
    return BUILDERS.get(kind, generic_figures)(scenario, runs, metrics, grid)
