"""Privacy-optimized RR by exact linear programming (Yamamoto & Shibuya, Sec. IV-A).

Variables ``x_S = X_S / X_full`` for the ``2^k − 1`` non-full attribute sets
(Algorithms 1–2, Eq. 3); minimize ``x_empty``, i.e. the overall epsilon
``ln(max_S X_S / min_S X_S)``, subject to every attribute's marginal epsilon
(Eq. 2) being the requested one.  The ``k 2^{k−1} − k`` monotonicity rows
``x_{S ∪ {i}} − x_S <= 0`` have two non-zeros each and are built vectorized
as a ``scipy.sparse`` CSR matrix; the ``k`` rows ``x_S >= 1`` become variable
bounds; each equality row is scaled to unit max coefficient; HiGHS solves it.
The result is a :class:`~mpc_rr.mechanisms.TablePattern` in an
:class:`~mpc_rr.mechanisms.optimized.OptimizedRR`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._kron import subset_counts
from mpc_rr.mechanisms._patterns import TablePattern, check_pattern_sizes
from mpc_rr.mechanisms.optimized._result import OptimizedRR, check_epsilons

__all__ = ["LP_MAX_ATTRIBUTES", "lp_matrices", "solve_lp"]

#: Largest k for which the exact LP (2^k − 1 variables) is attempted.
LP_MAX_ATTRIBUTES = 16


def lp_matrices(
    sizes: tuple[int, ...], epsilons: tuple[float, ...]
) -> tuple[np.ndarray, sp.csr_matrix, np.ndarray, sp.csr_matrix, np.ndarray]:
    """Sparse LP of Algorithms 1–2: ``(c, A_ub, b_ub, A_eq, b_eq)`` over ``x_0 .. x_{2^k−2}``.

    Variable ``x_S`` (bit mask ``S``) is ``X_S / X_full``.  Monotonicity
    ``x_{S ∪ {i}} <= x_S`` gives ``k 2^{k−1} − k`` rows with two non-zeros;
    the ``k`` rows ``x_S >= x_full = 1`` are left to the bounds.  Equality
    ``i`` is Eq. 3 multiplied out, scaled to unit max coefficient.
    """
    k = len(sizes)
    full = (1 << k) - 1
    masks = np.arange(1 << k)
    t = subset_counts(sizes)
    rows, cols, vals = [], [], []
    r = 0
    for i in range(k):
        lower = masks[(masks & (1 << i)) == 0]
        upper = lower | (1 << i)
        keep = upper != full
        lower, upper = lower[keep], upper[keep]
        m = lower.size
        idx = np.arange(r, r + m)
        rows += [idx, idx]
        cols += [upper, lower]
        vals += [np.ones(m), -np.ones(m)]
        r += m
    a_ub = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, full)
    )
    b_ub = np.zeros(r)
    eq = np.empty((k, full))
    b_eq = np.empty(k)
    for i in range(k):
        ratio = math.exp(epsilons[i]) / (sizes[i] - 1)
        has_i = (masks & (1 << i)) != 0
        coef = np.where(has_i, -ratio * t, t)
        scale = float(np.max(np.abs(coef)))
        eq[i] = coef[:full] / scale
        b_eq[i] = ratio * t[full] / scale
    c = np.zeros(full)
    c[0] = 1.0
    return c, a_ub, b_ub, sp.csr_matrix(eq), b_eq


def solve_lp(sizes: Sequence[int], epsilons: Sequence[float]) -> OptimizedRR:
    """Exact privacy-optimized mechanism by linear programming (Sec. IV-A, HiGHS).

    Raises
    ------
    UsageError
        For ``k < 2``, ``k > LP_MAX_ATTRIBUTES``, or if HiGHS fails.
    """
    start = time.perf_counter()
    sz = check_pattern_sizes(sizes)
    k = len(sz)
    if not 2 <= k <= LP_MAX_ATTRIBUTES:
        raise UsageError(
            f"the exact LP needs 2 <= k <= {LP_MAX_ATTRIBUTES} attributes (2^k − 1 variables), "
            f"got k = {k}; use method='heuristic'"
        )
    eps = check_epsilons(epsilons, k)
    c, a_ub, b_ub, a_eq, b_eq = lp_matrices(sz, eps)
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(1, None), method="highs")
    if res.status != 0:
        raise UsageError(f"HiGHS could not solve the LP for sizes {sz}, eps {eps}: {res.message}")
    ratios = np.append(res.x, 1.0)
    levels = ratios / float(ratios @ subset_counts(sz))
    return OptimizedRR(
        TablePattern(sz, levels),
        requested_epsilons=eps,
        method="lp",
        order=range(k),
        seconds=time.perf_counter() - start,
    )
