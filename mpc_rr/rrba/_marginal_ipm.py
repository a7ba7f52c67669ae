"""The consistency QPs of :mod:`._consistency`, solved through their structure.

Both programs of the module docstring there fit a table ``x`` of ``n``
cells (the target marginal) to ``m`` marginal cells, with ``m`` small:
every distinct marginal ``J`` the views constrain is one block of 0/1 rows
``M_J`` (row ``j`` sums the cells of ``x`` in ``J``-cell ``j``); Adult's
largest 4-way table has ``n = 15,120`` cells and ``m = 846`` distinct
marginal cells.  A primal-dual interior-point method (Mehrotra's
predictor-corrector; Nocedal & Wright, *Numerical Optimization*, 2nd ed.,
Sec. 16.6 and Alg. 14.3) on

    min ½ h ||x||² + ½ ||r||²   s.t.   K x - E r = c,   x ≥ 0

then needs one ``m x m`` system per step, ``(K D K' + E E') dy = rhs`` with
``D`` diagonal: its blocks are marginals of ``D`` over ``J ∪ J'`` (a sum
over the table's other axes), factored dense by LAPACK's Cholesky.  That is
``O(n |J|² + m³)`` per step, where a general sparse solver factors the
``(n + m)``-sized KKT matrix (Clarabel took 12.7-60 s on Adult's 4-way
tables; ``docs/rrba.md``).

* Stage 1 (``h`` = :data:`RIDGE1`, tiny): ``K = [W M; 1']``, ``c = [W b̄; 1]`` over the
  *distinct* marginals, ``b̄_J`` the mean of the views' copies of ``J`` and
  ``W² `` their count: ``||A x - b||²`` and ``Σ_J w_J ||M_J x - b̄_J||²``
  differ by a constant, so the minimizers are the same.  The total row is
  a sum of any block's rows; it is eliminated by hand
  (:func:`_with_total_row`), since in ``K D K'`` it cancels as ``D`` grows.
* Stage 2 (``h = 1``): ``M x = y*`` over linearly independent rows (pivoted
  Cholesky of ``M M'``), on the cells that *some* stage-1 optimum may use.
  ``y*`` usually lies on a face of the marginal polytope (noisy views are
  projected onto it), so every ``x`` with ``M x = y*`` is zero on the cells
  whose stage-1 multiplier ``z_v`` is positive (``z`` is unique: it is the
  gradient at the unique ``y*``, shifted); stage 2 runs on the other cells,
  where it has an interior point and converges in tens of steps.  The
  result meets ``|A x - y*| <= tol`` of the docstring with equality up to
  rounding.

Each stage stops on a certificate of its rounded answer (:data:`TOL`), and
ends with an error (``reconstruct(solver="auto")`` then falls back to
Clarabel) when rounding stalls it above :data:`ACCEPT`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations_with_replacement

import numpy as np
from scipy import sparse
from scipy.linalg import cho_factor, cho_solve, lapack

from mpc_rr.core import UsageError

__all__ = ["FitReport", "MarginalBlocks", "distinct_marginals", "fit_consistent"]

TOL = 1e-11
"""Optimality bound at which a stage stops (stage 1: the Frank-Wolfe gap, an upper bound on
``f(x1) - f*``; stage 2: the largest KKT residual), or its relative residuals and gap."""

ACCEPT = 1e-8
"""The bound a stage still ends at when rounding stops its progress first (its normal
equations no longer factor as ``D`` spans ~16 orders of magnitude): Clarabel's default gap."""

MAX_STEPS = 80

STALL = 8
"""Steps without a better certificate after which a stage stops (rounding has taken over)."""

RIDGE1 = 1e-8
"""``h`` of stage 1: ``f + 1e-8 ||x||² / 2`` bounds ``D <= 1e8``, so its normal equations keep
factoring to the end (with ``h = 0``, ``D = x / z`` spans ~24 orders of magnitude and rounding
stalled some 4-way tables near a 1e-6 gap).  It moves ``f`` at the answer by at most
``1e-8 ||x*||² / 2``; the Frank-Wolfe gap that stops stage 1 is of ``f`` itself."""

