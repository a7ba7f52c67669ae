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

Solvers, chosen by ``solver`` (``auto``, the default, picks by size): ``ipm``, a primal-dual interior
point on the programs' structure, few marginal rows over many cells, built
on LAPACK (:mod:`mpc_rr.rrba._marginal_ipm`); Clarabel (a general sparse
interior point, a dependency, the reference on large tables in the tests),
SciPy's SLSQP (generic; the reference on small ones), or OSQP (ADMM;
optional, ``pip install osqp``).
``python -m benchmarks.rrba --part qp`` and ``docs/rrba.md`` give the measured
speed and failures of each: of the general solvers Clarabel solved every
case and was the fastest on 4-way tables (but ended "AlmostSolved", its
band missed by 3e-4, on Adult's largest); OSQP missed the tight equality
band in most 4-way cases.  ``python -m benchmarks.rrba_qp`` times ``ipm``
against Clarabel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from mpc_rr.core import UsageError
from mpc_rr.rrba._marginal_ipm import distinct_marginals, fit_consistent

__all__ = [
    "AUTO_CELLS",
    "SOLVERS",
    "Marginal",
    "marginal_constraints",
    "marginal_operator",
    "marginal_rows",
    "reconstruct",
    "solve_simplex_qp",
]

SOLVERS: tuple[str, ...] = ("auto", "ipm", "clarabel", "osqp", "scipy")

AUTO_CELLS = 1000
"""``solver="auto"``: Clarabel up to this many target cells, ``ipm`` above.  Measured on Adult
(``docs/rrba.md``): Clarabel takes ~0.05 s on 3-way tables under 1,000 cells, where ``ipm``'s
~60 interior-point steps of Python take 0.15 s; ``ipm`` wins from ~1,000 cells (4-way tables of
1,120-2,400 cells: 0.2-0.5 vs 0.8-1.2 CPU-s) and by 5x on the largest (15,120 cells)."""


MAX_ROWS = 1000
"""Default cap on :func:`marginal_rows` for the marginals a run evaluates by default
(:func:`mpc_rr.workflows.marginal_errors`): the structured solver factors an ``m x m`` system
per interior-point step, ``O(m^3)``, so its time grows with the cube of the distinct marginal
cells the views constrain, not with the target's cells.  Every 3- and 4-way table of Adult has
``m <= 846``; on wide data (e.g. Census-Income's 35 categorical columns) a 3-way table of
attributes with ~50 categories has ``m ~ 7,500``: one solve of ``m = 1,459`` took 33 s on a
loaded 2-core machine, so that one would take over an hour."""


def marginal_rows(
    target: Sequence[int], sizes: Sequence[int], subsets: Sequence[Sequence[int]]
) -> int:
    """``m``: the distinct marginal cells that the tables over ``subsets`` constrain on ``target``.

    Each distinct non-empty ``J = s & target`` counts ``prod(sizes[J])`` rows once, as in the
    structured solver (:func:`mpc_rr.rrba.distinct_marginals`); nothing is built.
    """
    tgt = {int(a) for a in target}
    commons = {tuple(sorted(int(a) for a in sub if int(a) in tgt)) for sub in subsets}
    commons.discard(())
    return sum(math.prod(int(sizes[a]) for a in j) for j in commons)


@dataclass(frozen=True)
class Marginal:
    """A reconstructed marginal over ``attrs`` (shape ``sizes[attrs]``, sums to 1)."""

    attrs: tuple[int, ...]
    table: np.ndarray
    residual: float
    constraints: int
    solver: str


def marginal_operator(
    target: Sequence[int],
    sizes: Sequence[int],
    subsets: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
) -> tuple[sparse.csr_array, np.ndarray]:
    """Rows ``A x = b`` that each table overlapping ``target`` imposes, ``A`` sparse.

    Each table contributes one block of rows, a 0/1 matrix with exactly one 1
    per column (the target cell's ``J``-cell), so ``A`` has ``n * blocks``
    non-zeros for ``n`` target cells, against ``rows * n`` when dense.
    """
    tgt = tuple(int(a) for a in target)
    if not tgt or len(set(tgt)) != len(tgt):
        raise UsageError(f"reconstruct: target must list distinct attributes, got {target}")
    shape = tuple(int(sizes[a]) for a in tgt)
    coords = np.indices(shape).reshape(len(tgt), -1)  # (|S|, cells of S)
    n = coords.shape[1]
    row_ids, rows_b, offset = [], [], 0
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
        row_ids.append(offset + jcell)
        rows_b.append(marg.reshape(-1))
        offset += marg.size
    if not row_ids:
        raise UsageError(f"reconstruct: no table of the views covers any attribute of {tgt}")
    rows = np.concatenate(row_ids)
    cols = np.tile(np.arange(n), len(row_ids))
    A = sparse.csr_array((np.ones(rows.size), (rows, cols)), shape=(offset, n))
    return A, np.concatenate(rows_b)


def marginal_constraints(
    target: Sequence[int],
    sizes: Sequence[int],
    subsets: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`marginal_operator` with ``A`` as a dense array (small targets, the generic solvers)."""
    A, b = marginal_operator(target, sizes, subsets, tables)
    return A.toarray(), b


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


def _clarabel_solve(
    P: sparse.csc_array, q: np.ndarray, G: sparse.csc_array, h: np.ndarray, zeros: int
) -> np.ndarray:
    """Clarabel on ``min z'Pz/2 + q'z`` s.t. ``G z + s = h``, ``s`` in (0^zeros x R+^rest)."""
    import clarabel

    cones = [clarabel.ZeroConeT(zeros), clarabel.NonnegativeConeT(G.shape[0] - zeros)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    P_ = sparse.csc_matrix(sparse.triu(P, format="csc"))
    sol = clarabel.DefaultSolver(P_, q, sparse.csc_matrix(G), h, cones, settings).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        raise UsageError(f"reconstruct: Clarabel did not solve the QP (status {sol.status})")
    return np.asarray(sol.x)


def _lattice(
    target: tuple[int, ...], sizes: Sequence[int], commons: Sequence[tuple[int, ...]]
) -> tuple[sparse.csr_array, sparse.csr_array, np.ndarray, int]:
    """The marginal lattice of ``target``: ``(D, E, total, N)`` over ``N`` variables.

    Variables: the target table ``x`` first, then one table per attribute
    subset ``J`` on the way from each constrained ``J`` up to ``target``
    (``J``'s parent adds the first target attribute it lacks).  ``D v = 0``
    defines every such table as the sum of its parent over one attribute
    (rows of ``1 + size`` non-zeros); ``E v`` stacks the constrained
    marginals in the order of ``commons``; ``total @ v = 1`` sums the
    smallest table.  A marginal over one attribute of ``x`` is then one
    short row per cell instead of a row over ``n / size`` cells of ``x``,
    and the interior-point KKT system stays sparse (it is the elimination
    tree of the lattice), where the direct rows fill it in completely.
    """
    shape = {target: tuple(int(sizes[a]) for a in target)}
    parent: dict[tuple[int, ...], tuple[int, ...]] = {}
    for j in commons:
        cur = j
        while cur != target and cur not in parent:
            add = next(a for a in target if a not in cur)
            parent[cur] = tuple(a for a in target if a in cur or a == add)
            shape[cur] = tuple(int(sizes[a]) for a in cur)
            cur = parent[cur]
    order = [target, *sorted(parent, key=lambda t: (-len(t), t))]
    offset, n_vars = {}, 0
    for t in order:
        offset[t] = n_vars
        n_vars += math.prod(shape[t])
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    n_rows = 0
    for j, up in parent.items():
        size = math.prod(shape[j])
        coords = np.indices(shape[up]).reshape(len(up), -1)
        jcell = np.ravel_multi_index(tuple(coords[up.index(a)] for a in j), shape[j])
        rows += [n_rows + np.arange(size), n_rows + jcell]
        cols += [offset[j] + np.arange(size), offset[up] + np.arange(coords.shape[1])]
        vals += [np.ones(size), -np.ones(coords.shape[1])]
        n_rows += size
    D = sparse.csr_array(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols)))
        if rows
        else ([], ([], [])),
        shape=(n_rows, n_vars),
    )
    sel = np.concatenate([offset[j] + np.arange(math.prod(shape[j])) for j in commons])
    E = sparse.csr_array((np.ones(sel.size), (np.arange(sel.size), sel)), shape=(sel.size, n_vars))
    small = min(order, key=lambda t: math.prod(shape[t]))
    total = np.zeros(n_vars)
    total[offset[small] : offset[small] + math.prod(shape[small])] = 1.0
    return D, E, total, n_vars


def _structured(
    target: tuple[int, ...], sizes: Sequence[int], commons: Sequence[tuple[int, ...]],
    b: np.ndarray, tol: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Both QPs of the module docstring over the marginal lattice (Clarabel): ``(x1, x)``.

    Stage 1 never forms the dense ``n x n`` Hessian ``A'A``: it minimizes
    ``||r||^2`` with ``E v - r = b`` (the same minimizers in ``x``); stage 2's
    Hessian is the identity on ``x``.  Every constraint row is short
    (:func:`_lattice`), so the solve scales with the table it fits.
    """
    D, E, total, N = _lattice(target, sizes, commons)
    n, m = math.prod(int(sizes[a]) for a in target), E.shape[0]
    neg_x = sparse.csr_array((-np.ones(n), (np.arange(n), np.arange(n))), shape=(n, N))
    eye_m = sparse.identity(m, format="csr")
    z = sparse.csr_array
    G1 = sparse.vstack([
        sparse.hstack([D, z((D.shape[0], m))]), sparse.hstack([E, -eye_m]),
        sparse.hstack([z(total[None, :]), z((1, m))]), sparse.hstack([neg_x, z((n, m))]),
    ], format="csc")  # fmt: skip
    h1 = np.concatenate([np.zeros(D.shape[0]), b, np.ones(1), np.zeros(n)])
    P1 = sparse.block_diag([z((N, N)), eye_m], format="csc")
    v = _clarabel_solve(P1, np.zeros(N + m), G1, h1, D.shape[0] + m + 1)
    x1 = np.clip(v[:n], 0.0, None)
    x1 /= x1.sum()
    y = E @ v[:N]
    G2 = sparse.vstack([D, z(total[None, :]), neg_x, E, -E], format="csc")
    h2 = np.concatenate([np.zeros(D.shape[0]), np.ones(1), np.zeros(n), y + tol, -(y - tol)])
    P2 = sparse.csc_array((np.ones(n), (np.arange(n), np.arange(n))), shape=(N, N))
    x = np.clip(_clarabel_solve(P2, np.zeros(N), G2, h2, D.shape[0] + 1)[:n], 0.0, None)
    return x1, x / x.sum()


def reconstruct(
    target: Sequence[int],
    sizes: Sequence[int],
    subsets: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
    *,
    solver: str = "auto",
    tol: float = 1e-7,
) -> Marginal:
    """The consistent marginal over ``target`` (see the module docstring).

    ``auto`` (the default) is ``clarabel`` up to :data:`AUTO_CELLS` target
    cells and ``ipm`` above (``clarabel`` if ``ipm`` ends without its certificate).  ``ipm`` solves both programs through their few marginal
    rows (:func:`mpc_rr.rrba._marginal_ipm.fit_consistent`; stage 2 meets
    the ``tol`` band with equality); ``clarabel`` solves them in sparse
    form over the marginal lattice (:func:`_structured`); ``osqp`` and
    ``scipy`` take the dense ``A'A`` form (small targets, references in the
    tests).
    """
    if solver not in SOLVERS:
        raise UsageError(f"solver must be one of {SOLVERS}, got {solver!r}")
    A, b = marginal_operator(target, sizes, subsets, tables)
    auto = solver == "auto"
    if auto:
        solver = "clarabel" if A.shape[1] <= AUTO_CELLS else "ipm"
    if solver == "ipm":
        tgt = tuple(int(a) for a in target)
        commons = [tuple(tgt.index(a) for a in tgt if a in sub) for sub in subsets]
        shape = tuple(int(sizes[a]) for a in tgt)
        blocks, bbar, weight = distinct_marginals(shape, [c for c in commons if c], b)
        try:
            x1, x, _ = fit_consistent(blocks, bbar, weight)
        except UsageError:
            if not auto:
                raise
            solver = "clarabel"  # its certificate not met (none of Adult's 126 tables): the general solver
    if solver == "ipm":
        y = A @ x1
    elif solver == "clarabel":
        tgt = tuple(int(a) for a in target)
        commons = [tuple(a for a in tgt if a in sub) for sub in subsets]
        x1, x = _structured(tgt, sizes, [c for c in commons if c], b, tol)
        y = A @ x1
    else:
        Ad = A.toarray()
        x1 = solve_simplex_qp(Ad.T @ Ad, -(Ad.T @ b), solver=solver)
        x1 = np.clip(x1, 0.0, None)
        x1 /= x1.sum()
        y = Ad @ x1
        n = Ad.shape[1]
        x = solve_simplex_qp(np.eye(n), np.zeros(n), Ad, y - tol, y + tol, solver=solver)
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
