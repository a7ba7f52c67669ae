"""Count queries and error measures (Domingo-Ferrer & Soria-Comas, Section 6.5).

A query ``S`` is built as in the paper: two random attributes, and a random
share ``sigma`` of the combinations of their values (at least one).  Its
answer on a model is ``n * sum_{(a, b) in S} Pr(a, b)``; on the true data,
the number of records in ``S``.  Errors: absolute ``|Y_S - X_S|`` and
relative ``|Y_S - X_S| / X_S`` (Eq. 16).

Decision: queries whose true count is 0 have no finite relative error; the
generator redraws them (``min_true_count``), and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from mpc_rr.core import UsageError

__all__ = [
    "CountQuery",
    "absolute_error",
    "answer",
    "jensen_shannon",
    "l2_distance",
    "make_queries",
    "relative_error",
    "true_count",
]


class HasMarginal(Protocol):
    def marginal(self, attrs: Sequence[int]) -> np.ndarray: ...


@dataclass(frozen=True)
class CountQuery:
    attrs: tuple[int, int]
    mask: np.ndarray  # bool, shape (|A_a|, |A_b|)


def true_count(codes: np.ndarray, q: CountQuery) -> int:
    a, b = q.attrs
    return int(q.mask[codes[:, a], codes[:, b]].sum())


def answer(model: HasMarginal, q: CountQuery, n: int) -> float:
    """Estimated count of ``q`` from a model with marginals (FactorModel, WeightedRecords)."""
    return float(n * model.marginal(q.attrs)[q.mask].sum())


def make_queries(
    codes: np.ndarray,
    sizes: Sequence[int],
    count: int,
    sigma: float,
    rng: np.random.Generator,
    *,
    min_true_count: int = 1,
    max_tries: int = 1000,
) -> list[CountQuery]:
    """``count`` random queries of coverage ``sigma`` (Section 6.5)."""
    if not 0 < sigma <= 1:
        raise UsageError(f"sigma must be in (0, 1], got {sigma!r}")
    if len(sizes) < 2:
        raise UsageError("queries need at least two attributes")
    out: list[CountQuery] = []
    tries = 0
    while len(out) < count:
        tries += 1
        if tries > max_tries * max(count, 1):
            raise UsageError(f"could not draw queries with true count >= {min_true_count}")
        a, b = sorted(rng.choice(len(sizes), size=2, replace=False).tolist())
        cells = sizes[a] * sizes[b]
        k = max(1, round(sigma * cells))
        mask = np.zeros(cells, dtype=bool)
        mask[rng.choice(cells, size=k, replace=False)] = True
        q = CountQuery((a, b), mask.reshape(sizes[a], sizes[b]))
        if true_count(codes, q) >= min_true_count:
            out.append(q)
    return out


def absolute_error(estimate: float, truth: float) -> float:
    return abs(estimate - truth)


def relative_error(estimate: float, truth: float) -> float:
    """Eq. 16; ``truth`` must be non-zero."""
    if truth == 0:
        raise UsageError("relative_error: true count is 0")
    return abs((estimate - truth) / truth)


def _dists(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=float).reshape(-1)
    q = np.asarray(q, dtype=float).reshape(-1)
    if p.shape != q.shape:
        raise UsageError(f"distributions differ in size: {p.size} vs {q.size}")
    if (p < 0).any() or (q < 0).any() or p.sum() <= 0 or q.sum() <= 0:
        raise UsageError("distributions must be non-negative with positive mass")
    return p / p.sum(), q / q.sum()


def jensen_shannon(p: np.ndarray, q: np.ndarray) -> float:
    """Jensen-Shannon divergence in bits (in [0, 1])."""
    p, q = _dists(p, q)
    m = 0.5 * (p + q)

    def kl(x: np.ndarray) -> float:
        nz = x > 0
        return float((x[nz] * np.log2(x[nz] / m[nz])).sum())

    return 0.5 * kl(p) + 0.5 * kl(q)


def l2_distance(p: np.ndarray, q: np.ndarray) -> float:
    """Euclidean distance between two distributions (normalized first)."""
    p, q = _dists(p, q)
    return float(np.linalg.norm(p - q))
