"""Privacy-optimized multi-attribute RR (Yamamoto & Shibuya): the LP, the k = 2 closed form
and the O(k^2) inductive heuristic (Algorithm 3), one result type (:class:`OptimizedRR`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "METHODS",
    "OptimizedRR",
    "kronecker_mechanism",
    "optimize",
    "solve_heuristic",
    "solve_lp",
]

_HOME = {
    "optimize": "mpc_rr.mechanisms.optimized._build",
    "kronecker_mechanism": "mpc_rr.mechanisms.optimized._heuristic",
    "solve_heuristic": "mpc_rr.mechanisms.optimized._heuristic",
    "solve_lp": "mpc_rr.mechanisms.optimized._lp",
    "METHODS": "mpc_rr.mechanisms.optimized._result",
    "OptimizedRR": "mpc_rr.mechanisms.optimized._result",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.mechanisms.optimized._build import (
        optimize,
    )
    from mpc_rr.mechanisms.optimized._heuristic import (
        kronecker_mechanism,
        solve_heuristic,
    )
    from mpc_rr.mechanisms.optimized._lp import (
        solve_lp,
    )
    from mpc_rr.mechanisms.optimized._result import (
        METHODS,
        OptimizedRR,
    )
