"""Consistent higher-order marginals from the noisy views (Imran & Meo, Sec. 4.3).

For a target attribute set ``S`` every estimated table ``T_s`` of the cover
with ``J = s & S`` non-empty constrains the target table ``x`` (a distribution
over ``S``'s cells): the ``J``-marginal of ``x`` must equal the ``J``-marginal
of ``T_s`` -- one row of ``A x = b`` per cell of ``J`` (the paper's "2^j
constraints" for binary attributes).  The paper then solves::

    min sum_v x[v]^2   s.t.   x >= 0,  A x = b                     (Sec. 4.3)

With independent noise in every view these constraints contradict each other
(the marginal of ``a`` from ``T_ab`` differs from the one from ``T_ac``), so
the paper's program is infeasible on real output.  Our repair keeps its
objective and makes it always solvable, in two quadratic programs:

1. ``y* = A x1`` where ``x1`` minimizes ``||A x - b||^2`` over the simplex
   (``x >= 0``, ``sum x = 1``): the closest *consistent, realizable* marginals
   (``y*`` is unique since the objective is strictly convex in ``A x``);
2. the paper's program with ``b`` replaced by ``y*``: ``min ||x||^2`` over the
   simplex subject to ``|A x - y*| <= tol`` (``x1`` is feasible).

When the views are consistent and realizable, ``y* = b`` and step 2 *is* the
paper's program.  ``residual = ||A x1 - b||_2`` measures the inconsistency.

Solvers (never our own): Clarabel (interior point, the default and a
dependency), SciPy's SLSQP (generic; the reference in the tests), or OSQP
(ADMM; optional, ``pip install osqp``), chosen by ``solver``.
``python -m benchmarks.rrba --part qp`` and ``docs/rrba.md`` give the measured
speed and failures of each: Clarabel solved every case and was the fastest
on 4-way tables; OSQP missed the tight equality band in most 4-way cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["SOLVERS", "Marginal", "marginal_constraints", "reconstruct", "solve_simplex_qp"]

SOLVERS: tuple[str, ...] = ("clarabel", "osqp", "scipy")


@dataclass(frozen=True)
class Marginal:
    """A reconstructed marginal over ``attrs`` (shape ``sizes[attrs]``, sums to 1)."""

    attrs: tuple[int, ...]
    table: np.ndarray
    residual: float
    constraints: int
    solver: str


def marginal_constraints(
    target: Sequence[int],
    sizes: Sequence[int],
    subsets: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``A x = b`` that each table overlapping ``target`` imposes (dense arrays)."""
    tgt = tuple(int(a) for a in target)
    if not tgt or len(set(tgt)) != len(tgt):
        raise UsageError(f"reconstruct: target must list distinct attributes, got {target}")
    shape = tuple(int(sizes[a]) for a in tgt)
    coords = np.indices(shape).reshape(len(tgt), -1)  # (|S|, cells of S)
    rows_a, rows_b = [], []
    for sub, tab in zip(subsets, tables, strict=True):
        common = [a for a in tgt if a in sub]
        if not common:
            continue
        t = np.asarray(tab, dtype=float).reshape(tuple(int(sizes[a]) for a in sub))
        drop = tuple(i for i, a in enumerate(sub) if a not in common)
        kept = [a for a in sub if a in common]
        marg = np.transpose(t.sum(axis=drop), [kept.index(a) for a in common])
        jshape = tuple(int(sizes[a]) for a in common)
        jcell = np.ravel_multi_index(tuple(coords[tgt.index(a)] for a in common), jshape)
        block = np.zeros((marg.size, coords.shape[1]))
        block[jcell, np.arange(coords.shape[1])] = 1.0
        rows_a.append(block)
        rows_b.append(marg.reshape(-1))
    if not rows_a:
        raise UsageError(f"reconstruct: no table of the views covers any attribute of {tgt}")
    return np.vstack(rows_a), np.concatenate(rows_b)


