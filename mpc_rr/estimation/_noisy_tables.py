"""Dependences from noisy bivariate counts (a secure sum with distributed noise).

Each pair table arrives as exact counts plus independent zero-mean noise of a known
variance ``v`` per cell, so cells can be negative and the chi-squared of Cramér's V is
inflated: ``E[(o + z - e)^2] = (o - e)^2 + v``.  Three repairs (:data:`NOISY_TABLE_REPAIRS`):

* ``clip`` -- negatives to 0, then the table as it is (the dependence measures are
  scale-free: the total plays the role of ``n``);
* ``project`` -- the Euclidean projection of each table (divided by the number of parties)
  onto the probability simplex (Wang & Carreira-Perpiñán 2013, as
  :func:`mpc_rr.estimation.project_simplex`), then scaled back: the nonnegative table
  nearest to the noisy one with the known total;
* ``debias`` -- ``clip``, then Cramér's V with the noise's share of chi-squared removed,
  ``chi2 = sum max(0, (o - e)^2 - v) / e`` (each cell's expected excess ``v`` taken out; a
  method-of-moments correction, consistent as ``n`` grows at fixed ``v``); |Pearson| pairs
  as ``clip`` (the weighted covariance of zero-mean noise has no first-order bias).

The documentation reports each one's bias on Adult at several epsilons.
"""

from __future__ import annotations

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data import Schema
from mpc_rr.estimation._dependence import dependence, dependence_matrix_from_tables
from mpc_rr.estimation._frequencies import project_simplex

__all__ = ["NOISY_TABLE_REPAIRS", "debiased_cramers_v", "noisy_dependence_matrix", "repair_table"]

NOISY_TABLE_REPAIRS = ("clip", "project", "debias")


def repair_table(table: np.ndarray, parties: int, repair: str = "clip") -> np.ndarray:
    """A nonnegative table from a noisy one (``clip`` / ``debias``: clipped; ``project``: see above)."""
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or not np.isfinite(t).all():
        raise UsageError(f"noisy table must be a finite 2-D array, got shape {t.shape}")
    if repair not in NOISY_TABLE_REPAIRS:
        raise UsageError(f"repair must be one of {NOISY_TABLE_REPAIRS}, got {repair!r}")
    if parties < 1:
        raise UsageError(f"parties must be >= 1, got {parties}")
    if repair == "project":
        out: np.ndarray = project_simplex(t.ravel() / parties).reshape(t.shape) * parties
        return out
    clipped: np.ndarray = np.maximum(t, 0.0)
    if clipped.sum() <= 0:  # every cell below zero: nothing left to estimate from
        clipped = np.ones_like(t)
    return clipped


def debiased_cramers_v(table: np.ndarray, noise_variance: float) -> float:
    """Cramér's V with the noise's expected share of chi-squared removed (see the module)."""
    t = np.maximum(np.asarray(table, dtype=float), 0.0)
    if noise_variance < 0:
        raise UsageError(f"noise_variance must be >= 0, got {noise_variance}")
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    k = min(t.shape) - 1 if t.size else 0
    if k <= 0:
        return 0.0
    n = t.sum()
    e = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    chi2 = float((np.maximum((t - e) ** 2 - noise_variance, 0.0) / e).sum())
    return float(min(1.0, np.sqrt(chi2 / n / k)))


def noisy_dependence_matrix(
    tables: dict[tuple[int, int], np.ndarray],
    schema: Schema,
    parties: int,
    noise_variance: float,
    repair: str = "clip",
) -> np.ndarray:
    """Symmetric dependence matrix from noisy pair tables keyed ``(i, j), i < j``: each table
    repaired (``repair``), then its dependence -- with ``debias``, Cramér's V without the noise's
    share of chi-squared (:func:`debiased_cramers_v`; |Pearson r| for two ordinal attributes)."""

    def measure(t: np.ndarray, ordinal_a: bool, ordinal_b: bool) -> float:
        if repair == "debias" and not (ordinal_a and ordinal_b):
            return debiased_cramers_v(t, noise_variance)
        return dependence(t, ordinal_a, ordinal_b)

    repaired = {k: repair_table(t, parties, repair) for k, t in tables.items()}
    return dependence_matrix_from_tables(repaired, schema, measure)
