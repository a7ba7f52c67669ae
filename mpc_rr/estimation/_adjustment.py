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
  matched, nor can one whose every record is forced to weight 0 by a zero
  target of another group; that mass is reported as ``unreachable_mass`` and
  the weights are renormalized to sum to 1 after each group (the algorithm as
  printed would let them drift below 1).  A category whose records all
  reached weight 0 keeps weight 0 (no 0/0).
* Acceleration (``method="anderson"``, the default).  A pass of IPF is a
  fixed-point map.  Every IPF iterate has the form
  ``w_i ∝ w0_i * exp(sum_g u_g[cell_g(i)])``: the log-factors ``u`` (one per
  cell of every group, a few hundred numbers) are the coordinates, and a
  pass is exact coordinate ascent on the concave dual
  ``L(u) = sum_g <t_g, u_g> - log sum_i w0_i exp(U_i)`` (``t_g`` renormalized
  over the reachable cells).  Anderson acceleration (Walker & Ni 2011,
  type II, memory 5) extrapolates in ``u`` from the first slow pass on (one
  that shrinks the weight change by less than 5x: fast cases cost what plain
  IPF costs); a step is kept only if it does
  not lower ``L`` below the plain pass it replaces, otherwise the plain pass
  is taken and the memory cleared.  When the targets conflict (estimates
  are noisy: one group may ask a record for more mass than another group's
  cell holds), ``L`` is unbounded and a few log-factors drift by the same
  amount every pass while the weights converge; those coordinates take the
  plain step and the others are extrapolated.  Extrapolating ``u`` (not ``w``) keeps
  every iterate in the multiplicative family of plain IPF, and ``L`` never
  decreases; a fixed point of the pass maximizes ``L``, and the maximizer in
  weight space is unique (the I-projection of ``w0`` onto the weights whose
  group marginals match the targets, Csiszar 1975), so both methods have the
  same fixed point (tested to 1e-9 on weights, and on closed forms).
  Extrapolating ``w`` itself (SQUAREM or Anderson on the weights) would not
  do: every ``w`` that matches the targets is a fixed point of a pass, and a
  linear combination of iterates leaves the family, so it converges to
  another one.  ``iterations`` counts passes (fixed-point map evaluations)
  for both methods, so ``max_iter`` is the same budget.  ``method="plain"``
  is the algorithm as printed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from mpc_rr.core import UsageError

__all__ = ["ADJUSTMENT_METHODS", "AdjustmentResult", "rr_adjustment"]

ADJUSTMENT_METHODS = ("anderson", "plain")
_MEMORY = 5  # Anderson memory (columns of the least-squares problem)
_SLOW = 0.2  # start extrapolating at the first pass that shrinks the weight change < 5x

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class AdjustmentResult:
    weights: np.ndarray  # (n,), sums to 1
    iterations: int  # passes of IPF (fixed-point map evaluations), at most max_iter
    converged: bool  # a pass changed the weights by less than tol (L1)
    max_marginal_gap: float  # max over groups of L1(weighted marginal, target)
    unreachable_mass: float  # max over groups of target mass no positive-weight record can carry
    method: str = "plain"  # "plain" or "anderson"


