"""One-hot layout of every attribute pair's cells (Sec. 4.2: bivariate counts by secure sum).

Pairs ``(i, j), i < j`` in lexicographic order; pair ``(i, j)`` owns
``|A_i| |A_j|`` consecutive cells in row-major order.  Adult: 28 pairs,
1,582 cells.  A record becomes a 0/1 vector with one 1 per pair; the sum over
parties is every bivariate contingency table at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.dependence import dependence_matrix_from_tables
from mpc_rr.errors import UsageError
from mpc_rr.schema import Schema

__all__ = ["PairCells"]


class PairCells:
    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        m = len(self.sizes)
        if m < 2:
            raise UsageError("pair cells need at least two attributes")
        self.pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
        widths = [self.sizes[i] * self.sizes[j] for i, j in self.pairs]
        self.offsets = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
        self.cells = int(self.offsets[-1])
        self._a = np.array([i for i, _ in self.pairs])
        self._b = np.array([j for _, j in self.pairs])
        self._sb = np.array([self.sizes[j] for _, j in self.pairs])

    def indices(self, codes: np.ndarray) -> np.ndarray:
        """``(n, m)`` codes -> ``(n, pairs)`` flat cell indices (vectorized)."""
        c = np.asarray(codes, dtype=np.int64)
        c2 = c.reshape(1, -1) if c.ndim == 1 else c
        return self.offsets[:-1] + c2[:, self._a] * self._sb + c2[:, self._b]

    def one_hot(self, record: np.ndarray) -> np.ndarray:
        v = np.zeros(self.cells, dtype=np.int64)
        v[self.indices(record)[0]] = 1
        return v

    def aggregate(self, codes: np.ndarray) -> np.ndarray:
        """The plaintext sum of every party's one-hot vector (what the secure sum computes)."""
        return np.bincount(self.indices(codes).reshape(-1), minlength=self.cells)

    def tables(self, total: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
        t = np.asarray(total)
        if t.shape != (self.cells,):
            raise UsageError(f"aggregate must have {self.cells} cells, got shape {t.shape}")
        return {
            (i, j): t[self.offsets[k] : self.offsets[k + 1]]
            .reshape(self.sizes[i], self.sizes[j])
            .astype(float)
            for k, (i, j) in enumerate(self.pairs)
        }

    def dependences(self, total: np.ndarray, schema: Schema) -> np.ndarray:
        return dependence_matrix_from_tables(self.tables(total), schema)
