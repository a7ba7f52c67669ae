"""A ``Mapping`` keyed by a sorted column of party ids: the base of the column tables.

:class:`~mpc_rr.core.OutcomeTable` and :class:`~mpc_rr.core.StatsTable` keep one
row per party in numpy columns; both find a party's row by binary search in
their sorted ``ids`` and build the party's object only when it is read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar

import numpy as np

__all__: list[str] = []

V = TypeVar("V")


class IdColumns(Mapping[int, V]):
    """``ids`` (sorted int64) and the lookups every column table shares; subclasses
    define ``__getitem__`` from the row :meth:`_row` finds."""

    ids: np.ndarray

    def _row(self, pid: object) -> int:
        """The row of party ``pid`` (-1: not in the table, or not a party id)."""
        if not isinstance(pid, (int, np.integer)) or isinstance(pid, bool):
            return -1
        i = int(np.searchsorted(self.ids, pid))
        return i if i < len(self.ids) and self.ids[i] == pid else -1

    def __contains__(self, pid: object) -> bool:
        return self._row(pid) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids.tolist())

    def __len__(self) -> int:
        return len(self.ids)
