"""λ-randomization (Ruiz): Kronecker products of ``P(λ) = λI + (1 − λ)J/n``.

Each attribute ``i`` with ``n_i`` categories is randomized with Eq. 6,
``P_i = λ_i I + (1 − λ_i) P*_{n_i}`` where ``P* = J/n`` is the perfect-privacy
matrix: keep the true value with probability ``λ_i``, otherwise report a
value drawn uniformly from all ``n_i`` categories (the true one included).
The joint mechanism is the Kronecker product ``P_1 ⊗ ... ⊗ P_k`` (Sec. 3),
realised by independent per-attribute draws.

Privacy figures (all exact, computed from the definitions):

* local epsilon of a factor: ``ln(1 + λ n / (1 − λ))`` (max column ratio of
  ``P(λ)``; ``inf`` at ``λ = 1``); of the product: the sum over factors
  (every product entry is a product of factor entries);
* entropy rate ``H(P)`` in bits (the mean row entropy; all rows of ``P(λ)``
  share one entropy) and the bistochastic-privacy share ``H(P)/log2 n``
  (Definition 1); for the product ``sum_i H(P_i)`` by Theorem 2 (Eq. 3) and
  ``sum_i H(P_i) / log2 N``.

Estimation solves ``P^T π = observed`` with the exact inverse of Property 1
(Eq. 7), ``P(λ)^{-1} = (1/λ)(I − P*) + P*``, applied axis by axis
(Property 2, Eq. 8, without expanding its ``2^k`` terms): ``O(N k)`` time and
no ``N x N`` matrix.

Paper's empirical example (Sec. 6, Table 1) -- see :func:`paper_example`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._domain import check_codes, check_dense_cells, check_observed, check_sizes
from mpc_rr.mechanisms._epsilon import mixture_epsilon
from mpc_rr.mechanisms._kron import apply_kron_ij

__all__ = [
    "PAPER_TABLE1",
    "LambdaRandomization",
    "StrengthRow",
    "factor_entropy",
    "factor_epsilon",
    "paper_example",
]


#: Why λ-randomization needs two categories per attribute (see :mod:`mpc_rr.mechanisms._domain`).
_SIZES_WHY = "the strength H(P)/log2 n of Ruiz's Definition 1 is undefined for n = 1"


def _check_lambda(lam: float, index: int) -> float:
    try:
        value = float(lam)
    except (TypeError, ValueError):
        raise UsageError(f"lambdas[{index}] must be a number, got {lam!r}") from None
    if not (0.0 < value <= 1.0):  # also rejects nan
        raise UsageError(f"lambdas[{index}] must satisfy 0 < λ <= 1 (Ruiz Eq. 6), got {lam!r}")
    return value


def factor_epsilon(lam: float, n: int) -> float:
    """Exact local epsilon of ``P(λ)`` on ``n`` categories: ``ln(1 + λ n / (1 − λ))``.

    ``P(λ)`` is the uniform mixture ``λI + (1 − λ)J/n``; its closed form lives
    in :func:`mpc_rr.mechanisms.mixture_epsilon`.
    """
    return mixture_epsilon(lam, n)


def factor_entropy(lam: float, n: int) -> float:
    """Entropy rate ``H(P(λ))`` in bits: the entropy of any row (Ruiz Sec. 2.2)."""
    diag = lam + (1.0 - lam) / n
    off = (1.0 - lam) / n
    h = 0.0
    if diag > 0:
        h -= diag * math.log2(diag)
    if off > 0:
        h -= (n - 1) * off * math.log2(off)
    return max(h, 0.0)


class LambdaRandomization:
    """Kronecker product of ``P(λ_i)`` factors; a :class:`mpc_rr.mechanisms.JointMechanism`.

    Parameters
    ----------
    sizes:
        Category counts ``(n_1, ..., n_k)``, each ``>= 2`` (the strength
        ``H(P)/log2 n`` needs ``n >= 2``).
    lambdas:
        One ``λ_i`` per attribute with ``0 < λ_i <= 1`` (Ruiz Eq. 6).

    Raises
    ------
    UsageError
        On a λ outside ``(0, 1]`` or a length mismatch.
    """

    def __init__(self, sizes: Sequence[int], lambdas: Sequence[float]) -> None:
        self._sizes = check_sizes(sizes, min_categories=2, why=_SIZES_WHY)
        lams = tuple(lambdas)
        if len(lams) != len(self._sizes):
            raise UsageError(
                f"need one λ per attribute: {len(self._sizes)} sizes but {len(lams)} lambdas"
            )
        self._lambdas = tuple(_check_lambda(v, i) for i, v in enumerate(lams))

    # -- JointMechanism -------------------------------------------------
    @property
    def sizes(self) -> tuple[int, ...]:
        return self._sizes

    @property
    def lambdas(self) -> tuple[float, ...]:
        return self._lambdas

    @property
    def epsilon(self) -> float:
        """Exact local epsilon of the product: the sum of the factor epsilons."""
        return float(sum(self.epsilons))

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomize records: per attribute keep w.p. ``λ_i`` else draw uniformly.

        Independent per-attribute draws realise exactly the Kronecker
        distribution.  ``O(n)`` per attribute, vectorized over records.
        """
        arr = check_codes(codes, self._sizes)
        out = arr.copy()
        n = arr.shape[0]
        for j, (size, lam) in enumerate(zip(self._sizes, self._lambdas, strict=True)):
            keep = rng.random(n) < lam
            fresh = rng.integers(0, size, size=n)
            out[:, j] = np.where(keep, arr[:, j], fresh)
        return out.reshape(np.shape(codes)).astype(np.asarray(codes).dtype, copy=False)

    def estimate(self, observed: np.ndarray, *, method: str = "structured") -> np.ndarray:
        """Solve ``P^T π = observed`` (Eq. 2) with the exact inverse (Properties 1–2).

        ``method="structured"`` (default) applies, along every axis,
        ``x -> x/λ + (1 − 1/λ) mean(x)`` -- Eq. 7 -- in ``O(N k)``.
        ``method="dense"`` forms the matrix and calls ``numpy.linalg.solve``
        (only for ``N <= 4096``; for cross-checks).
        """
        obs = check_observed(observed, self._sizes)
        if method == "dense":
            mat = self.dense_matrix()
            return np.linalg.solve(mat.T, obs.ravel()).reshape(self._sizes)
        if method != "structured":
            raise UsageError(f"method must be 'structured' or 'dense', got {method!r}")
        alphas = [1.0 / lam for lam in self._lambdas]
        betas = [(1.0 - 1.0 / lam) / n for lam, n in zip(self._lambdas, self._sizes, strict=True)]
        return apply_kron_ij(obs, alphas, betas)

    # -- privacy figures ------------------------------------------------
    @property
    def epsilons(self) -> tuple[float, ...]:
        """Exact local epsilon of each factor."""
        pairs = zip(self._lambdas, self._sizes, strict=True)
        return tuple(factor_epsilon(lam, n) for lam, n in pairs)

    @property
    def entropies(self) -> tuple[float, ...]:
        """Entropy rate ``H(P_i)`` (bits) of each factor."""
        pairs = zip(self._lambdas, self._sizes, strict=True)
        return tuple(factor_entropy(lam, n) for lam, n in pairs)

    @property
    def entropy(self) -> float:
        """Entropy rate of the product: ``sum_i H(P_i)`` (Theorem 2, Eq. 3)."""
        return float(sum(self.entropies))

    @property
    def entropy_shares(self) -> tuple[float, ...]:
        """Bistochastic-privacy share ``H(P_i)/log2 n_i`` of each factor (Definition 1)."""
        return tuple(h / math.log2(n) for h, n in zip(self.entropies, self._sizes, strict=True))

    @property
    def entropy_share(self) -> float:
        """Share of the product: ``sum_i H(P_i) / log2 N``."""
        return self.entropy / sum(math.log2(n) for n in self._sizes)

    # -- structure --------------------------------------------------------
    def levels(self) -> np.ndarray:
        """The ``2^k`` difference-pattern levels ``X_S`` of the product matrix.

        ``X_S = prod_{i in S} (1−λ_i)/n_i * prod_{i not in S} (λ_i + (1−λ_i)/n_i)``;
        lets the λ product be handled by the generic machinery of
        :mod:`mpc_rr.mechanisms._kron` (used for cross-checks).
        """
        table = np.ones(1)
        for lam, n in zip(self._lambdas, self._sizes, strict=True):
            pair = np.array([lam + (1.0 - lam) / n, (1.0 - lam) / n])
            table = np.multiply.outer(pair, table).ravel()  # new attribute = higher bit
        return table

    def factor_matrix(self, index: int) -> np.ndarray:
        """The dense ``n_i x n_i`` factor ``P(λ_i)``."""
        lam, n = self._lambdas[index], self._sizes[index]
        return lam * np.eye(n) + (1.0 - lam) / n * np.ones((n, n))

    def dense_matrix(self) -> np.ndarray:
        """The Kronecker product as a dense matrix (only for ``N <= 4096``)."""
        check_dense_cells(self._sizes)
        mat = np.ones((1, 1))
        for i in range(len(self._sizes)):
            mat = np.kron(mat, self.factor_matrix(i))
        return mat

    def __repr__(self) -> str:
        return f"LambdaRandomization(sizes={self._sizes}, lambdas={self._lambdas})"