Solve = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class MarginalBlocks:
    """The distinct marginals ``J`` of a target table, as row blocks of ``M`` (sparse, 0/1).

    ``axes[k]`` are the target axes of block ``k`` (in target order), ``offsets[k]`` its first
    row; ``M`` has one row per ``J``-cell and ``n * len(axes)`` non-zeros.
    """

    shape: tuple[int, ...]
    axes: tuple[tuple[int, ...], ...]
    offsets: tuple[int, ...]
    M: sparse.csr_array

    @classmethod
    def of(cls, shape: Sequence[int], axes: Sequence[tuple[int, ...]]) -> MarginalBlocks:
        """Blocks for ``axes`` (distinct tuples of target axes) over a table of ``shape``."""
        shape = tuple(int(s) for s in shape)
        coords = np.indices(shape).reshape(len(shape), -1)
        n = coords.shape[1]
        rows, offsets, off = [], [], 0
        for ax in axes:
            offsets.append(off)
            rows.append(
                off + np.ravel_multi_index(tuple(coords[a] for a in ax), [shape[a] for a in ax])
            )
            off += math.prod(shape[a] for a in ax)
        r = np.concatenate(rows)
        M = sparse.csr_array(
            (np.ones(r.size), (r, np.tile(np.arange(n), len(axes)))), shape=(off, n)
        )
        return cls(shape, tuple(axes), tuple(offsets), M)

    @property
    def m(self) -> int:
        """Rows of ``M``: the marginal cells."""
        return int(self.M.shape[0])

    @cached_property
    def _pairs(self) -> list[tuple[tuple[int, ...], np.ndarray, np.ndarray]]:
        """Per block pair ``(J, J')``: the axes summed out, and the rows of ``M`` that each cell
        of the ``J ∪ J'`` marginal lands on in ``J`` and in ``J'``."""
        out = []
        for p, q in combinations_with_replacement(range(len(self.axes)), 2):
            u = tuple(sorted(set(self.axes[p]) | set(self.axes[q])))
            coords = np.indices([self.shape[a] for a in u]).reshape(len(u), -1)
            cell = [
                self.offsets[k]
                + np.ravel_multi_index(
                    tuple(coords[u.index(a)] for a in self.axes[k]),
                    [self.shape[a] for a in self.axes[k]],
                )
                for k in (p, q)
            ]
            out.append((tuple(a for a in range(len(self.shape)) if a not in u), cell[0], cell[1]))
        return out

    def gram(self, d: np.ndarray) -> np.ndarray:
        """``M diag(d) M'`` (dense ``m x m``): block ``(J, J')`` is the marginal of ``d`` over
        ``J ∪ J'``, scattered to its ``(J-cell, J'-cell)`` pairs."""
        t = d.reshape(self.shape)
        S = np.zeros((self.m, self.m))
        for summed, rows, cols in self._pairs:
            marg = t.sum(axis=summed).reshape(-1)
            S[rows, cols] = marg
            S[cols, rows] = marg
        return S


@dataclass(frozen=True)
class FitReport:
    """How the two stages ended: interior-point steps, the cells and independent rows stage 2 ran
    on, ``max |M x - y*|`` and stage 2's KKT residual ``max |x - max(0, M' lam)|`` on its cells."""

    steps: tuple[int, int]
    face_cells: int
    rows: int
    primal: float
    dual: float


def _steplength(v: np.ndarray, dv: np.ndarray) -> float:
    neg = dv < 0
    return float(min(1.0, (-v[neg] / dv[neg]).min())) if neg.any() else 1.0


