"""Exact local epsilon of a randomization matrix: the one definition.

Notation (Domingo-Ferrer & Soria-Comas, Expression 1): ``P[u, v] =
Pr(Y = v | X = u)``; rows are true values, columns reported values.  RR is
epsilon-DP (Expression 4) with

    exp(eps) = max_v  max_u P[u, v] / min_u P[u, v],

``inf`` when a column that is ever reported also holds a zero.

:func:`local_epsilon` is the only implementation of this definition on a
dense matrix.  Structured mechanisms report their epsilon in closed form
(they never form their matrix); every closed form is tested equal to
:func:`local_epsilon` of the dense matrix wherever that can be formed:

* :func:`mixture_epsilon` -- ``a I + (1 - a) J / n``: keep-or-uniform
  (docs/rr_library.md, decision 1, ``a = p``), k-ary RR and the Sec. 6.3.2 cluster matrix
  (:class:`mpc_rr.mechanisms.UniformMixture`), and each factor ``P(λ)`` of
  λ-randomization (:mod:`mpc_rr.mechanisms._lambda`, whose product's epsilon is the sum);
* ``ln(max_S X_S / min_S X_S)`` of the difference-pattern mechanisms
  (:mod:`mpc_rr.mechanisms._patterns`: every column holds every level).
"""

from __future__ import annotations

import math

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["local_epsilon", "mixture_epsilon"]


def local_epsilon(matrix: np.ndarray) -> float:
    """Exact local epsilon of a randomization matrix (Expression 4).

    Parameters
    ----------
    matrix:
        2-D array, ``matrix[u, v] = Pr(report v | true u)``; finite and
        non-negative (rows need not be normalized: only column ratios count).

    Returns
    -------
    float
        ``max`` over report columns ``v`` of ``ln(max_u P[u, v] / min_u P[u, v])``;
        ``inf`` when a column has a zero next to a positive entry.  All-zero
        columns (never reported) are ignored.

    Raises
    ------
    UsageError
        If ``matrix`` is not a non-empty 2-D array of finite, non-negative
        entries, or has no positive entry.
    """
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.size == 0:
        raise UsageError(
            f"local_epsilon: matrix must be a non-empty 2-D array, got shape {m.shape}"
        )
    if not np.isfinite(m).all() or (m < 0).any():
        raise UsageError("local_epsilon: matrix entries must be finite and non-negative")
    hi = m.max(axis=0)
    lo = m.min(axis=0)
    used = hi > 0
    if not used.any():
        raise UsageError("local_epsilon: matrix has no positive entry")
    if (lo[used] <= 0).any():
        return math.inf
    return float(np.max(np.log(hi[used]) - np.log(lo[used])))


def mixture_epsilon(keep: float, n: int) -> float:
    """Closed-form epsilon of ``keep I + (1 - keep) J / n`` on ``n`` values.

    Keep the true value with probability ``keep``, else report a uniform draw
    from all ``n`` values: the diagonal is ``keep + (1 - keep)/n`` and the
    off-diagonal ``(1 - keep)/n``, so epsilon is ``ln(1 + keep n / (1 - keep))``
    (docs/rr_library.md, decision 1; Ruiz's ``P(λ)`` with ``λ = keep``).  ``0`` for ``n = 1``
    or ``keep = 0`` (nothing is revealed); ``inf`` for ``keep = 1`` with
    ``n > 1`` (the off-diagonal is zero).  Equal to :func:`local_epsilon` of
    the dense matrix (tested).
    """
    if n == 1 or keep == 0.0:
        return 0.0
    if keep >= 1.0:
        return math.inf
    return math.log1p(keep * n / (1.0 - keep))
