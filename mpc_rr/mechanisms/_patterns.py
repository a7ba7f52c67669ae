"""Difference-pattern mechanisms (Yamamoto & Shibuya, Sec. IV-A): one type per representation.

A mechanism over ``k`` attributes with ``a_i`` categories whose matrix entry
``P[u, v] = X_S`` depends only on the set ``S`` of attributes in which input
``u`` and output ``v`` differ.  Level ``X_S`` appears ``t_S = prod_{i in S}
(a_i - 1)`` times per row (rows sum to one: ``sum_S X_S t_S = 1``), so a
record is randomized by drawing ``S`` with probability ``X_S t_S`` and then,
for every ``i`` in ``S``, a value uniformly among the *other* ``a_i - 1``
categories.

:class:`PatternMechanism` is the interface (a
:class:`mpc_rr.mechanisms.JointMechanism` plus ``levels``, per-attribute
``epsilons``, ``marginal_probabilities`` and ``dense_matrix``); each
representation is its own type, so no method asks which one it holds:

* :class:`TablePattern` -- the full ``2^k`` level table (LP results);
* :class:`CompactPattern` -- the heuristic form for any ``k``: every level
  with two or more differing attributes equals a rest level ``R``, stored as
  its log, and ``X_empty``, ``X_{i}`` are stored as their excess over ``R``;
* :class:`KroneckerPattern` -- a λ-randomization product (the Kronecker
  baseline of Wang et al.), sampled and estimated by its own algorithms.

Per-attribute epsilon (Eq. 2) is that of attribute ``i``'s *marginal*
mechanism -- diagonal ``sum_{S not containing i} X_S t_S``, off-diagonal
``sum_{S containing i} X_S t_S / (a_i - 1)`` -- which does not depend on
the other attributes' values.  The overall epsilon is ``ln(max_S X_S /
min_S X_S)`` (every column holds every level): closed forms of
:func:`mpc_rr.mechanisms.local_epsilon`, tested equal to it.

Estimation never forms the ``N x N`` matrix: ``P`` lies in the algebra
spanned by per-attribute ``I`` and ``J`` and is inverted exactly in its joint
eigenbasis (:mod:`mpc_rr.mechanisms._kron`).  A dense solve is offered for ``N <= 4096``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._domain import check_codes, check_observed, check_sizes
from mpc_rr.mechanisms._kron import (
    eigenvalues_from_levels,
    pattern_matrix,
    solve_pattern,
    subset_counts,
)
from mpc_rr.mechanisms._lambda import LambdaRandomization

__all__ = [
    "CompactPattern",
    "KroneckerPattern",
    "PatternMechanism",
    "TablePattern",
    "check_pattern_sizes",
]

#: Largest k for which a ``2^k`` level table is formed from the compact form.
MAX_TABLE_ATTRIBUTES = 26


def check_pattern_sizes(sizes: Sequence[int]) -> tuple[int, ...]:
    """:func:`mpc_rr.mechanisms.check_sizes` with the floor these mechanisms need (2 categories)."""
    return check_sizes(
        sizes, min_categories=2, why="Yamamoto & Shibuya's Eqs. 2-3 divide by a_i - 1"
    )


def _restore_shape(out: np.ndarray, codes: np.ndarray) -> np.ndarray:
    return out.reshape(np.shape(codes)).astype(np.asarray(codes).dtype, copy=False)


class PatternMechanism(ABC):
    """Joint mechanism with ``P[u, v] = X_{S(u, v)}`` (see the module docstring).

    Subclasses implement one representation each: :meth:`levels`,
    :attr:`epsilon`, :meth:`marginal_probabilities`, :meth:`perturb` and,
    when they have a faster one than the eigenbasis solve, :meth:`_solve`.
    """

    def __init__(self, sizes: Sequence[int]) -> None:
        self._sizes = check_pattern_sizes(sizes)

    @property
    def sizes(self) -> tuple[int, ...]:
        return self._sizes

    @abstractmethod
    def levels(self) -> np.ndarray:
        """The full ``2^k`` level table ``X_S``, indexed by bit mask ``S = sum_{i in S} 2**i``."""

    @property
    @abstractmethod
    def epsilon(self) -> float:
        """Overall local epsilon ``ln(max_S X_S / min_S X_S)``; ``inf`` when a level is zero."""

    @abstractmethod
    def marginal_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """Per attribute: (keep probability, probability of each specific other value).

        The marginal mechanism of attribute ``i`` has ``keep[i]`` on its
        diagonal and ``other[i]`` off it.
        """

    @abstractmethod
    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomize records (``(n, k)`` codes, or ``(n,)`` for ``k = 1``); vectorized."""

    @property
    def epsilons(self) -> tuple[float, ...]:
        """Per-attribute epsilon of the built mechanism (Eq. 2, marginal mechanisms)."""
        keep, other = self.marginal_probabilities()
        out = []
        for p, q in zip(keep, other, strict=True):
            hi, lo = max(p, q), min(p, q)
            out.append(math.inf if lo <= 0 else math.log(hi) - math.log(lo))
        return tuple(out)

    def estimate(self, observed: np.ndarray, *, method: str = "structured") -> np.ndarray:
        """Solve ``P^T π = observed`` exactly (Eq. 2 of Domingo-Ferrer & Soria-Comas).

        ``"structured"``: eigen-decomposition of the I/J algebra, ``O(N k)``.
        ``"dense"``: ``numpy.linalg.solve`` on the formed matrix, ``N <= 4096``.
        """
        obs = check_observed(observed, self._sizes)
        if method == "dense":
            mat = self.dense_matrix()
            return np.linalg.solve(mat.T, obs.ravel()).reshape(self._sizes)
        if method != "structured":
            raise UsageError(f"method must be 'structured' or 'dense', got {method!r}")
        return self._solve(obs)

    def _solve(self, observed: np.ndarray) -> np.ndarray:
        """Structured solve of a validated tensor: the joint eigenbasis of :mod:`mpc_rr.mechanisms._kron`."""
        mu = eigenvalues_from_levels(self.levels(), self._sizes)
        return solve_pattern(observed, mu)  # P is symmetric: P^T = P

    def dense_matrix(self) -> np.ndarray:
        """The matrix as a dense array (only for ``N <= 4096``)."""
        return pattern_matrix(self.levels(), self._sizes)


