"""Marginal tables of records and the two utility measures of Imran & Meo, Sec. 3.2.1.

* ``l2``: the Euclidean distance between the noisy and the true table as
  vectors of *counts* (the paper's Tables 5-6 report e.g. 71.81 for n = 8,000,
  so they are counts, not proportions): :func:`l2_counts`.
* Jensen-Shannon divergence (Eq. 2) between both tables normalized to sum 1.
  We reuse :func:`mpc_rr.estimation.jensen_shannon` (base-2 logarithm, so the
  value lies in [0, 1]; the paper does not state its base).  A noisy table
  with negative cells (Laplace noise) is clipped at 0 first -- JS is
  undefined otherwise, and the paper's "smoothed" remark does not say how it
  handled them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.estimation import jensen_shannon

__all__ = ["empirical_table", "empirical_tables", "js_divergence", "l2_counts"]


def empirical_table(codes: np.ndarray, sizes: Sequence[int], attrs: Sequence[int]) -> np.ndarray:
    """Distribution of the records over ``attrs`` (in that order), shape ``(sizes[a], ...)``."""
    c = np.asarray(codes)
    if c.ndim != 2 or c.shape[0] == 0:
        raise UsageError(f"empirical_table: need a non-empty (n, d) code array, got {c.shape}")
    shape = tuple(int(sizes[a]) for a in attrs)
    flat = np.ravel_multi_index(tuple(c[:, a] for a in attrs), shape)
    return np.asarray(np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape) / c.shape[0])


def empirical_tables(
    codes: np.ndarray, sizes: Sequence[int], subsets: Sequence[Sequence[int]]
) -> list[np.ndarray]:
    """:func:`empirical_table` for each subset."""
    return [empirical_table(codes, sizes, s) for s in subsets]


def l2_counts(estimate: np.ndarray, truth: np.ndarray, n: float) -> float:
    """``|| n * estimate - n * truth ||_2`` for two tables given as proportions."""
    e = np.asarray(estimate, dtype=float).reshape(-1)
    t = np.asarray(truth, dtype=float).reshape(-1)
    if e.shape != t.shape:
        raise UsageError(f"l2_counts: tables differ in size ({e.size} vs {t.size})")
    return float(n * np.linalg.norm(e - t))


def js_divergence(estimate: np.ndarray, truth: np.ndarray) -> float:
    """Jensen-Shannon divergence (bits) after clipping negative cells of ``estimate`` at 0."""
    e = np.clip(np.asarray(estimate, dtype=float), 0.0, None)
    if e.sum() <= 0:
        e = np.ones_like(e)  # nothing left: compare with the uniform table
    return jensen_shannon(e, np.asarray(truth, dtype=float))
