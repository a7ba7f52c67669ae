"""Interval estimates and parameter checks shared by every attack.

Clopper-Pearson ("exact") intervals come from beta quantiles
(``scipy.stats.beta``), as in Jagielski et al. 2020 and LDP-Auditor
(Arcolezi & Gambs, PETS 2024): the lower bound of ``k`` successes in ``n``
trials at one-sided level ``a`` is ``Beta(a; k, n - k + 1)``, the upper bound
``Beta(1 - a; k + 1, n - k)``; ``0`` and ``1`` at the edges.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from mpc_rr.core import UsageError

__all__ = [
    "check_confidence",
    "check_count",
    "cp_lower",
    "cp_two_sided",
    "cp_upper",
    "mean_ci",
]


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """``0 < confidence < 1`` or a :class:`UsageError` naming the value."""
    try:
        c = float(confidence)
    except (TypeError, ValueError):
        raise UsageError(f"{name} must be a number in (0, 1), got {confidence!r}") from None
    if not 0.0 < c < 1.0:  # also rejects nan
        raise UsageError(f"{name} must satisfy 0 < {name} < 1, got {confidence!r}")
    return c


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    """An integer ``>= minimum`` or a :class:`UsageError` naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise UsageError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def cp_lower(k: int, n: int, level: float) -> float:
    """One-sided Clopper-Pearson lower bound: ``P(true p < bound) <= level``."""
    if n <= 0 or k <= 0:
        return 0.0
    return float(stats.beta.ppf(level, k, n - k + 1))


def cp_upper(k: int, n: int, level: float) -> float:
    """One-sided Clopper-Pearson upper bound: ``P(true p > bound) <= level``."""
    if n <= 0 or k >= n:
        return 1.0
    return float(stats.beta.isf(level, k + 1, n - k))


def cp_two_sided(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval at ``confidence`` (``(1 - c)/2`` in each tail)."""
    a = (1.0 - confidence) / 2.0
    return cp_lower(k, n, a), cp_upper(k, n, a)


def mean_ci(values: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean and normal-approximation interval ``mean ± z sd / sqrt(n)``, clipped to [0, 1].

    For per-party proportions (parties are the independent units); exact when
    every value is equal (zero width).
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise UsageError("mean_ci: no values")
    mean = float(v.mean())
    if v.size == 1:
        return mean, 0.0, 1.0
    z = float(stats.norm.isf((1.0 - confidence) / 2.0))
    half = z * float(v.std(ddof=1)) / math.sqrt(v.size)
    return mean, max(0.0, mean - half), min(1.0, mean + half)
