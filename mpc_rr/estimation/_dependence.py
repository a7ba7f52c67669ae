"""Dependence between attribute pairs from contingency tables.

Domingo-Ferrer & Soria-Comas, Section 4, Expressions 8-9:

* two ordinal attributes: ``|r|``, Pearson's correlation of the category
  ranks (codes ``0..r-1``) weighted by the table;
* otherwise: Cramér's V, ``sqrt(chi2 / n / min(r - 1, c - 1))`` with
  ``chi2 = sum (o - e)^2 / e`` -- the paper prints ``f`` in the denominator;
  the expected count ``e`` is correct (docs/rr_library.md, decision 3).

Both lie in [0, 1] so they are comparable for clustering.  Rows/columns with
zero total are dropped before Cramér's V (they carry no information and
would divide by zero); ``min(r - 1, c - 1)`` then counts non-empty
categories, so a diagonal table has V = 1 whatever its padding.  A constant
attribute has dependence 0 with everything.

Tables may be estimated (from RR) rather than counted: any non-negative table
works; its total plays the role of ``n``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data import Schema

__all__ = [
    "contingency",
    "cramers_v",
    "dependence",
    "dependence_matrix",
    "dependence_matrix_from_tables",
    "pearson_abs",
]


def _check_table(table: np.ndarray) -> np.ndarray:
    t = np.asarray(table, dtype=float)
    if t.ndim != 2:
        raise UsageError(f"contingency table must be 2-D, got shape {t.shape}")
    if (t < 0).any() or not np.isfinite(t).all():
        raise UsageError("contingency table must be finite and non-negative")
    if t.sum() <= 0:
        raise UsageError("contingency table is empty (total 0)")
    return t


def contingency(a: np.ndarray, b: np.ndarray, ra: int, rb: int) -> np.ndarray:
    """Counts of each ``(a, b)`` combination, shape ``(ra, rb)`` (one bincount)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 1:
        raise UsageError(
            f"contingency: code arrays must be 1-D of equal length, got {a.shape}, {b.shape}"
        )
    return np.bincount(a * rb + b, minlength=ra * rb).reshape(ra, rb).astype(float)


def cramers_v(table: np.ndarray) -> float:
    """Cramér's V of a contingency table (chi-squared over expected counts)."""
    t = _check_table(table)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    k = min(t.shape) - 1
    if k <= 0:
        return 0.0
    n = t.sum()
    e = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    chi2 = float(((t - e) ** 2 / e).sum())
    return float(min(1.0, np.sqrt(chi2 / n / k)))


def pearson_abs(table: np.ndarray) -> float:
    """|Pearson r| between the row and column ranks, weighted by the table."""
    t = _check_table(table)
    n = t.sum()
    x = np.arange(t.shape[0], dtype=float)
    y = np.arange(t.shape[1], dtype=float)
    px, py = t.sum(axis=1) / n, t.sum(axis=0) / n
    mx, my = px @ x, py @ y
    vx, vy = px @ (x - mx) ** 2, py @ (y - my) ** 2
    if vx <= 0 or vy <= 0:
        return 0.0
    cov = (x - mx) @ (t / n) @ (y - my)
    return float(min(1.0, abs(cov) / np.sqrt(vx * vy)))


def dependence(table: np.ndarray, ordinal_a: bool, ordinal_b: bool) -> float:
    """|Pearson r| if both attributes are ordinal, else Cramér's V (Expressions 8-9)."""
    return pearson_abs(table) if (ordinal_a and ordinal_b) else cramers_v(table)


def dependence_matrix_from_tables(
    tables: Mapping[tuple[int, int], np.ndarray],
    schema: Schema,
    measure: Callable[[np.ndarray, bool, bool], float] = dependence,
) -> np.ndarray:
    """Symmetric ``m x m`` matrix (zero diagonal) from pairwise tables keyed ``(i, j), i < j``;
    ``measure(table, ordinal_a, ordinal_b)`` is each pair's dependence (default :func:`dependence`)."""
    m = len(schema)
    d = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            if (i, j) not in tables:
                raise UsageError(f"dependence matrix: missing table for pair ({i}, {j})")
            ai, aj = schema.attributes[i], schema.attributes[j]
            d[i, j] = d[j, i] = measure(tables[(i, j)], ai.ordinal, aj.ordinal)
    return d


def pair_tables(codes: np.ndarray, sizes: Sequence[int]) -> dict[tuple[int, int], np.ndarray]:
    """All pairwise contingency tables of an ``(n, m)`` code array."""
    m = len(sizes)
    return {
        (i, j): contingency(codes[:, i], codes[:, j], sizes[i], sizes[j])
        for i in range(m)
        for j in range(i + 1, m)
    }


def dependence_matrix(codes: np.ndarray, schema: Schema) -> np.ndarray:
    """Dependence matrix of a data set of codes (true or randomized)."""
    c = np.asarray(codes)
    if c.ndim != 2 or c.shape[1] != len(schema) or c.shape[0] == 0:
        raise UsageError(f"dependence_matrix: codes must be (n>0, {len(schema)}), got {c.shape}")
    return dependence_matrix_from_tables(pair_tables(c, schema.sizes), schema)
