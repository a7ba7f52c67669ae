"""Packed contingency tables of the subsets of a cover, and records -> cells.

RRBA keeps one public table per attribute subset (Imran & Meo, Sec. 4.1);
subsets have different numbers of cells, so every function in this package
works on one zero-padded ``(S, W)`` float array (``S`` tables, ``W`` the
largest cell count) with a boolean :attr:`Layout.mask` of the real cells.
All per-cell work is then one numpy expression over every table at once.

A subset's cells are numbered row-major over its attributes in the subset's
order (ascending attribute index in a :class:`~mpc_rr.rrba.Cover`),
the same convention as ``np.ravel_multi_index`` and ``table.reshape(-1)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["WORKING_TABLES", "Layout", "SubsetIndex", "collection_bytes"]

_SUM_TOL = 1e-6

WORKING_TABLES = 20
"""Padded ``(S, W)`` float arrays a collection holds besides its per-block history (the
aggregator's state, a block's tables, CDFs, counts and estimate, the evaluation's truth):
measured 19 on 35 census-like attributes (``benchmarks/rrba_wide.py --census 35``)."""


def collection_bytes(sizes: Sequence[int], subsets: Sequence[Sequence[int]], clients: int, block: int) -> int:
    """Peak bytes of a collection (estimate): ``8 S W (blocks + WORKING_TABLES)`` plus the records.

    ``S`` tables padded to the widest one's ``W`` cells (:class:`Layout`), one
    estimate per block kept for the convergence history (``blocks =
    ceil(clients / block)``), the records ``clients x d`` int64 codes.
    Computed from the sizes alone, before anything is allocated.
    """
    width = max(math.prod(int(sizes[a]) for a in s) for s in subsets)
    blocks = -(-int(clients) // max(int(block), 1))
    return 8 * len(subsets) * width * (blocks + WORKING_TABLES) + 8 * int(clients) * len(sizes)


@dataclass(frozen=True)
class Layout:
    """``S`` tables with ``cells[s]`` cells each, packed into an ``(S, W)`` array."""

    cells: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.cells:
            raise UsageError("Layout: needs at least one table")
        bad = [c for c in self.cells if c < 1]
        if bad:
            raise UsageError(f"Layout: every table needs >= 1 cell, got {bad[0]}")

    @property
    def n_tables(self) -> int:
        return len(self.cells)

    @cached_property
    def width(self) -> int:
        return max(self.cells)

    @cached_property
    def mask(self) -> np.ndarray:
        """``(S, W)`` bool, True on real cells."""
        m = np.arange(self.width)[None, :] < np.asarray(self.cells)[:, None]
        m.setflags(write=False)
        return m

    def uniform(self) -> np.ndarray:
        """Every table uniform: the paper's initial ``T^{B_0} = 1 / |T|`` (Sec. 5, step 1)."""
        return np.asarray(self.mask / np.asarray(self.cells, dtype=float)[:, None])

    def pack(self, tables: Sequence[np.ndarray]) -> np.ndarray:
        """List of per-table arrays (any shape with the right size) -> ``(S, W)``."""
        if len(tables) != self.n_tables:
            raise UsageError(f"Layout.pack: expected {self.n_tables} tables, got {len(tables)}")
        out = np.zeros((self.n_tables, self.width))
        for s, t in enumerate(tables):
            flat = np.asarray(t, dtype=float).reshape(-1)
            if flat.size != self.cells[s]:
                raise UsageError(
                    f"Layout.pack: table {s} has {flat.size} cells, expected {self.cells[s]}"
                )
            out[s, : flat.size] = flat
        return out

    def unpack(self, packed: np.ndarray) -> list[np.ndarray]:
        """``(S, W)`` -> list of 1-D arrays of each table's real cells."""
        return [packed[s, :c].copy() for s, c in enumerate(self.cells)]

    def check_distributions(self, tables: np.ndarray, what: str = "tables") -> np.ndarray:
        """Validate ``(S, W)`` probability tables: finite, >= 0, rows sum to 1, zero padding."""
        t = np.asarray(tables, dtype=float)
        if t.shape != (self.n_tables, self.width):
            raise UsageError(f"{what}: expected shape {(self.n_tables, self.width)}, got {t.shape}")
        if not np.isfinite(t).all() or (t < 0).any():
            s = int(np.argwhere(~np.isfinite(t) | (t < 0))[0][0])
            raise UsageError(f"{what}: table {s} has a negative or non-finite cell")
        if (t[~self.mask] != 0).any():
            raise UsageError(f"{what}: padding cells must be 0")
        sums = t.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
        if bad.size:
            raise UsageError(f"{what}: table {bad[0]} sums to {sums[bad[0]]:.6g}, not 1")
        return t


@dataclass(frozen=True)
class SubsetIndex:
    """Maps records (codes over all ``d`` attributes) to cells of each subset's table."""

    sizes: tuple[int, ...]
    subsets: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        d = len(self.sizes)
        if d == 0 or any(s < 1 for s in self.sizes):
            raise UsageError(f"SubsetIndex: sizes must be positive, got {self.sizes}")
        if not self.subsets:
            raise UsageError("SubsetIndex: needs at least one subset")
        for i, sub in enumerate(self.subsets):
            if not sub or len(set(sub)) != len(sub) or any(not 0 <= a < d for a in sub):
                raise UsageError(
                    f"SubsetIndex: subset {i} = {sub} must list distinct attributes in 0..{d - 1}"
                )

    @cached_property
    def layout(self) -> Layout:
        return Layout(tuple(math.prod(self.sizes[a] for a in s) for s in self.subsets))

    def shape(self, s: int) -> tuple[int, ...]:
        """Shape of table ``s`` (its attributes' category counts)."""
        return tuple(self.sizes[a] for a in self.subsets[s])

    @cached_property
    def _attrs_strides(self) -> tuple[np.ndarray, np.ndarray]:
        k = max(len(s) for s in self.subsets)
        attrs = np.zeros((len(self.subsets), k), dtype=np.int64)
        strides = np.zeros((len(self.subsets), k), dtype=np.int64)
        for i, sub in enumerate(self.subsets):
            shape = self.shape(i)
            st = np.cumprod((1, *shape[::-1]))[:-1][::-1]
            attrs[i, : len(sub)] = sub
            strides[i, : len(sub)] = st
        return attrs, strides

    def cells(self, codes: np.ndarray, rows: np.ndarray, tables: np.ndarray) -> np.ndarray:
        """Cell of record ``codes[rows[j]]`` in table ``tables[j]``, for every ``j`` at once."""
        attrs, strides = self._attrs_strides
        t = np.asarray(tables, dtype=np.int64)
        c = np.asarray(codes)
        flat = c.reshape(-1)
        base = np.asarray(rows, dtype=np.int64) * c.shape[1]
        a, st = attrs[t], strides[t]
        out = flat[base + a[:, 0]] * st[:, 0]
        for j in range(1, a.shape[1]):  # over the <= k attributes of a subset, not over cells
            out += flat[base + a[:, j]] * st[:, j]
        return np.asarray(out)

    def check_codes(self, codes: np.ndarray, what: str = "records") -> np.ndarray:
        """Validate an ``(m, d)`` integer code array against :attr:`sizes`."""
        c = np.asarray(codes)
        if c.ndim != 2 or c.shape[1] != len(self.sizes):
            raise UsageError(f"{what}: expected shape (m, {len(self.sizes)}), got {c.shape}")
        if c.shape[0] == 0:
            raise UsageError(f"{what}: no records (empty data)")
        if not np.issubdtype(c.dtype, np.integer):
            raise UsageError(f"{what}: codes must be integers, got dtype {c.dtype}")
        bad = (c < 0) | (c >= np.asarray(self.sizes))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise UsageError(
                f"{what}: record {i}, attribute {j}: category code {c[i, j]} is unseen "
                f"(attribute has categories 0..{self.sizes[j] - 1})"
            )
        return c