def _interior_point(
    K: sparse.csr_array,
    c: np.ndarray,
    h: float,
    free: int,
    normal: Callable[[np.ndarray], Solve],
    certify: Callable[[np.ndarray, np.ndarray, np.ndarray], float],
    tol: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``min ½ h||x||² + ½||r||²`` s.t. ``K x - [r; 0] = c``, ``x >= 0`` (``r``: the first
    ``free`` rows) -> ``(x, y, z, steps)``; ``normal(d)`` solves ``(K D K' + E E') dy = rhs``.

    Stops when ``certify(x, y, z)`` (an optimality bound of the rounded answer, in the
    stage's own terms) or the relative residuals reach ``tol``; when rounding stops the
    progress first, the best certified iterate is kept if it meets :data:`ACCEPT`.
    """
    m, n = K.shape
    KT = sparse.csr_array(K.T)
    # Mehrotra's starting point: least-squares primal and dual, shifted into the interior
    start = normal(np.ones(n))
    x = np.full(n, 1.0 / n) if free else KT @ start(c)
    r = (K @ x - c)[:free]
    y = start(K @ (h * x) - np.pad(r, (0, m - free)))
    z = h * x - KT @ y
    x, z = x + max(-1.5 * x.min(), 0.0), z + max(-1.5 * z.min(), 0.0)
    xz = max(float(x @ z), 1e-300)
    x, z = x + 0.5 * xz / z.sum(), z + 0.5 * xz / x.sum()
    r = (K @ x - c)[:free]
    scale_p = 1.0 + float(np.abs(c).max())
    best: tuple[float, tuple[np.ndarray, np.ndarray, np.ndarray, int]] = (math.inf, (x, y, z, 0))
    errors: tuple[float, ...] = ()
    for step in range(MAX_STEPS):
        rp = K @ x - np.pad(r, (0, m - free)) - c
        rd = h * x - KT @ y - z
        rr = r + y[:free]
        gap = float(x @ z)
        obj = 0.5 * h * float(x @ x) + 0.5 * float(r @ r)
        dres = max(float(np.abs(rd).max()), float(np.abs(rr).max()) if free else 0.0)
        errors = (float(np.abs(rp).max()) / scale_p, dres, gap / max(obj, 1.0 / n))
        cert = certify(x, y, z)
        if cert < best[0]:
            best = (cert, (x, y, z, step))
        if cert <= tol or (max(errors) <= tol and cert <= ACCEPT) or step - best[1][3] >= STALL:
            break
        d = 1.0 / (h + z / x)
        try:
            solve = normal(d)
        except np.linalg.LinAlgError:
            break
        rrp = np.pad(rr, (0, m - free))
        mu, rc = gap / n, x * z  # the affine (predictor) step first, then the corrector
        for corrector in (False, True):
            g = -rd - rc / x
            dy = solve(-rp - K @ (d * g) - rrp)
            dx = d * (g + KT @ dy)
            dz = (-rc - z * dx) / x
            a = min(_steplength(x, dx), _steplength(z, dz))
            if not corrector:
                sigma = (float((x + a * dx) @ (z + a * dz)) / n / mu) ** 3
                rc = x * z + dx * dz - sigma * mu
        dr = -rr - dy[:free]
        a = min(1.0, 0.99 * a)
        x, z, y, r = x + a * dx, z + a * dz, y + a * dy, r + a * dr
    if best[0] <= ACCEPT:
        return best[1]
    raise UsageError(
        f"reconstruct: the interior point stopped after {step + 1} steps with an optimality bound "
        f"of {best[0]:.2g} (relative primal {errors[0]:.2g}, dual {errors[1]:.2g}, gap "
        f"{errors[2]:.2g}); try solver='clarabel'"
    )


def _cholesky(S: np.ndarray, ridge: float = 1e-13) -> Solve:
    """Solves with ``S`` (SPD up to rounding): Cholesky of ``S`` plus ``ridge`` times its largest
    diagonal entry, refined twice against ``S`` itself."""
    R = S.copy()
    R[np.diag_indices_from(R)] += ridge * max(float(S.diagonal().max()), 1e-300)
    f = cho_factor(R, lower=True, check_finite=False)

    def solve(rhs: np.ndarray) -> np.ndarray:
        v = cho_solve(f, rhs, check_finite=False)
        for _ in range(2):
            v += cho_solve(f, rhs - S @ v, check_finite=False)
        return np.asarray(v)

    return solve


def _with_total_row(S11: np.ndarray, u: np.ndarray) -> Solve:
    """Solves ``[[S11, S11 u - u], [(S11 u - u)', u'(S11 - I)u]]``, the stage-1 system whose last
    row is the total ``1'x`` (``= (W M)' u`` for ``u`` one block's rows over its weight).

    Block elimination with ``S11 >= I``: the Schur complement is ``u'u - u'S11^-1 u``, formed
    without the cancellation of ``1'D1 - 1'D M'W S11^-1 W M D 1``.
    """
    inner = _cholesky(S11, ridge=0.0)
    su = inner(u)
    schur = float(u @ u - u @ su)

    def solve(rhs: np.ndarray) -> np.ndarray:
        f, g = rhs[:-1], rhs[-1]
        sf = inner(f)
        beta = (g - (u @ f - u @ sf)) / schur
        return np.concatenate([sf - (u - su) * beta, [beta]])

    return solve


def _independent_rows(S: np.ndarray) -> np.ndarray:
    """Rows of a PSD Gram matrix that are linearly independent (pivoted Cholesky, LAPACK)."""
    _, piv, rank, _ = lapack.dpstrf(S, lower=1, tol=1e-9 * max(float(S.diagonal().max()), 1.0))
    return np.sort(piv[:rank] - 1)


def fit_consistent(
    blocks: MarginalBlocks, bbar: np.ndarray, weight: np.ndarray, tol: float = TOL
) -> tuple[np.ndarray, np.ndarray, FitReport]:
    """``(x1, x, report)``: stage 1 (``min Σ w ||M x - b̄||²`` over the simplex) and stage 2
    (the least-norm ``x`` with ``M x = M x1``) of :mod:`._consistency`, as flat tables.

    The BLAS runs one thread meanwhile (``threadpoolctl``): its factorizations of a few
    hundred to ~1,000 rows gain little from a second thread, and where the cores are busy
    (a shared machine, worker processes) OpenBLAS's waiting threads made whole runs of
    ``mpc-rr rrba``'s default marginals 1.4-6x slower (``docs/rrba.md``)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _fit(blocks, bbar, weight, tol)


def _fit(
    blocks: MarginalBlocks, bbar: np.ndarray, weight: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray, FitReport]:
    M, n, mu = blocks.M, math.prod(blocks.shape), blocks.m
    if bbar.shape != (mu,) or weight.shape != (mu,) or (weight <= 0).any():
        raise UsageError(f"fit_consistent: need {mu} marginal cells and positive weights")
    sw = np.sqrt(weight)
    K1 = sparse.csr_array(
        sparse.vstack([sparse.diags_array(sw) @ M, np.ones((1, n))], format="csr")
    )
    first = np.zeros(mu)
    first[: math.prod(blocks.shape[a] for a in blocks.axes[0])] = 1.0
    u = first / sw

    def normal1(d: np.ndarray) -> Solve:
        S11 = sw[:, None] * blocks.gram(d) * sw[None, :]
        S11[np.diag_indices(mu)] += 1.0
        return _with_total_row(S11, u)

    def on_face(x: np.ndarray, z: np.ndarray) -> np.ndarray:
        kept: np.ndarray = np.where(x > z, x, 0.0)  # z > 0: every stage-1 optimum leaves it empty
        out: np.ndarray = kept / max(float(kept.sum()), 1e-300)
        return out

    def frank_wolfe_gap(x: np.ndarray, _: np.ndarray, z: np.ndarray) -> float:
        """``g'x - min g`` at the answer (``g`` the gradient): bounds its distance to the optimum."""
        xf = on_face(x, z)
        grad = M.T @ (weight * (M @ xf - bbar))
        return float(grad @ xf - grad.min())

    x1, _, z1, steps1 = _interior_point(
        K1, np.concatenate([sw * bbar, [1.0]]), RIDGE1, mu, normal1, frank_wolfe_gap, tol
    )
    face = x1 > z1
    x1 = on_face(x1, z1)
    y = M @ x1
    rows = _independent_rows(blocks.gram(face.astype(float)))
    cells = np.flatnonzero(face)
    K2 = sparse.csr_array(sparse.csc_array(M[rows])[:, cells])
    K2T = sparse.csr_array(K2.T)

    def normal2(d: np.ndarray) -> Solve:
        full = np.zeros(n)
        full[cells] = d
        return _cholesky(blocks.gram(full)[np.ix_(rows, rows)])

    def kkt(x: np.ndarray, lam: np.ndarray, z: np.ndarray) -> float:
        """The stage-2 KKT residuals at ``max(x, 0)``: ``M x = y``, ``x - M' lam = z >= 0`` and
        complementarity ``x'z`` relative to the objective."""
        xc = np.clip(x, 0.0, None)
        zc = np.clip(z, 0.0, None)
        return float(max(
            np.abs(K2 @ xc - y[rows]).max(), np.abs(xc - K2T @ lam - zc).max(),
            (xc @ zc) / max(0.5 * float(xc @ xc), 1.0 / n),
        ))  # fmt: skip

    xf, lam, _, steps2 = _interior_point(K2, y[rows], 1.0, 0, normal2, kkt, tol)
    x = np.zeros(n)
    x[cells] = np.clip(xf, 0.0, None)
    # stage 2's KKT on its cells: x = max(0, M' lam) (the projection form of x - M' lam - z = 0)
    dual = float(np.abs(x[cells] - np.maximum(K2T @ lam, 0.0)).max())
    report = FitReport(
        (steps1, steps2), cells.size, rows.size, float(np.abs(M @ x - y).max()), dual
    )
    return x1, x / x.sum(), report


def distinct_marginals(
    shape: Sequence[int], commons: Sequence[tuple[int, ...]], b: np.ndarray
) -> tuple[MarginalBlocks, np.ndarray, np.ndarray]:
    """``(blocks, b̄, w)`` from the stacked right-hand side ``b`` of ``marginal_operator``:
    ``commons[k]`` are the target axes of its ``k``-th block; a marginal ``J`` that several
    views constrain becomes one block, ``b̄`` the mean of their copies and ``w`` their count."""
    axes = list(dict.fromkeys(commons))
    sums = {j: np.zeros(math.prod(shape[a] for a in j)) for j in axes}
    count = dict.fromkeys(axes, 0)
    off = 0
    for j in commons:
        k = sums[j].size
        sums[j] += b[off : off + k]
        count[j] += 1
        off += k
    if off != b.size:
        raise UsageError(f"distinct_marginals: the blocks cover {off} cells, b has {b.size}")
    bbar = np.concatenate([sums[j] / count[j] for j in axes])
    weight = np.concatenate([np.full(sums[j].size, float(count[j])) for j in axes])
    return MarginalBlocks.of(shape, axes), bbar, weight