def rr_adjustment(
    randomized: np.ndarray,
    sizes: Sequence[int],
    groups: Sequence[Sequence[int]],
    targets: Sequence[np.ndarray],
    *,
    tol: float = 1e-9,
    max_iter: int = 1000,
    weights: np.ndarray | None = None,
    method: str = "anderson",
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
    tol:
        Stop when a pass changes the weights by less than ``tol`` in L1.
    max_iter:
        Cap on the number of passes.
    weights:
        Starting weights (default uniform); the result is the I-projection of
        these onto the targets' constraint set.
    method:
        ``"anderson"`` (accelerated, default) or ``"plain"`` (the passes as
        printed in the paper); both have the same fixed point.
    """
    if method not in ADJUSTMENT_METHODS:
        raise UsageError(f"rr_adjustment: method must be one of {ADJUSTMENT_METHODS}, got {method!r}")
    if not tol >= 0:
        raise UsageError(f"rr_adjustment: tol must be >= 0, got {tol}")
    if max_iter < 1:
        raise UsageError(f"rr_adjustment: max_iter must be >= 1, got {max_iter}")
    y = np.asarray(randomized)
    if y.ndim != 2 or y.shape[1] != len(sizes) or y.shape[0] == 0:
        raise UsageError(f"rr_adjustment: randomized must be (n>0, {len(sizes)}), got {y.shape}")
    if len(groups) != len(targets) or not groups:
        raise UsageError("rr_adjustment: need one target per group and at least one group")
    n = y.shape[0]
    cells: list[IntArray] = []
    tgts: list[FloatArray] = []
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
            np.ravel_multi_index(tuple(y[:, g].T), dims).astype(np.int64)
            if len(g) > 1
            else y[:, g[0]].astype(np.int64)
        )
        tgts.append(np.clip(tt, 0, None))
    if weights is None:
        w0: FloatArray = np.full(n, 1.0 / n)
    else:
        w0 = np.asarray(weights, dtype=float).copy()
        if w0.shape != (n,) or not np.isfinite(w0).all() or (w0 < 0).any() or w0.sum() <= 0:
            raise UsageError(
                f"rr_adjustment: weights must be ({n},), finite, non-negative, not all 0"
            )
    alive = w0 > 0
    for c, t in zip(cells, tgts, strict=True):
        alive &= t[c] > 0
    unreachable = 0.0
    for c, t in zip(cells, tgts, strict=True):
        reached = np.bincount(c[alive], minlength=t.size) > 0
        unreachable = max(unreachable, float(t[~reached].sum()))
    if method == "plain":
        w, it, converged = _plain(w0, cells, tgts, tol, max_iter)
    else:
        if not alive.any():
            raise UsageError("rr_adjustment: all weights vanished (targets disjoint from Y)")
        if alive.all():  # the common case: no record zeroed, nothing to copy
            w, it, converged = _Anderson(w0, cells, tgts).run(tol, max_iter)
        else:
            w = np.zeros(n)
            w[alive], it, converged = _Anderson(w0[alive], [c[alive] for c in cells], tgts).run(
                tol, max_iter
            )
    gap = max(
        float(np.abs(np.bincount(c, weights=w, minlength=t.size) - t).sum())
        for c, t in zip(cells, tgts, strict=True)
    )
    return AdjustmentResult(w, it, converged, gap, unreachable, method)


def _plain(
    w0: FloatArray, cells: list[IntArray], tgts: list[FloatArray], tol: float, max_iter: int
) -> tuple[FloatArray, int, bool]:
    """Algorithm 2 as printed: ``Adjust_weights`` group after group, pass after pass."""
    w = w0.copy()
    it = 0
    for it in range(1, max_iter + 1):
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
            return w, it, True
    return w, it, False


class _Anderson:
    """Anderson-accelerated IPF in log-factor coordinates (see the module docstring).

    Works on the *alive* records only (positive start weight, no zero-target
    cell in any group), with each target renormalized over the cells those
    records reach: plain IPF renormalizes to exactly these targets after
    every group, so the fixed point is the same.
    """

    def __init__(self, w0: FloatArray, cells: list[IntArray], tgts: list[FloatArray]) -> None:
        self.w0 = w0 / w0.sum()
        self.cells = cells
        self.offsets = np.cumsum([0] + [t.size for t in tgts])
        self.tgts: list[FloatArray] = []
        self.logt: list[FloatArray] = []
        for c, t in zip(cells, tgts, strict=True):
            reach = np.bincount(c, minlength=t.size) > 0
            tt = np.where(reach, t, 0.0)
            tt = tt / tt.sum()
            self.tgts.append(tt)
            self.logt.append(np.log(np.where(reach, tt, 1.0)))
        self.tflat = np.concatenate(self.tgts)

    def point(self, u: FloatArray) -> tuple[FloatArray, float]:
        """Normalized weights at ``u`` and ``log Z(u)``."""
        big = np.zeros(self.w0.size)
        for g, c in enumerate(self.cells):
            big += u[self.offsets[g] : self.offsets[g + 1]][c]
        top = float(big.max())
        w = self.w0 * np.exp(big - top)
        z = float(w.sum())
        return w / z, top + math.log(z)

    def passes(
        self, u: FloatArray, w: FloatArray, logz: float
    ) -> tuple[FloatArray, FloatArray, float]:
        """One IPF pass from ``u`` (weights ``w``, normaliser ``logz``): the fixed-point map."""
        u = u.copy()
        w = w.copy()
        for g, (c, t, lt) in enumerate(zip(self.cells, self.tgts, self.logt, strict=True)):
            s = np.bincount(c, weights=w, minlength=t.size)
            ok = (s > 0) & (t > 0)
            d = np.zeros(t.size)
            d[ok] = lt[ok] - np.log(s[ok])
            u[self.offsets[g] : self.offsets[g + 1]] += d
            w *= np.exp(d)[c]
            total = float(w.sum())
            w /= total
            logz += math.log(total)
        return u, w, logz

    def run(self, tol: float, max_iter: int) -> tuple[FloatArray, int, bool]:
        u = np.zeros(self.tflat.size)
        w, logz = self.point(u)
        d_g: list[FloatArray] = []  # differences of successive map values
        d_f: list[FloatArray] = []  # differences of successive residuals
        last: tuple[FloatArray, FloatArray] | None = None
        prev_f: FloatArray | None = None
        prev_res: float | None = None
        active = False  # Anderson steps start at the first slow pass
        for it in range(1, max_iter + 1):
            g, wg, logz_g = self.passes(u, w, logz)
            res = float(np.abs(wg - w).sum())
            if res < tol:
                return wg, it, True
            if it == max_iter:
                return wg, it, False
            f = g - u
            # Drift: when the targets conflict (a group asks more of a record than another
            # group's cell allows), some log-factors move by the same amount every pass
            # while the weights still converge (records decaying to 0).  Those
            # coordinates take the plain step; Anderson extrapolates the others.
            drift = (
                np.zeros(f.size, dtype=bool)
                if prev_f is None
                else (np.abs(f - prev_f) < 1e-3 * np.abs(f)) & (np.abs(f) > 1e-3)
            )
            prev_f = f
            fm = np.where(drift, 0.0, f)
            if last is not None:
                d_g.append(g - last[0])
                d_f.append(fm - last[1])
                if len(d_g) > _MEMORY:
                    del d_g[0], d_f[0]
            last = (g, fm)
            active = active or (prev_res is not None and res > _SLOW * prev_res)
            prev_res = res
            if d_f and active:
                dfm = np.stack(d_f, axis=1)
                dfm[drift] = 0.0
                gamma = np.linalg.lstsq(dfm, fm, rcond=None)[0]
                step = np.stack(d_g, axis=1) @ gamma
                step[drift] = 0.0
                cand = g - step
                if np.isfinite(cand).all():
                    wc, logz_c = self.point(cand)
                    slack = 1e-12 * (1.0 + abs(logz_g))
                    if self.tflat @ cand - logz_c >= self.tflat @ g - logz_g - slack:
                        u, w, logz = cand, wc, logz_c
                        continue
                d_g.clear()
                d_f.clear()
                last = None
            u, w, logz = g, wg, logz_g
        raise AssertionError("unreachable")  # pragma: no cover (the loop returns)
