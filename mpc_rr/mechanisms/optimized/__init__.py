"""Privacy-optimized multi-attribute RR (Yamamoto & Shibuya): the LP, the k = 2 closed form
and the O(k^2) inductive heuristic (Algorithm 3), one result type (:class:`OptimizedRR`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "LP_MAX_ATTRIBUTES",
    "MATCH_RTOL",
    "MAX_EPSILON",
    "METHODS",
    "OptimizedRR",
    "PatternMechanism",
    "check_epsilons",
    "closed_form_two",
    "heuristic_in_order",
    "heuristic_reference",
    "kronecker_mechanism",
    "lp_matrices",
    "optimize",
    "solve_heuristic",
    "solve_lp",
]

_HOME = {
    "LP_MAX_ATTRIBUTES": "mpc_rr.mechanisms.optimized._lp",
    "MATCH_RTOL": "mpc_rr.mechanisms.optimized._result",
    "MAX_EPSILON": "mpc_rr.mechanisms.optimized._result",
    "METHODS": "mpc_rr.mechanisms.optimized._result",
    "OptimizedRR": "mpc_rr.mechanisms.optimized._result",
    "PatternMechanism": "mpc_rr.mechanisms.optimized._build",
    "check_epsilons": "mpc_rr.mechanisms.optimized._result",
    "closed_form_two": "mpc_rr.mechanisms.optimized._heuristic",
    "heuristic_in_order": "mpc_rr.mechanisms.optimized._heuristic",
    "heuristic_reference": "mpc_rr.mechanisms.optimized._heuristic",
    "kronecker_mechanism": "mpc_rr.mechanisms.optimized._heuristic",
    "lp_matrices": "mpc_rr.mechanisms.optimized._lp",
    "optimize": "mpc_rr.mechanisms.optimized._build",
    "solve_heuristic": "mpc_rr.mechanisms.optimized._heuristic",
    "solve_lp": "mpc_rr.mechanisms.optimized._lp",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.mechanisms.optimized._build import (
        PatternMechanism,
        optimize,
    )
    from mpc_rr.mechanisms.optimized._heuristic import (
        closed_form_two,
        heuristic_in_order,
        heuristic_reference,
        kronecker_mechanism,
        solve_heuristic,
    )
    from mpc_rr.mechanisms.optimized._lp import (
        LP_MAX_ATTRIBUTES,
        lp_matrices,
        solve_lp,
    )
    from mpc_rr.mechanisms.optimized._result import (
        MATCH_RTOL,
        MAX_EPSILON,
        METHODS,
        OptimizedRR,
        check_epsilons,
    )
