"""What every privacy-optimized construction returns, and the input rules they share.

:class:`OptimizedRR` holds a built :class:`~mpc_rr.mechanisms.PatternMechanism`
together with how it was obtained (requested epsilons, method, attribute
order, fallbacks, time).  It is built by its ordinary constructor from the
mechanism -- the achieved and overall epsilons are *computed* from the
mechanism there, never passed in -- and is itself a pattern mechanism that
delegates sampling, estimation and privacy figures to the one it holds, so
the pipeline, the CLI and the tests use it wherever a
:class:`mpc_rr.mechanisms.JointMechanism` is expected.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._patterns import PatternMechanism

__all__ = ["MATCH_RTOL", "MAX_EPSILON", "METHODS", "OptimizedRR", "check_epsilons"]

#: Largest per-attribute epsilon accepted (exp(eps) must stay far from overflow).
MAX_EPSILON = 300.0
#: Relative tolerance for "the achieved epsilon equals the requested one".
MATCH_RTOL = 1e-6
#: How an :class:`OptimizedRR` can have been obtained.
METHODS = ("lp", "heuristic", "kronecker")


def check_epsilons(epsilons: Sequence[float], k: int) -> tuple[float, ...]:
    """Validate requested per-attribute epsilons: ``k`` of them, each in ``(0, MAX_EPSILON]``."""
    eps = tuple(float(e) for e in epsilons)
    if len(eps) != k:
        raise UsageError(f"need one epsilon per attribute: {k} sizes but {len(eps)} epsilons")
    for i, e in enumerate(eps):
        if not (0.0 < e <= MAX_EPSILON):  # also rejects nan
            raise UsageError(f"epsilons[{i}] must satisfy 0 < eps <= {MAX_EPSILON}, got {e!r}")
    return eps


class OptimizedRR(PatternMechanism):
    """A privacy-optimized mechanism together with how it was obtained.

    Parameters
    ----------
    mechanism:
        The built mechanism (a :class:`~mpc_rr.mechanisms.TablePattern` from
        the LP, a :class:`~mpc_rr.mechanisms.CompactPattern` from the
        heuristic, or a :class:`~mpc_rr.mechanisms.KroneckerPattern`).
    requested_epsilons:
        Per attribute, as asked for.
    method:
        ``"lp"``, ``"heuristic"`` or ``"kronecker"`` (the heuristic's result
        was worse than the Kronecker baseline, which was returned instead).
    order:
        Attribute order the heuristic ran in (identity for the LP).
    fallback_attributes:
        Attributes where Algorithm 3 fell back in that order (their epsilon
        then happened to still match, or the result would have been refused).
    seconds:
        Construction time.

    Attributes
    ----------
    achieved_epsilons:
        Per attribute, computed from ``mechanism``.
    overall_epsilon:
        ``ln(max level / min level)`` of ``mechanism``.
    kronecker_epsilon:
        ``sum(requested)``, the epsilon of the Kronecker construction.
    """

    def __init__(
        self,
        mechanism: PatternMechanism,
        *,
        requested_epsilons: Sequence[float],
        method: str,
        order: Sequence[int],
        fallback_attributes: Sequence[int] = (),
        seconds: float,
    ) -> None:
        super().__init__(mechanism.sizes)
        k = len(self._sizes)
        if method not in METHODS:
            raise UsageError(f"method must be one of {METHODS}, got {method!r}")
        requested = tuple(float(e) for e in requested_epsilons)
        if len(requested) != k:
            raise UsageError(f"need one requested epsilon per attribute: {k}, got {len(requested)}")
        order_t = tuple(int(v) for v in order)
        if sorted(order_t) != list(range(k)):
            raise UsageError(f"order must be a permutation of 0..{k - 1}, got {order!r}")
        self.mechanism = mechanism
        self.requested_epsilons = requested
        self.method = method
        self.order = order_t
        self.fallback_attributes = tuple(int(v) for v in fallback_attributes)
        self.seconds = float(seconds)
        self.achieved_epsilons = mechanism.epsilons
        self.overall_epsilon = mechanism.epsilon
        self.kronecker_epsilon = float(sum(requested))

    # -- the held mechanism does the work -------------------------------------------
    def levels(self) -> np.ndarray:
        return self.mechanism.levels()

    @property
    def epsilon(self) -> float:
        return self.mechanism.epsilon

    @property
    def epsilons(self) -> tuple[float, ...]:
        return self.mechanism.epsilons

    def marginal_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        return self.mechanism.marginal_probabilities()

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.mechanism.perturb(codes, rng)

    def estimate(self, observed: np.ndarray, *, method: str = "structured") -> np.ndarray:
        return self.mechanism.estimate(observed, method=method)

    def dense_matrix(self) -> np.ndarray:
        return self.mechanism.dense_matrix()

    # -- reporting ------------------------------------------------------------------
    def report(self) -> dict[str, object]:
        """JSON-ready summary."""
        return {
            "sizes": list(self.sizes),
            "method": self.method,
            "requested_epsilons": list(self.requested_epsilons),
            "achieved_epsilons": list(self.achieved_epsilons),
            "overall_epsilon": self.overall_epsilon,
            "kronecker_epsilon": self.kronecker_epsilon,
            "order": list(self.order),
            "seconds": self.seconds,
        }

    def __repr__(self) -> str:
        return (
            f"OptimizedRR(sizes={self.sizes}, method={self.method!r}, "
            f"overall_epsilon={self.overall_epsilon:.6g}, kronecker={self.kronecker_epsilon:.6g})"
        )
