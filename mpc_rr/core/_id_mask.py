"""A set of party ids as a boolean mask: O(1) size, vectorized updates, 1 byte per possible id.

A coordinator of ``n`` parties keeps whom it expects and who is still silent.
As Python sets of ints those cost ~60-100 bytes per party each and a Python
loop per update; at 10^7 parties that is gigabytes and seconds of serial
work.  :class:`IdMask` is the same read-only set (``len``, ``in``, iteration
in id order) over one ``numpy`` boolean array, updated one id at a time or a
whole array of ids at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

import numpy as np

__all__ = ["IdMask"]


class IdMask(AbstractSet[int]):
    """Ids ``0..top`` as a boolean mask (see module docstring)."""

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = np.asarray(mask, np.bool_)
        self.count = int(self.mask.sum())

    @classmethod
    def of(cls, top: int, ids: Iterable[int] | np.ndarray) -> IdMask:
        """The ids ``ids`` (each in ``0..top``)."""
        mask = np.zeros(top + 1, np.bool_)
        arr = ids if isinstance(ids, np.ndarray) else np.fromiter(ids, np.intp)
        mask[arr] = True
        return cls(mask)

    def copy(self) -> IdMask:
        return IdMask(self.mask.copy())

    def __len__(self) -> int:
        return self.count

    def __contains__(self, pid: object) -> bool:
        if not isinstance(pid, int | np.integer):
            return False
        return bool(0 <= pid < len(self.mask) and self.mask[pid])

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids())

    def ids(self) -> list[int]:
        """The ids, sorted."""
        out: list[int] = np.flatnonzero(self.mask).tolist()
        return out

    def discard(self, pid: int) -> None:
        if 0 <= pid < len(self.mask) and self.mask[pid]:
            self.mask[pid] = False
            self.count -= 1

    def discard_many(self, ids: np.ndarray) -> None:
        """Remove ``ids`` (distinct; absent ones are ignored)."""
        self.count -= int(self.mask[ids].sum())
        self.mask[ids] = False