def solve_simplex_qp(
    P: np.ndarray,
    q: np.ndarray,
    A: np.ndarray | None = None,
    lo: np.ndarray | None = None,
    hi: np.ndarray | None = None,
    solver: str = "clarabel",
) -> np.ndarray:
    """``min x'Px/2 + q'x`` over the simplex (``x >= 0``, ``sum x = 1``) and ``lo <= A x <= hi``."""
    if solver not in SOLVERS:
        raise UsageError(f"solver must be one of {SOLVERS}, got {solver!r}")
    n = q.size
    if A is None or lo is None or hi is None:
        A, lo, hi = np.zeros((0, n)), np.zeros(0), np.zeros(0)
    if solver == "clarabel":
        return _clarabel(P, q, A, lo, hi)
    if solver == "osqp":
        return _osqp(P, q, A, lo, hi)
    return _slsqp(P, q, A, lo, hi)


def _clarabel(
    P: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    import clarabel
    from scipy import sparse

    n = q.size
    G = sparse.csc_matrix(np.vstack([np.ones((1, n)), -np.eye(n), A, -A]))
    rhs = np.concatenate([np.ones(1), np.zeros(n), hi, -lo])
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(G.shape[0] - 1)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    P_ = sparse.triu(sparse.csc_matrix(P), format="csc")
    sol = clarabel.DefaultSolver(P_, q, G, rhs, cones, settings).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        raise UsageError(f"reconstruct: Clarabel did not solve the QP (status {sol.status})")
    return np.asarray(sol.x)


def _osqp(
    P: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    try:
        import osqp
    except ImportError:
        raise UsageError("solver 'osqp' needs the osqp package (pip install osqp)") from None
    from scipy import sparse

    n = q.size
    G = sparse.csc_matrix(np.vstack([np.ones((1, n)), np.eye(n), A]))
    lower = np.concatenate([np.ones(1), np.zeros(n), lo])
    upper = np.concatenate([np.ones(1), np.full(n, np.inf), hi])
    prob = osqp.OSQP()
    prob.setup(
        sparse.triu(sparse.csc_matrix(P), format="csc"), q, G, lower, upper,
        verbose=False, eps_abs=1e-9, eps_rel=1e-9, max_iter=200_000, polishing=True,
    )  # fmt: skip
    res = prob.solve()
    if res.info.status not in ("solved", "solved inaccurate"):
        raise UsageError(f"reconstruct: OSQP did not solve the QP (status {res.info.status})")
    return np.asarray(res.x)


def _slsqp(
    P: np.ndarray, q: np.ndarray, A: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    from scipy.optimize import minimize

    n = q.size
    cons: list[dict[str, object]] = [
        {"type": "eq", "fun": lambda x: x.sum() - 1.0, "jac": lambda x: np.ones((1, n))}
    ]
    if A.shape[0]:
        cons.append({"type": "ineq", "fun": lambda x: np.concatenate([hi - A @ x, A @ x - lo]),
                     "jac": lambda x: np.vstack([-A, A])})  # fmt: skip
    res = minimize(
        lambda x: 0.5 * x @ P @ x + q @ x, np.full(n, 1.0 / n), jac=lambda x: P @ x + q,
        bounds=[(0.0, None)] * n, constraints=cons, method="SLSQP",
        options={"maxiter": 1000, "ftol": 1e-12},
    )  # fmt: skip
    if not res.success:
        raise UsageError(f"reconstruct: SLSQP did not solve the QP ({res.message})")
    return np.asarray(res.x)


def reconstruct(
    target: Sequence[int],
    sizes: Sequence[int],
    subsets: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
    *,
    solver: str = "clarabel",
    tol: float = 1e-7,
) -> Marginal:
    """The consistent marginal over ``target`` (see the module docstring)."""
    A, b = marginal_constraints(target, sizes, subsets, tables)
    x1 = solve_simplex_qp(A.T @ A, -(A.T @ b), solver=solver)
    x1 = np.clip(x1, 0.0, None)
    x1 /= x1.sum()
    y = A @ x1
    n = A.shape[1]
    x = solve_simplex_qp(np.eye(n), np.zeros(n), A, y - tol, y + tol, solver=solver)
    x = np.clip(x, 0.0, None)
    x /= x.sum()
    shape = tuple(int(sizes[a]) for a in target)
    return Marginal(
        attrs=tuple(int(a) for a in target),
        table=x.reshape(shape),
        residual=float(np.linalg.norm(y - b)),
        constraints=int(A.shape[0]),
        solver=solver,
    )
