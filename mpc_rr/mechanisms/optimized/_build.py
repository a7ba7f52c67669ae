"""Privacy-optimized multi-attribute RR (Yamamoto & Shibuya).

A mechanism over ``k`` attributes with ``a_i`` categories whose matrix entry
``P[u, v] = X_S`` depends only on the set ``S`` of attributes in which input
``u`` and output ``v`` differ (Sec. IV-A).  Level ``X_S`` appears
``t_S = prod_{i in S} (a_i - 1)`` times per row, so a record is randomized by
drawing ``S`` with probability ``X_S t_S`` and then, for every ``i`` in ``S``,
a value uniformly among the *other* ``a_i - 1`` categories.

Per-attribute epsilon (Eq. 2) is the epsilon of the *marginal* mechanism of
attribute ``i`` (which does not depend on the other attributes' values):
diagonal ``sum_{S not containing i} X_S t_S`` against off-diagonal
``sum_{S containing i} X_S t_S / (a_i - 1)``.  The overall epsilon is
``ln(max_S X_S / min_S X_S)``.  Given requested per-attribute epsilons, the
optimized mechanism minimizes the overall one:

* :func:`solve_lp` -- the exact linear programme over the ``2^k − 1`` ratios
  ``x_S = X_S / X_full`` (Algorithms 1–2, Eq. 3), built as scipy.sparse
  matrices (two non-zeros per monotonicity row; the ``x_S >= 1`` rows become
  bounds) and solved with HiGHS;
* :func:`closed_form_two` -- the closed-form optimum for ``k = 2``
  (Sec. IV-B1, cases I–IV);
* :func:`solve_heuristic` -- the inductive heuristic (Algorithm 3), where all
  levels with two or more differing attributes are equal.  Implemented in
  ``O(k)`` (running sums replace the ``O(k)`` inner loop of the paper) and in
  probability units with a log-tracked "rest" level, so it neither overflows
  (ratios reach ``exp(sum eps)``) nor underflows for ``k = 10,000``.

The heuristic's fallback (Algorithm 3, steps 8–10) silently replaces an
attribute's requested epsilon by another one -- e.g. sizes (5,5,5,5,5),
eps (5,4,3,2,1) yields eps_5 = 5 instead of 1 -- and its outcome depends on
the attribute order.  Here every result reports requested and achieved
epsilons (computed from the built mechanism), and the caller chooses with
``on_mismatch``: ``"raise"`` refuses with a :class:`UsageError`, ``"reorder"``
searches attribute orders and returns the best order that meets every request
(refusing if none does).  Algorithm 3 can also be *worse* than the Kronecker
construction for small epsilons; then the Kronecker mechanism is returned
(``method="kronecker"``), so the result is never weaker than that baseline.

Estimation never forms the ``N x N`` matrix: it lies in the algebra spanned by
per-attribute ``I`` and ``J`` and is inverted exactly in its joint eigenbasis
(:mod:`mpc_rr.mechanisms._kron`).  A dense solve is offered for ``N <= 4096`` only.

This module is the public entry point (:func:`optimize`) and re-exports the
public names of the modules that do the work, one job each:

* :mod:`mpc_rr.mechanisms._patterns` -- the mechanism types (:class:`PatternMechanism`
  and its three representations);
* :mod:`mpc_rr.mechanisms.optimized._result` -- :class:`OptimizedRR` (a mechanism with
  how it was obtained) and the rules for requested epsilons;
* :mod:`mpc_rr.mechanisms.optimized._lp` -- the exact LP;
* :mod:`mpc_rr.mechanisms.optimized._heuristic` -- Algorithm 3, the closed form for
  ``k = 2`` and the Kronecker baseline.
"""

from __future__ import annotations

from collections.abc import Sequence

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._patterns import PatternMechanism
from mpc_rr.mechanisms.optimized._heuristic import (
    closed_form_two,
    heuristic_reference,
    kronecker_mechanism,
    solve_heuristic,
)
from mpc_rr.mechanisms.optimized._lp import LP_MAX_ATTRIBUTES, solve_lp
from mpc_rr.mechanisms.optimized._result import OptimizedRR

__all__ = [
    "LP_MAX_ATTRIBUTES",
    "OptimizedRR",
    "PatternMechanism",
    "closed_form_two",
    "heuristic_reference",
    "kronecker_mechanism",
    "optimize",
    "solve_heuristic",
    "solve_lp",
]


def optimize(
    sizes: Sequence[int],
    epsilons: Sequence[float],
    *,
    method: str = "auto",
    on_mismatch: str = "raise",
) -> OptimizedRR:
    """Privacy-optimized RR: ``method`` is ``"lp"``, ``"heuristic"`` or ``"auto"``.

    ``"auto"`` solves the exact LP for ``k <= 12`` (under a few seconds) and
    runs the heuristic otherwise.
    """
    if method == "lp":
        return solve_lp(sizes, epsilons)
    if method == "heuristic":
        return solve_heuristic(sizes, epsilons, on_mismatch=on_mismatch)
    if method == "auto":
        k = len(tuple(sizes))
        if 2 <= k <= 12:
            return solve_lp(sizes, epsilons)
        return solve_heuristic(sizes, epsilons, on_mismatch=on_mismatch)
    raise UsageError(f"method must be 'lp', 'heuristic' or 'auto', got {method!r}")
