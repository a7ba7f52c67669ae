"""Frequency estimation from randomized reports (Eq. 2) and the ways back to a distribution.

Eq. 2 of Domingo-Ferrer & Soria-Comas: with observed report proportions
``lambda_hat``, the unbiased estimate ``pi_hat`` solves ``P^T pi_hat =
lambda_hat`` (the mechanism's ``estimate`` does the solve, never an inverse).
It may leave the probability simplex (docs/rr_library.md, decision 4), so every result says
which repair was applied:

* ``"clip"`` -- the paper's Section 6.4: negatives to 0, rescale to sum 1.
  (The paper calls this "the closest proper distribution", which it is not in
  general; ``"project"`` is.)
* ``"project"`` -- the exact Euclidean projection onto the simplex
  (sort-based algorithm of Held et al. 1974 / Duchi et al. 2008, O(N log N)).
* ``"ibu"`` -- iterative Bayesian update (Agrawal & Aggarwal 2001, the
  paper's reference [2]): EM for the multinomial likelihood, which stays on
  the simplex and converges to the maximum-likelihood estimate.
* ``"none"`` -- the raw Eq. 2 solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.estimation._choices import ESTIMATORS
from mpc_rr.mechanisms import JointMechanism

__all__ = [
    "Estimate",
    "clip_rescale",
    "estimate_distribution",
    "ibu",
    "project_simplex",
]

Method = Literal["clip", "project", "ibu", "none"]


@dataclass(frozen=True)
class Estimate:
    """An estimated distribution and how it was obtained.

    ``raw`` is the Eq. 2 solution as proportions; ``distribution`` the
    repaired one (sums to 1 unless ``method == "none"``); ``n`` the number of
    reports it came from.
    """

    distribution: np.ndarray
    raw: np.ndarray
    method: str
    n: int
    iterations: int = 0


def clip_rescale(v: np.ndarray) -> np.ndarray:
    """Section 6.4: replace negatives by 0 and rescale to sum 1.

    If nothing positive is left the uniform distribution is returned.
    """
    x = np.clip(np.asarray(v, dtype=float), 0.0, None)
    s = x.sum()
    if s <= 0:
        return np.full_like(x, 1.0 / x.size)
    result: np.ndarray = x / s
    return result


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Exact Euclidean projection of ``v`` (any shape) onto the probability simplex."""
    x = np.asarray(v, dtype=float)
    flat = x.reshape(-1)
    if flat.size == 0:
        raise UsageError("project_simplex: empty vector")
    u = np.sort(flat)[::-1]
    css = np.cumsum(u) - 1.0
    ks = np.arange(1, flat.size + 1)
    rho = np.flatnonzero(u - css / ks > 0)[-1]
    theta = css[rho] / (rho + 1.0)
    result: np.ndarray = np.maximum(flat - theta, 0.0).reshape(x.shape)
    return result


def ibu(
    mechanism: JointMechanism,
    observed: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 10_000,
    init: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Iterative Bayesian update: ``pi <- pi * P (lambda / P^T pi)``.

    Needs ``mechanism.forward`` (``P^T x``) and ``mechanism.adjoint``
    (``P x``).  Stops when the L1 change is below ``tol``.  Returns the
    distribution and the number of iterations used.
    """
    fwd = getattr(mechanism, "forward", None)
    adj = getattr(mechanism, "adjoint", None)
    if fwd is None or adj is None:
        raise UsageError(f"ibu: {type(mechanism).__name__} lacks forward/adjoint operators")
    obs = np.asarray(observed, dtype=float)
    total = obs.sum()
    if total <= 0:
        raise UsageError("ibu: observed counts sum to zero (no reports)")
    lam = obs / total
    pi = np.full(obs.shape, 1.0 / obs.size) if init is None else np.asarray(init, float).copy()
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 (value used after the loop)
        denom = fwd(pi)
        ratio = np.divide(lam, denom, out=np.zeros_like(lam), where=denom > 0)
        new = pi * adj(ratio)
        new /= new.sum()
        delta = np.abs(new - pi).sum()
        pi = new
        if delta < tol:
            break
    return pi, it


def estimate_distribution(
    mechanism: JointMechanism,
    observed: np.ndarray,
    method: Method | str = "clip",
    **ibu_options: float,
) -> Estimate:
    """Eq. 2 on observed report counts, then the chosen repair.

    ``observed`` has shape ``mechanism.sizes`` (counts of randomized reports).
    """
    if method not in ESTIMATORS:
        raise UsageError(f"estimate: method must be one of {ESTIMATORS}, got {method!r}")
    obs = np.asarray(observed, dtype=float)
    n = obs.sum()
    if n <= 0:
        raise UsageError("estimate: no reports (observed counts sum to 0)")
    if (obs < 0).any():
        raise UsageError("estimate: observed counts must be non-negative")
    raw = mechanism.estimate(obs) / n
    iters = 0
    if method == "clip":
        dist = clip_rescale(raw)
    elif method == "project":
        dist = project_simplex(raw)
    elif method == "ibu":
        dist, iters = ibu(mechanism, obs, **ibu_options)  # type: ignore[arg-type]
    else:
        dist = raw
    return Estimate(distribution=dist, raw=raw, method=str(method), n=round(n), iterations=iters)
