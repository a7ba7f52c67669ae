"""A study: a results store and the scenarios run into it, from Python (as ``mpc-rr scenario`` and
``mpc-rr results`` do from the shell).

::

    import scenarios

    study = scenarios.study("results.db")            # created if missing
    study.run("scenarios/experiments/examples/dropout_secagg.toml", jobs=2)
    study.run(scenario)                              # again: only the missing runs execute
    study.names()                                    # the scenarios the store holds
    for point in study.points("dropout-secagg"):     # mean ± sd over repeats, per grid point
        print(point.point, point.metrics["completed"].text())
    study.frame("dropout-secagg")                    # one row per run (pandas)

The store is the same SQLite file the command line writes: a sweep killed at
any moment resumes with only its missing runs, whichever of the two started
it. Like ``optuna.create_study(storage=...)``, opening a study never deletes
anything; runs of other code versions stay in the store and are never mixed
into one mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    import pandas as pd

    from scenarios.experiments.spec import Scenario
    from scenarios.experiments.sweep import SweepResult
    from scenarios.results.aggregate import PointSummary
    from scenarios.results.store import Store, StoredRun

__all__ = ["Study", "study"]


class Study:
    """The scenarios of one results store (module docstring). Use it as a context manager, or
    call :meth:`close`, to release the database file."""

    def __init__(self, storage: str | Path, *, create: bool = True) -> None:
        from scenarios.results.store import Store

        self._store: Store = Store(storage, create=create)

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return Path(self._store.path)

    # -- running -----------------------------------------------------------------------------
    def run(self, scenario: Scenario | str | Path, *, jobs: int = 1, progress: bool = False) -> SweepResult:
        """Execute the runs of ``scenario`` (a scenario file's path, or a parsed
        :class:`~scenarios.experiments.spec.Scenario`) that the store does not hold yet, in
        this process or in ``jobs`` worker processes; what the session did."""
        from scenarios.experiments.sweep import sweep

        return sweep(_scenario(scenario), self._store, jobs=jobs, progress=progress)

    def missing(self, scenario: Scenario | str | Path) -> int:
        """How many runs of ``scenario`` are not stored yet (nothing is executed)."""
        from scenarios.experiments.sweep import plan

        _, runs, present = plan(_scenario(scenario), self._store)
        return len(runs) - len(present)

    # -- reading -----------------------------------------------------------------------------
    def names(self) -> list[str]:
        """The scenarios the store holds runs of, in the order they were first run."""
        seen: dict[str, None] = {}
        for row in self._store.scenarios():
            seen.setdefault(str(row["scenario"]), None)
        return list(seen)

    def runs(self, scenario: str, *, code_version: str | None = None) -> list[StoredRun]:
        """The runs of ``scenario``: those its latest session planned, or with ``code_version``
        every stored run of that code version (``mpc-rr results show``)."""
        from scenarios.results.aggregate import select

        return select(self._store, scenario, code_version)

    def points(self, scenario: str, metrics: Sequence[str] | None = None, *,
               code_version: str | None = None) -> list[PointSummary]:  # fmt: skip
        """Per grid point, each metric's mean, sd, min and max over the repeats (``metrics``:
        every metric the scenario records by default), in the grid's order."""
        from scenarios.results.aggregate import by_point, grid_of, scenario_metrics

        runs = self.runs(scenario, code_version=code_version)
        names = list(metrics) if metrics is not None else scenario_metrics(self._store, scenario, runs)
        return by_point(runs, names, grid_of(self._store, scenario))

    def frame(self, scenario: str | None = None, *, code_version: str | None = None) -> pd.DataFrame:
        """One row per stored run (of ``scenario``): key, repeat, seed, status, wall time, the grid
        point's parameters, then every metric (pandas: ``pip install 'mpc-rr[pandas]'``)."""
        from scenarios.results.frames import runs_frame

        return runs_frame(self._store, scenario=scenario, code_version=code_version)

    # -- lifetime ----------------------------------------------------------------------------
    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Study:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Study({str(self.path)!r})"


def _scenario(given: Any) -> Scenario:
    from scenarios.experiments.spec import Scenario, load_scenario

    if isinstance(given, Scenario):
        return given
    if isinstance(given, str | Path):
        return load_scenario(given)
    raise UsageError(f"study: expected a scenario file's path or a Scenario, got {type(given).__name__}")


def study(storage: str | Path, *, create: bool = True) -> Study:
    """The study stored in ``storage`` (a SQLite file; created unless ``create=False``)."""
    return Study(storage, create=create)
