"""Layout of all cells of all attribute pairs in one vector (Section 4.2).

Domingo-Ferrer & Soria-Comas, Section 4.2, compute the absolute frequency of
every value combination ``(a, a')`` of every attribute pair ``(A, A')`` with a
secure sum.  We run one secure sum over a vector holding *all* those cells:
pair ``(i, j)`` (``i < j``, in lexicographic order) owns the block
``offsets[p] .. offsets[p] + |A_i| |A_j|`` and cell ``(a, b)`` of that block
sits at ``a * |A_j| + b`` (row-major).  For Adult's 8 attributes
(9/16/7/15/6/5/2/2 categories) the vector has
``sum_{i<j} |A_i||A_j| = 1,582`` cells.

* :meth:`PairLayout.encode` -- records ``(n, m)`` -> the ``m(m-1)/2`` cell
  indices each record occupies (``(n, m(m-1)/2)``), vectorized;
* :meth:`PairLayout.one_hot` -- the 0/1 indicator vectors (``(n, cells)``
  uint8) each party feeds to the secure sum;
* :meth:`PairLayout.decode` -- an aggregate vector -> ``{(i, j): table}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import check_sizes

__all__ = ["PairLayout", "crosstabs", "pair_layout"]


@dataclass(frozen=True)
class PairLayout:
    """Cell layout for the attribute sizes ``sizes`` (``m >= 2`` attributes)."""

    sizes: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...] = field(init=False)
    offsets: np.ndarray = field(init=False, repr=False)
    cells: int = field(init=False)

    def __post_init__(self) -> None:
        sizes = check_sizes(self.sizes, name="PairLayout sizes")
        if len(sizes) < 2:
            raise UsageError(f"PairLayout: need >= 2 attributes, got sizes {sizes}")
        pairs = tuple((i, j) for i in range(len(sizes)) for j in range(i + 1, len(sizes)))
        blocks = np.array([sizes[i] * sizes[j] for i, j in pairs], np.int64)
        offsets = np.concatenate([[0], np.cumsum(blocks)])
        offsets.setflags(write=False)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "cells", int(offsets[-1]))

    def block(self, i: int, j: int) -> slice:
        """The slice of pair ``(i, j)`` (``i < j``) in the vector."""
        p = self._pair_index(i, j)
        return slice(int(self.offsets[p]), int(self.offsets[p + 1]))

    def _pair_index(self, i: int, j: int) -> int:
        m = len(self.sizes)
        if not 0 <= i < j < m:
            raise UsageError(f"PairLayout: pair ({i}, {j}) must satisfy 0 <= i < j < {m}")
        return i * m - i * (i + 1) // 2 + (j - i - 1)

    def _check(self, codes: np.ndarray) -> np.ndarray:
        c = np.asarray(codes)
        if c.ndim != 2 or c.shape[1] != len(self.sizes):
            raise UsageError(f"codes must have shape (n, {len(self.sizes)}), got {c.shape}")
        if not np.issubdtype(c.dtype, np.integer):
            raise UsageError(f"codes must be integers, got dtype {c.dtype}")
        bad = (c < 0) | (c >= np.asarray(self.sizes))
        if bad.any():
            r, a = np.argwhere(bad)[0]
            raise UsageError(
                f"codes[{r}, {a}] = {c[r, a]} outside 0..{self.sizes[a] - 1} for attribute {a}"
            )
        return c.astype(np.int64)

    def encode(self, codes: np.ndarray) -> np.ndarray:
        """Cell index of every pair for every record: ``(n, len(pairs))`` int64."""
        c = self._check(codes)
        i = np.array([p[0] for p in self.pairs])
        j = np.array([p[1] for p in self.pairs])
        width = np.asarray(self.sizes)[j]
        result: np.ndarray = self.offsets[:-1] + c[:, i] * width + c[:, j]
        return result

    def one_hot(self, codes: np.ndarray) -> np.ndarray:
        """0/1 indicator vectors ``(n, cells)`` uint8: each record's secure-sum input."""
        idx = self.encode(codes)
        out = np.zeros((idx.shape[0], self.cells), np.uint8)
        np.put_along_axis(out, idx, 1, axis=1)
        return out

    def aggregate(self, codes: np.ndarray) -> np.ndarray:
        """Plaintext aggregate (what the secure sum must reproduce): one bincount."""
        return np.bincount(self.encode(codes).ravel(), minlength=self.cells)

    def decode(self, vector: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
        """Split an aggregate vector into the ``(|A_i|, |A_j|)`` table of every pair."""
        v = np.asarray(vector)
        if v.shape != (self.cells,):
            raise UsageError(f"vector must have shape ({self.cells},), got {v.shape}")
        return {
            (i, j): v[self.offsets[p] : self.offsets[p + 1]].reshape(self.sizes[i], self.sizes[j])
            for p, (i, j) in enumerate(self.pairs)
        }


@lru_cache(maxsize=32)
def pair_layout(sizes: tuple[int, ...]) -> PairLayout:
    """The (immutable, shared) :class:`PairLayout` of ``sizes``: built once per process, not
    once per simulated party (every party of a run has the same layout)."""
    return PairLayout(sizes)


def crosstabs(codes: np.ndarray, sizes: Sequence[int]) -> dict[tuple[int, int], np.ndarray]:
    """Plain bivariate contingency tables of every pair, straight from the records."""
    c = np.asarray(codes, dtype=np.int64)
    m = len(sizes)
    out = {}
    for i in range(m):
        for j in range(i + 1, m):
            flat = np.bincount(c[:, i] * sizes[j] + c[:, j], minlength=sizes[i] * sizes[j])
            out[(i, j)] = flat.reshape(sizes[i], sizes[j])
    return out