# -- Sec. 6 empirical example ---------------------------------------------------

#: Table 1 of Ruiz as printed: (λ's as printed, per-attribute %, joint %).
PAPER_TABLE1: tuple[tuple[tuple[float, ...], tuple[int, int, int], int], ...] = (
    ((0.9, 0.8, 0.7), (25, 41, 56), 31),
    ((0.3, 0.2, 0.1), (92, 96, 99), 72),
    ((0.6, 0.7, 0.4), (68, 52, 85), 51),
)

#: The first scenario as the paper's *text* states it (the table prints 0.9, 0.8, 0.7).
TEXT_SCENARIO1 = (0.9, 0.5, 0.4)


@dataclass(frozen=True)
class StrengthRow:
    """One scenario of Ruiz's Table 1: our shares (from the definitions) and the paper's."""

    lambdas: tuple[float, ...]
    shares: tuple[float, ...]
    joint_share: float
    paper_shares: tuple[int, ...] | None
    paper_joint: int | None
    label: str


def paper_example() -> list[StrengthRow]:
    """Randomization strengths of Ruiz Sec. 6 (3 attributes, 5 categories each).

    Strength = bistochastic-privacy share ``H(P)/log2 N`` (Definition 1), per
    attribute and for the joint (Kronecker) matrix via Theorem 2.  Returns the
    three printed scenarios plus the first scenario as the text states it.

    Discrepancies with the printed Table 1 (explained in docs/families.md):

    * Scenario 1: the text says λ = (0.9, 0.5, 0.4), the table (0.9, 0.8, 0.7);
      the printed per-attribute shares (25, 41, 56 %) match the table's λ's
      (ours: 24.2, 41.1, 54.9 %), so both are reported.
    * The same λ = 0.7 is printed as 56 % (scenario 1) and 52 % (scenario 3);
      the definition gives 54.9 % for both.  Other per-attribute entries are
      within about 2 points of ours.
    * The joint column cannot come from the paper's own Theorem 2: with equal
      sizes the joint share is the *mean* of the per-attribute shares, so it
      must lie between their minimum and maximum.  The printed 72 % lies below
      all of 92/96/99 % (ours: 95.1 %); 31 % and 51 % likewise fall short of
      ours (40.1 %, 68.6 %), each about 0.75 times the value from the
      definitions.  No consistent reading reproduces them.
    """
    rows = []
    for lams, paper_attr, paper_joint in PAPER_TABLE1:
        mech = LambdaRandomization((5, 5, 5), lams)
        rows.append(
            StrengthRow(
                lambdas=lams,
                shares=mech.entropy_shares,
                joint_share=mech.entropy_share,
                paper_shares=paper_attr,
                paper_joint=paper_joint,
                label="table",
            )
        )
    mech = LambdaRandomization((5, 5, 5), TEXT_SCENARIO1)
    rows.append(
        StrengthRow(
            lambdas=TEXT_SCENARIO1,
            shares=mech.entropy_shares,
            joint_share=mech.entropy_share,
            paper_shares=None,
            paper_joint=None,
            label="text, scenario 1",
        )
    )
    return rows
