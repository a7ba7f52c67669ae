"""Results as pandas DataFrames, for a notebook: a store's runs, and one run's ``results.json``.

pandas is optional (``pip install 'mpc-rr[pandas]'``); without it these functions say so.

Example::

    from scenarios.results.frames import runs_frame, run_frame
    from scenarios.results.store import Store
    with Store("results.db", create=False) as s:
        df = runs_frame(s, scenario="mdrr-table1")
    df.groupby(["p", "td"])["error_clusters_0.1"].mean()
    run_frame("results/run-adult-1/results.json")    # method, sigma, median relative error
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError, require_extra

if TYPE_CHECKING:
    import pandas as pd

    from scenarios.results.store import Store

__all__ = ["run_frame", "runs_frame"]

RUN_COLUMNS = ("key", "scenario", "kind", "repeat", "seed", "status", "wall_s", "finished", "code_version", "dataset")
"""The columns every row of :func:`runs_frame` starts with; the grid point's parameters and the
metrics follow (a metric named like a parameter gets the prefix ``metric.``)."""


def _pandas() -> Any:
    return require_extra("pandas", "pandas", needed_for="results as DataFrames")


def runs_frame(store: Store, scenario: str | None = None, code_version: str | None = None) -> pd.DataFrame:
    """One row per stored run (of ``scenario`` / ``code_version``): :data:`RUN_COLUMNS`, then one
    column per grid parameter of its point, then one per metric (floats; ``None`` as NaN)."""
    pd = _pandas()
    rows = []
    for r in store.runs(scenario=scenario, code_version=code_version):
        row: dict[str, Any] = {c: getattr(r, c) for c in RUN_COLUMNS}
        row.update(r.point)
        for k, v in r.metrics.items():
            row[f"metric.{k}" if k in row else k] = v
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else list(RUN_COLUMNS))


def run_frame(results: str | Path | dict[str, Any]) -> pd.DataFrame:
    """One run's ``results.json`` (``mpc-rr run``; a path or the parsed document) as a long table:
    ``method``, ``sigma`` (query coverage), ``median_relative_error``, with the run's
    ``dataset``, ``parties``, ``seed`` and epsilon total on every row."""
    pd = _pandas()
    doc = json.loads(Path(results).read_text()) if not isinstance(results, dict) else results
    if "relative_error" not in doc:
        raise UsageError("not the results.json of `mpc-rr run` (no relative_error)")
    eps = (doc.get("epsilon") or {}).get("total")
    rows = [
        {"method": m, "sigma": float(s), "median_relative_error": v, "dataset": doc.get("dataset"),
         "parties": doc.get("parties"), "seed": doc.get("seed"), "epsilon_total": eps}
        for m, by in doc["relative_error"].items() for s, v in by.items()
    ]  # fmt: skip
    return pd.DataFrame(rows)
