"""The interface every (multi-attribute) randomization mechanism implements.

A *joint mechanism* randomizes a record of ``k`` attributes with category
counts ``sizes = (n_1, ..., n_k)`` into another record of the same domain.
Its (possibly never materialized) randomization matrix ``P`` has
``P[u, v] = Pr(report v | true u)`` over the joint domain of
``N = prod(sizes)`` cells in C (row-major) order of the attribute tuple.

Implementations: the dense :class:`mpc_rr.mechanisms.RandomizationMatrix`
(one attribute, or a small joint domain) and the structured
:class:`mpc_rr.mechanisms.UniformMixture` (keep-or-uniform, k-RR, the
cluster matrix); the families of Ruiz (:mod:`mpc_rr.mechanisms._lambda`) and of
Yamamoto & Shibuya (:mod:`mpc_rr.mechanisms._patterns`, one type per representation,
built by :mod:`mpc_rr.mechanisms.optimized._build`), which never form an ``N x N`` matrix.
Sizes are validated by :func:`mpc_rr.mechanisms.check_sizes`; ``epsilon`` is
defined by :func:`mpc_rr.mechanisms.local_epsilon` (structured mechanisms give
a closed form, tested equal to it).

Estimation is Eq. 2 of Domingo-Ferrer & Soria-Comas: the observed report
distribution is ``lambda = P^T pi``, so the unbiased estimate of the true
distribution solves ``P^T pi_hat = lambda_hat``.  ``estimate`` returns this
raw solution (it may leave the simplex); :mod:`mpc_rr.estimation._frequencies` offers the
ways back to a proper distribution.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["JointMechanism"]


@runtime_checkable
class JointMechanism(Protocol):
    """Structural interface of a randomization mechanism over a product domain."""

    @property
    def sizes(self) -> tuple[int, ...]:
        """Category count of each attribute; the joint domain is their product."""
        ...

    @property
    def epsilon(self) -> float:
        """Exact local epsilon (natural log): max over report v of
        max_u P[u, v] / min_u P[u, v]; ``inf`` when a column mixes 0 and >0."""
        ...

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomize records.

        ``codes``: int array of shape ``(n, k)`` (or ``(n,)`` when ``k == 1``)
        with ``0 <= codes[:, j] < sizes[j]``.  Returns an array of the same
        shape and dtype.  Vectorized over records; every draw from ``rng``.
        """
        ...

    def estimate(self, observed: np.ndarray) -> np.ndarray:
        """Solve ``P^T pi = observed`` (Eq. 2).

        ``observed``: array of shape ``sizes`` (counts or proportions of the
        randomized reports).  Returns the unbiased estimate in the same shape
        and scale (counts in -> counts out); may contain negative entries.
        """
        ...
