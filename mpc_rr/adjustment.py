"""Algorithm 2 of Domingo-Ferrer & Soria-Comas: RR-Adjustment.

Weights on the randomized records ``Y`` are rescaled, group by group (a group
is one attribute, or a cluster of attributes viewed as one attribute), so
that each group's weighted marginal matches its estimated distribution
``pi_hat``; the passes repeat until the weights stop changing (iterative
proportional fitting).  The weighted empirical distribution of ``Y`` is the
estimate of the joint distribution.

Decisions (the paper leaves them open):

* Convergence: stop when the L1 change of the weight vector in a full pass
  is below ``tol`` or after ``max_iter`` passes; both are reported.
* A category with positive target mass but no randomized record cannot be
  matched; its mass is reported as ``unreachable_mass`` and the weights are
  renormalized to sum to 1 after each group (the algorithm as printed would
  let them drift below 1).  A category whose records all reached weight 0
  keeps weight 0 (no 0/0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.errors import UsageError

__all__ = ["AdjustmentResult", "rr_adjustment"]


@dataclass(frozen=True)
class AdjustmentResult:
    weights: np.ndarray  # (n,), sums to 1
    iterations: int
    converged: bool
    max_marginal_gap: float  # max over groups of L1(weighted marginal, target)
    unreachable_mass: float  # max over groups of target mass on categories absent from Y


def rr_adjustment(
    randomized: np.ndarray,
    sizes: Sequence[int],
    groups: Sequence[Sequence[int]],
    targets: Sequence[np.ndarray],
    *,
    tol: float = 1e-9,
    max_iter: int = 1000,
    weights: np.ndarray | None = None,
) -> AdjustmentResult:
    """Run Algorithm 2.

    Parameters
    ----------
    randomized:
        ``(n, m)`` codes of the randomized data set Y.
    sizes:
        Category count per attribute.
    groups:
        Attribute index tuples (single attributes or clusters).
    targets:
        Estimated distribution of each group, shaped like the group's joint
        domain (or flat), non-negative, summing to 1.
    """
    y = np.asarray(randomized)
    if y.ndim != 2 or y.shape[1] != len(sizes) or y.shape[0] == 0:
        raise UsageError(f"rr_adjustment: randomized must be (n>0, {len(sizes)}), got {y.shape}")
    if len(groups) != len(targets) or not groups:
        raise UsageError("rr_adjustment: need one target per group and at least one group")
    n = y.shape[0]
    cells: list[np.ndarray] = []
    tgts: list[np.ndarray] = []
    for g, t in zip(groups, targets, strict=True):
        g = tuple(int(i) for i in g)
        dims = tuple(sizes[i] for i in g)
        tt = np.asarray(t, dtype=float).reshape(-1)
        if tt.size != math.prod(dims):
            raise UsageError(
                f"rr_adjustment: target for group {g} has {tt.size} cells, expected {math.prod(dims)}"
            )
        if (tt < -1e-12).any() or abs(tt.sum() - 1) > 1e-6:
            raise UsageError(f"rr_adjustment: target for group {g} is not a distribution")
        cells.append(
            np.ravel_multi_index(tuple(y[:, g].T), dims)
            if len(g) > 1
            else y[:, g[0]].astype(np.int64)
        )
        tgts.append(np.clip(tt, 0, None))
    w = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, float).copy()
    unreachable = 0.0
    for c, t in zip(cells, tgts, strict=True):
        present = np.bincount(c, minlength=t.size) > 0
        unreachable = max(unreachable, float(t[~present].sum()))
    it = 0
    converged = False
    for it in range(1, max_iter + 1):  # noqa: B007 (value used after the loop)
        prev = w.copy()
        for c, t in zip(cells, tgts, strict=True):
            s = np.bincount(c, weights=w, minlength=t.size)
            factor = np.divide(t, s, out=np.zeros_like(t), where=s > 0)
            w *= factor[c]
            total = w.sum()
            if total <= 0:
                raise UsageError("rr_adjustment: all weights vanished (targets disjoint from Y)")
            w /= total
        if np.abs(w - prev).sum() < tol:
            converged = True
            break
    gap = max(
        float(np.abs(np.bincount(c, weights=w, minlength=t.size) - t).sum())
        for c, t in zip(cells, tgts, strict=True)
    )
    return AdjustmentResult(w, it, converged, gap, unreachable)