class TablePattern(PatternMechanism):
    """A pattern mechanism given by its full table of ``2^k`` levels (LP results).

    Parameters
    ----------
    sizes:
        Category counts, each ``>= 2``.
    levels:
        ``X_S`` for every bit mask ``S``, non-negative, rows summing to one
        (``sum_S X_S t_S = 1``).
    """

    def __init__(self, sizes: Sequence[int], levels: np.ndarray) -> None:
        super().__init__(sizes)
        k = len(self._sizes)
        arr = np.array(levels, dtype=float)
        if arr.shape != (1 << k,):
            raise UsageError(f"levels must have 2**{k} = {1 << k} entries, got {arr.shape}")
        if np.any(arr < 0):
            raise UsageError("levels must be non-negative probabilities")
        total = float(arr @ subset_counts(self._sizes))
        if abs(total - 1.0) > 1e-9:
            raise UsageError(f"levels do not make a stochastic matrix (row sum {total!r})")
        arr.setflags(write=False)
        self._levels = arr

    def levels(self) -> np.ndarray:
        return self._levels

    @property
    def epsilon(self) -> float:
        lo, hi = float(self._levels.min()), float(self._levels.max())
        return math.inf if lo <= 0 else math.log(hi) - math.log(lo)

    def marginal_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        k = len(self._sizes)
        a = np.asarray(self._sizes, dtype=float)
        weighted = (self._levels * subset_counts(self._sizes)).reshape((2,) * k)
        keep = np.empty(k)
        changed = np.empty(k)
        for i in range(k):
            ax = k - 1 - i
            pair = weighted.sum(axis=tuple(j for j in range(k) if j != ax))
            keep[i], changed[i] = pair[0], pair[1]
        return keep, changed / (a - 1.0)

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw the changed set ``S`` w.p. ``X_S t_S`` over all ``2^k`` sets, then new values."""
        arr = check_codes(codes, self._sizes)
        out = arr.astype(np.int64, copy=True)
        n, k = arr.shape
        sizes = np.asarray(self._sizes, dtype=np.int64)
        probs = self._levels * subset_counts(self._sizes)
        subset = rng.choice(probs.size, size=n, p=probs / probs.sum())
        for i in range(k):
            change = ((subset >> i) & 1).astype(bool)
            shift = rng.integers(1, sizes[i], size=n)
            out[:, i] = np.where(change, (out[:, i] + shift) % sizes[i], out[:, i])
        return _restore_shape(out, codes)

    def __repr__(self) -> str:
        return f"TablePattern(sizes={self._sizes}, epsilon={self.epsilon:.6g})"


class CompactPattern(PatternMechanism):
    """A pattern mechanism whose levels with >= 2 differing attributes all equal ``R``.

    Parameters
    ----------
    sizes:
        Category counts, each ``>= 2``; any ``k``.
    d0:
        ``X_empty - R``.
    singles:
        ``X_{i} - R`` for each attribute ``i`` (``k`` entries).
    log_rest:
        ``ln R``.  Storing the *excess over R* keeps full precision when ``R``
        is astronomically small (it underflows for k = 10,000) -- and the
        excesses are exactly what Algorithm 3's induction leaves invariant.
    """

    def __init__(
        self, sizes: Sequence[int], d0: float, singles: np.ndarray, log_rest: float
    ) -> None:
        super().__init__(sizes)
        k = len(self._sizes)
        arr = np.array(singles, dtype=float)
        if arr.shape != (k,):
            raise UsageError(f"singles must have {k} entries (one per attribute), got {arr.shape}")
        arr.setflags(write=False)
        self._d0 = float(d0)
        self._singles = arr
        self._log_rest = float(log_rest)

    @property
    def d0(self) -> float:
        """``X_empty - R``."""
        return self._d0

    @property
    def singles(self) -> np.ndarray:
        """``X_{i} - R`` per attribute (read-only)."""
        return self._singles

    @property
    def log_rest(self) -> float:
        """``ln R``, the level of every set of two or more differing attributes."""
        return self._log_rest

    def levels(self) -> np.ndarray:
        k = len(self._sizes)
        if k > MAX_TABLE_ATTRIBUTES:
            raise UsageError(f"a 2**k level table is not formed for k = {k} attributes")
        rest = math.exp(self._log_rest)
        table = np.full(1 << k, rest)
        table[0] = rest + self._d0
        table[1 << np.arange(k)] = rest + self._singles
        return table

    @property
    def epsilon(self) -> float:
        """Computed in logs: ``R`` may underflow while the ratio is finite."""
        log_rest = self._log_rest
        excess = np.append(self._singles, self._d0)
        d_hi, d_lo = float(excess.max()), float(excess.min())
        hi = float(np.logaddexp(log_rest, math.log(d_hi))) if d_hi > 0 else log_rest
        if d_lo >= 0:
            return hi - log_rest
        lo_val = math.exp(log_rest) + d_lo
        return math.inf if lo_val <= 0 else hi - math.log(lo_val)

    def marginal_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        a = np.asarray(self._sizes, dtype=float)
        log_n = float(np.sum(np.log(a)))
        q_over_a = np.exp(self._log_rest + log_n - np.log(a))  # R * N / a_j
        total_single = float(np.sum((a - 1.0) * self._singles))
        keep = self._d0 + total_single - (a - 1.0) * self._singles + q_over_a
        other = self._singles + q_over_a
        return keep, other

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw one of ``k + 2`` branches: no change, one attribute changed, or >= 2 changed.

        "Two or more changed" is a uniform record conditioned on >= 2
        differences, drawn by vectorized rejection.
        """
        arr = check_codes(codes, self._sizes)
        out = arr.astype(np.int64, copy=True)
        n, k = arr.shape
        sizes = np.asarray(self._sizes, dtype=np.int64)
        rest = math.exp(self._log_rest)
        x0 = rest + self._d0
        single_mass = (sizes - 1) * (rest + self._singles)
        rest_mass = max(0.0, 1.0 - x0 - float(single_mass.sum()))
        probs = np.concatenate(([x0], single_mass, [rest_mass]))
        branch = rng.choice(k + 2, size=n, p=probs / probs.sum())
        rows = np.flatnonzero((branch >= 1) & (branch <= k))
        cols = branch[rows] - 1
        shift = rng.integers(1, sizes[cols]) if rows.size else np.zeros(0, np.int64)
        out[rows, cols] = (out[rows, cols] + shift) % sizes[cols]
        pending = np.flatnonzero(branch == k + 1)
        original = out[pending].copy()
        while pending.size:  # uniform record conditioned on >= 2 differences
            draw = rng.integers(0, sizes, size=(pending.size, k))
            ok = (draw != original).sum(axis=1) >= 2
            out[pending[ok]] = draw[ok]
            pending, original = pending[~ok], original[~ok]
        return _restore_shape(out, codes)

    def __repr__(self) -> str:
        return f"CompactPattern(sizes=<{len(self._sizes)} attributes>, epsilon={self.epsilon:.6g})"


class KroneckerPattern(PatternMechanism):
    """A λ-randomization product seen as a pattern mechanism (the Kronecker baseline).

    Sampling, estimation and epsilon are the product's own (independent
    per-attribute draws, the axis-wise exact inverse, the sum of factor
    epsilons); the level table and marginals follow from the λ's.
    """

    def __init__(self, product: LambdaRandomization) -> None:
        super().__init__(product.sizes)
        self._product = product

    @property
    def product(self) -> LambdaRandomization:
        return self._product

    def levels(self) -> np.ndarray:
        return self._product.levels()

    @property
    def epsilon(self) -> float:
        return self._product.epsilon

    def marginal_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        a = np.asarray(self._sizes, dtype=float)
        lam = np.asarray(self._product.lambdas)
        return lam + (1.0 - lam) / a, (1.0 - lam) / a

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self._product.perturb(codes, rng)

    def _solve(self, observed: np.ndarray) -> np.ndarray:
        return self._product.estimate(observed)

    def __repr__(self) -> str:
        return f"KroneckerPattern({self._product!r})"
