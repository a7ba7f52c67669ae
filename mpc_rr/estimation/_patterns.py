"""The histogram of distinct records: what the estimates of a randomized data set depend on.

Every estimate the pipeline's coordinator makes from ``n`` randomized records
``Y`` is a function of the *counts* of the distinct records, not of their
order or of who sent them:

* a dependence (Expressions 8-9) of the pair table of attributes ``(i, j)``,
  a sum over records;
* Eq. 2 of a cluster's joint counts, a sum over records;
* RR-Adjustment (Algorithm 2): a record's weight depends on it only through
  its cells, so records with the same codes keep equal weights in every pass.
  Algorithm 2 over the distinct patterns, started at weights proportional to
  their counts, is Algorithm 2 over the records with each pattern's weight
  split evenly among its copies (the same I-projection, Csiszar 1975).

:class:`PatternCounts` is that histogram as sparse ``(pattern, count)`` rows,
sorted lexicographically (the order of the mixed-radix key, first attribute
most significant), so that two histograms of the same records are equal array
for array however the records were split: a sharded coordinator merges
per-shard histograms (:meth:`PatternCounts.merge`) and gets the very arrays
one process gets from all the rows, hence the same estimates bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data import Schema
from mpc_rr.estimation._adjustment import AdjustmentResult, rr_adjustment
from mpc_rr.estimation._dependence import dependence_matrix_from_tables

__all__ = ["PatternCounts"]

_DENSE = 2**22  # a domain this small is counted densely (32 MiB of counts)
_KEY_LIMIT = 2**62  # mixed-radix keys in int64 below this domain size; np.unique on rows above


def _code_dtype(sizes: Sequence[int]) -> np.dtype[np.generic]:
    """The smallest of uint8 / uint16 / int64 that holds every category (as on the wire)."""
    top = max(sizes, default=1)
    return np.dtype(np.uint8 if top <= 256 else np.uint16 if top <= 65536 else np.int64)


@dataclass(frozen=True, eq=False)
class PatternCounts:
    """Sparse histogram of records: ``patterns[k]`` occurs ``counts[k]`` times (see module doc).

    ``patterns`` is ``(k, m)`` in the smallest code dtype, sorted
    lexicographically without repeats; ``counts`` is ``(k,)`` int64, each >= 1.
    Build with :meth:`of` or :meth:`merge`; :meth:`check` validates one that
    came from elsewhere (a shard's partial).
    """

    sizes: tuple[int, ...]
    patterns: np.ndarray
    counts: np.ndarray

    # -- building ---------------------------------------------------------------------
    @classmethod
    def of(cls, rows: np.ndarray, sizes: Sequence[int]) -> PatternCounts:
        """The histogram of ``rows`` (``(n, m)`` codes, assumed within ``sizes``)."""
        return cls._unique(np.asarray(rows), None, tuple(int(s) for s in sizes))

    @classmethod
    def merge(cls, parts: Sequence[PatternCounts], sizes: Sequence[int]) -> PatternCounts:
        """The histogram of the union of the parts' records (counts add up)."""
        sz = tuple(int(s) for s in sizes)
        for p in parts:
            if p.sizes != sz:
                raise UsageError(f"PatternCounts.merge: a part over sizes {p.sizes}, expected {sz}")
        if len(parts) == 1:
            return parts[0]
        rows = np.concatenate([p.patterns for p in parts]) if parts else np.zeros((0, len(sz)))
        w = np.concatenate([p.counts for p in parts]) if parts else np.zeros(0, np.int64)
        return cls._unique(rows, w, sz)

    @classmethod
    def _unique(cls, rows: np.ndarray, weights: np.ndarray | None, sizes: tuple[int, ...]) -> PatternCounts:
        m = len(sizes)
        dt = _code_dtype(sizes)
        if rows.ndim != 2 or rows.shape[1] != m:
            raise UsageError(f"PatternCounts: rows must be (n, {m}), got {rows.shape}")
        if rows.shape[0] == 0:
            return cls(sizes, np.zeros((0, m), dt), np.zeros(0, np.int64))
        domain = math.prod(sizes)
        if domain <= max(_DENSE, 4 * rows.shape[0]):  # a dense count over the domain: O(n + domain)
            keys = np.ravel_multi_index(tuple(rows.astype(np.intp).T), sizes)
            dense = np.bincount(keys, weights=weights, minlength=domain)
            uniq = np.flatnonzero(dense)
            pats = np.stack(np.unravel_index(uniq, sizes), axis=1).astype(dt)
            return cls(sizes, np.ascontiguousarray(pats, dt), dense[uniq].astype(np.int64))
        if domain < _KEY_LIMIT:
            keys = np.ravel_multi_index(tuple(rows.astype(np.int64).T), sizes)
            uniq, inv = np.unique(keys, return_inverse=True)
            pats = np.stack(np.unravel_index(uniq, sizes), axis=1).astype(dt)
        else:  # a domain past int64: lexicographic unique on the rows themselves (same order)
            pats, inv = np.unique(rows.astype(dt), axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        if weights is None:
            counts = np.bincount(inv, minlength=len(pats)).astype(np.int64)
        else:  # counts below 2**53 add up exactly in float64
            counts = np.bincount(inv, weights=weights, minlength=len(pats)).astype(np.int64)
        return cls(sizes, np.ascontiguousarray(pats, dt), counts)

    def check(self, where: str) -> None:
        """Refuse a malformed histogram (a shard's partial), naming ``where`` it came from."""
        m, p, c = len(self.sizes), self.patterns, self.counts
        if p.ndim != 2 or p.shape[1] != m or c.shape != (p.shape[0],):
            raise UsageError(f"{where}: patterns {p.shape} and counts {c.shape} do not match {m} attributes")
        if p.shape[0] == 0:
            return
        if (c < 1).any():
            raise UsageError(f"{where}: a pattern count below 1")
        codes = p.astype(np.int64)
        if (codes < 0).any() or (codes >= np.asarray(self.sizes, np.int64)).any():
            raise UsageError(f"{where}: a pattern code outside its attribute's categories")
        diff = np.diff(codes, axis=0)  # strictly increasing rows, lexicographically
        first = np.argmax(diff != 0, axis=1)
        lead = diff[np.arange(len(diff)), first]
        if (lead <= 0).any():
            raise UsageError(f"{where}: patterns not sorted lexicographically without repeats")

    # -- what the estimates need ------------------------------------------------------
    @property
    def total(self) -> int:
        """The number of records."""
        return int(self.counts.sum())

    def __len__(self) -> int:
        return int(self.patterns.shape[0])

    def joint_counts(self, group: Sequence[int]) -> np.ndarray:
        """As :func:`mpc_rr.mdrr.joint_counts` of the records (float counts, shaped by the group)."""
        g = [int(i) for i in group]
        dims = tuple(self.sizes[i] for i in g)
        codes = self.patterns.astype(np.int64)
        idx = np.ravel_multi_index(tuple(codes[:, g].T), dims) if len(g) > 1 else codes[:, g[0]]
        return np.bincount(idx, weights=self.counts, minlength=math.prod(dims)).reshape(dims)

    def dependence_matrix(self, schema: Schema) -> np.ndarray:
        """As :func:`mpc_rr.estimation.dependence_matrix` of the records (the same pair tables)."""
        m = len(self.sizes)
        if self.total == 0:
            raise UsageError(f"dependence_matrix: codes must be (n>0, {m}), got (0, {m})")
        tables = {(i, j): self.joint_counts((i, j)) for i in range(m) for j in range(i + 1, m)}
        return dependence_matrix_from_tables(tables, schema)

    def adjust(
        self, groups: Sequence[Sequence[int]], targets: Sequence[np.ndarray], *, max_iter: int = 1000
    ) -> AdjustmentResult:
        """RR-Adjustment over the patterns: ``weights[k]`` is the mass of ``patterns[k]``
        (all its copies); :meth:`row_weights` splits it over the records."""
        return rr_adjustment(
            self.patterns.astype(np.int64), self.sizes, groups, targets, max_iter=max_iter,
            weights=self.counts.astype(float),
        )  # fmt: skip

    def without(self, which: np.ndarray) -> PatternCounts:
        """The histogram less one record of pattern ``which[i]`` for each ``i`` (a pattern left
        with no record is dropped)."""
        counts = self.counts - np.bincount(np.asarray(which, np.intp), minlength=len(self))
        if (counts < 0).any():
            raise UsageError("PatternCounts.without: more records removed than counted")
        keep = counts > 0
        return PatternCounts(self.sizes, self.patterns[keep], counts[keep])

    def index_of(self, rows: np.ndarray) -> np.ndarray:
        """The pattern index of each of ``rows`` (every row must be one of the patterns)."""
        r = np.asarray(rows)
        if math.prod(self.sizes) < _KEY_LIMIT:
            keys = np.ravel_multi_index(tuple(self.patterns.astype(np.int64).T), self.sizes)
            mine = np.ravel_multi_index(tuple(r.astype(np.int64).T), self.sizes)
            idx = np.searchsorted(keys, mine)
        else:
            both = np.concatenate([self.patterns, r.astype(self.patterns.dtype)])
            _, inv = np.unique(both, axis=0, return_inverse=True)
            idx = inv.reshape(-1)[len(self.patterns) :]
        return np.asarray(idx, np.intp)

    def row_weights(self, rows: np.ndarray, pattern_weights: np.ndarray) -> np.ndarray:
        """Per-record weights of ``rows`` (the records counted here): each pattern's weight
        split evenly over its copies."""
        idx = self.index_of(rows)
        out: np.ndarray = np.asarray(pattern_weights, float)[idx] / self.counts[idx]
        return out
