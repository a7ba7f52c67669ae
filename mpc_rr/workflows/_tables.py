"""Small typed tables of results: the count-query errors of a pipeline run, per method and coverage.

Domingo-Ferrer & Soria-Comas, Sec. 6.5: the accuracy of an estimate is the
median relative error of random count queries whose predicate covers a
fraction ``sigma`` of the domain (0.1 and 0.5 in the paper).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ErrorTable", "PhaseEpsilons"]


@dataclass(frozen=True)
class ErrorTable:
    """Median relative error of count queries: one row per method, one column per query coverage.

    ``table.at("RR-Clusters+Adjustment", 0.1)`` is one figure; ``table["RR-Clusters"]`` a row
    (coverage -> error); ``table.to_frame()`` a pandas DataFrame; ``table.to_json()`` the
    ``relative_error`` object of ``results.json`` (coverages as strings, ``"0.1"``).
    """

    methods: tuple[str, ...]
    coverages: tuple[float, ...]
    values: tuple[tuple[float, ...], ...]  # values[i][j]: method i at coverage j (a fraction)

    def __post_init__(self) -> None:
        if len(self.values) != len(self.methods) or any(len(r) != len(self.coverages) for r in self.values):
            raise UsageError(f"ErrorTable: {len(self.methods)} methods x {len(self.coverages)} coverages "
                             f"do not match the values' shape")  # fmt: skip

    @classmethod
    def from_json(cls, doc: Mapping[str, Mapping[str, float]]) -> ErrorTable:
        """From ``results.json``'s ``relative_error`` (method -> coverage string -> error)."""
        methods = tuple(doc)
        coverages = tuple(sorted({float(c) for row in doc.values() for c in row}))
        values = tuple(tuple(float(doc[m][_key(c, doc[m])]) for c in coverages) for m in methods)
        return cls(methods, coverages, values)

    def at(self, method: str, coverage: float) -> float:
        """The median relative error of ``method`` on queries of ``coverage``."""
        return self.values[self._row(method)][self._col(coverage)]

    def __getitem__(self, method: str) -> dict[float, float]:
        return dict(zip(self.coverages, self.values[self._row(method)], strict=True))

    def __iter__(self) -> Iterator[str]:
        return iter(self.methods)

    def __len__(self) -> int:
        return len(self.methods)

    def best(self, coverage: float) -> str:
        """The method with the smallest error at ``coverage``."""
        j = self._col(coverage)
        return min(self.methods, key=lambda m: self.values[self._row(m)][j])

    def rows(self) -> list[tuple[str, float, float]]:
        """``(method, coverage, error)`` for every cell, method by method (a long table)."""
        return [(m, c, v) for m, row in zip(self.methods, self.values, strict=True)
                for c, v in zip(self.coverages, row, strict=True)]  # fmt: skip

    def to_json(self) -> dict[str, dict[str, float]]:
        return {m: {str(c): v for c, v in zip(self.coverages, row, strict=True)}
                for m, row in zip(self.methods, self.values, strict=True)}  # fmt: skip

    def to_frame(self) -> pd.DataFrame:
        """One row per method, one column per coverage (pandas: ``pip install 'mpc-rr[pandas]'``)."""
        try:
            import pandas as pd
        except ImportError:
            raise UsageError("tables as DataFrames need pandas: pip install 'mpc-rr[pandas]'") from None
        frame = pd.DataFrame(list(self.values), index=list(self.methods), columns=list(self.coverages))
        frame.index.name, frame.columns.name = "method", "coverage"
        return frame

    def _row(self, method: str) -> int:
        try:
            return self.methods.index(method)
        except ValueError:
            raise UsageError(f"no method {method!r} (methods: {', '.join(self.methods)})") from None

    def _col(self, coverage: float) -> int:
        for j, c in enumerate(self.coverages):
            if abs(c - coverage) < 1e-12:
                return j
        raise UsageError(f"no coverage {coverage!r} (coverages: {', '.join(map(str, self.coverages))})")


def _key(coverage: float, row: Mapping[str, Any]) -> str:
    for k in row:
        if abs(float(k) - coverage) < 1e-12:
            return k
    raise UsageError(f"relative_error: a method has no coverage {coverage}")


@dataclass(frozen=True)
class PhaseEpsilons:
    """The local epsilon a party's record spends in each phase of a pipeline run, and in total
    (sequential composition); ``None``: no finite epsilon (exact counts are not DP)."""

    dependence: float | None
    release: float | None
    total: float | None

    def to_json(self) -> dict[str, float | None]:
        return {"dependence": self.dependence, "release": self.release, "total": self.total}
