"""Randomization mechanisms for randomized response (RR).

Notation (Domingo-Ferrer & Soria-Comas, Expression 1): ``P[u, v] =
Pr(Y = v | X = u)``; rows are true values, columns reported values, every row
sums to one.  Privacy (Expression 4): RR is epsilon-DP with
``exp(eps) = max_v max_u P[u, v] / min_u P[u, v]``.

Two implementations of :class:`mpc_rr.mechanisms.JointMechanism`:

* :class:`RandomizationMatrix` -- any validated dense matrix (user-supplied),
  optionally over a small product domain (``sizes``).
* :class:`UniformMixture` -- the structured family ``P = a I + (1 - a) J / N``:
  keep the true value with probability ``a``, else report a uniform draw from
  the whole (joint) domain of ``N`` cells.  Never forms an ``N x N`` matrix;
  O(n) sampling and O(N) estimation.  It covers, exactly:

  - keep-or-uniform with parameter ``p`` (Corollary 1 / Sec. 6.3.1; ``a = p``,
    docs/rr_library.md, decision 1: diagonal ``p + (1-p)/N``, off-diagonal ``(1-p)/N``);
  - the epsilon-optimal k-ary RR (``e^eps / (e^eps + k - 1)`` on the diagonal,
    ``a = (e^eps - 1)/(e^eps + k - 1)``);
  - the cluster matrix of Sec. 6.3.2 with the sign slip fixed (docs/rr_library.md, decision 2):
    ``p_C = 1 / (1 + (N - 1) exp(-eps_C))`` on the diagonal and
    ``p_C exp(-eps_C)`` off it, which *is* k-ary RR over the cluster's ``N``
    joint cells at ``eps_C``.

Epsilon of keep-or-uniform (docs/rr_library.md, decision 1): the true value is
``ln(1 + p N / (1 - p))``; the paper prints ``|ln(p N / (1 - p))|``
(:func:`paper_epsilon`, kept only so results can be compared).  The exact
epsilon of a dense matrix is :func:`mpc_rr.mechanisms.local_epsilon` (re-exported
here); the structured family uses its closed form
:func:`mpc_rr.mechanisms.mixture_epsilon`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._domain import check_dense_cells, check_sizes
from mpc_rr.mechanisms._epsilon import local_epsilon, mixture_epsilon

__all__ = [
    "RandomizationMatrix",
    "UniformMixture",
    "cluster_matrix",
    "k_rr",
    "keep_or_uniform",
    "keep_or_uniform_epsilon",
    "local_epsilon",
    "paper_epsilon",
]


def _as_joint_codes(codes: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """Validate ``(n, k)`` (or ``(n,)`` for k=1) codes and return flat joint indices."""
    c = np.asarray(codes)
    if not np.issubdtype(c.dtype, np.integer):
        raise UsageError(f"codes must be integers, got dtype {c.dtype}")
    if c.ndim == 1 and len(sizes) == 1:
        c2 = c[:, None]
    elif c.ndim == 2 and c.shape[1] == len(sizes):
        c2 = c
    else:
        raise UsageError(
            f"codes must have shape (n, {len(sizes)})"
            + (" or (n,)" if len(sizes) == 1 else "")
            + f", got {c.shape}"
        )
    if c2.shape[0] == 0:
        raise UsageError("codes: no records")
    lim = np.asarray(sizes)
    if _out_of_range(c2, lim):  # cheap check first
        i, j = np.argwhere((c2 < 0) | (c2 >= lim))[0]
        raise UsageError(
            f"codes: record {i}, attribute {j}: code {c2[i, j]} outside 0..{sizes[j] - 1}"
        )
    if len(sizes) == 1:
        return c2[:, 0].astype(np.int64, copy=False)
    result: np.ndarray = np.ravel_multi_index(tuple(c2.T), sizes).astype(np.int64, copy=False)
    return result


def _out_of_range(c2: np.ndarray, lim: np.ndarray) -> bool:
    """Whether a code of ``c2`` (``(n, k)`` integers) is negative or ``>=`` its column's limit:
    one pass (the codes read as unsigned, so a negative one is huge) where min and max take two."""
    if c2.dtype.kind == "i":
        return bool((c2.view(c2.dtype.str.replace("i", "u")).max(axis=0) >= lim).any())
    return bool((c2.min(axis=0) < 0).any() or (c2.max(axis=0) >= lim).any())


def _from_joint(flat: np.ndarray, like: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    if len(sizes) == 1:
        return flat.astype(like.dtype, copy=False).reshape(like.shape)
    out = np.stack(np.unravel_index(flat, sizes), axis=1)
    return out.astype(like.dtype, copy=False)


def _check_observed(observed: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    o = np.asarray(observed, dtype=float)
    N = math.prod(sizes)
    if o.shape not in (sizes, (N,)):
        raise UsageError(f"observed must have shape {sizes} (or ({N},)), got {o.shape}")
    return o


class RandomizationMatrix:
    """A dense, validated randomization matrix (square, non-negative, row-stochastic).

    Parameters
    ----------
    matrix:
        ``N x N`` array, ``matrix[u, v] = Pr(report v | true u)``.
    sizes:
        Optional product domain (``prod(sizes) == N``) so the matrix acts on
        records of several attributes (row-major joint index).
    """

    def __init__(self, matrix: np.ndarray, sizes: Sequence[int] | None = None) -> None:
        m = np.array(matrix, dtype=float)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
            raise UsageError(f"randomization matrix must be square and non-empty, got {m.shape}")
        if not np.isfinite(m).all():
            r = int(np.argwhere(~np.isfinite(m))[0][0])
            raise UsageError(f"randomization matrix row {r} has a non-finite entry")
        if (m < 0).any():
            r, c = np.argwhere(m < 0)[0]
            raise UsageError(
                f"randomization matrix row {r} has a negative entry {float(m[r, c]):.6g} at column {c}"
            )
        sums = m.sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > 1e-8)
        if bad.size:
            r = int(bad[0])
            raise UsageError(f"randomization matrix row {r} sums to {float(sums[r]):.6g}, not 1")
        self.matrix = m
        self.matrix.setflags(write=False)
        self._sizes = check_sizes(sizes if sizes is not None else m.shape[0])
        if math.prod(self._sizes) != m.shape[0]:
            raise UsageError(f"sizes {self._sizes} do not multiply to matrix order {m.shape[0]}")
        self._cdf: np.ndarray = np.cumsum(m, axis=1)
        self._cdf[:, -1] = 1.0

    @property
    def sizes(self) -> tuple[int, ...]:
        return self._sizes

    @property
    def epsilon(self) -> float:
        return local_epsilon(self.matrix)

    def dense(self) -> np.ndarray:
        return self.matrix

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Inverse-CDF sampling, grouped by true value: O(n log N), one uniform per record."""
        flat = _as_joint_codes(codes, self._sizes)
        u: np.ndarray = rng.random((flat.shape[0],))
        out = np.empty_like(flat)
        order = np.argsort(flat, kind="stable")
        bounds = np.searchsorted(flat[order], np.arange(self.matrix.shape[0] + 1))
        for val in np.flatnonzero(np.diff(bounds)):  # loop over categories, not records
            idx = order[bounds[val] : bounds[val + 1]]
            out[idx] = np.searchsorted(self._cdf[val], u[idx], side="right")
        np.minimum(out, self.matrix.shape[0] - 1, out=out)
        return _from_joint(out, np.asarray(codes), self._sizes)

    def forward(self, pi: np.ndarray) -> np.ndarray:
        """Report distribution ``P^T pi`` (same shape as ``pi``)."""
        p = np.asarray(pi, dtype=float)
        result: np.ndarray = (self.matrix.T @ p.reshape(-1)).reshape(p.shape)
        return result

    def adjoint(self, r: np.ndarray) -> np.ndarray:
        """``P r`` (used by iterative Bayesian update)."""
        x = np.asarray(r, dtype=float)
        result: np.ndarray = (self.matrix @ x.reshape(-1)).reshape(x.shape)
        return result

    def estimate(self, observed: np.ndarray) -> np.ndarray:
        """Eq. 2 by solving ``P^T pi = observed`` (LU solve, no explicit inverse)."""
        o = _check_observed(observed, self._sizes)
        try:
            sol = np.linalg.solve(self.matrix.T, o.reshape(-1))
        except np.linalg.LinAlgError:
            raise UsageError("estimate: randomization matrix is singular") from None
        return sol.reshape(o.shape)

    def __repr__(self) -> str:
        return f"RandomizationMatrix(N={self.matrix.shape[0]}, sizes={self._sizes})"


class UniformMixture:
    """``P = a I + (1 - a) J / N`` over a product domain, never materialized.

    Parameters
    ----------
    sizes:
        Category count per attribute; ``N = prod(sizes)``.
    keep:
        ``a``, the probability of reporting the true value *without* the
        uniform draw, in ``[0, 1]``.  ``a = 0`` is the degenerate "report a
        uniform draw" mechanism (epsilon 0): P is singular, so ``estimate``
        cannot invert it and returns the uniform distribution (no information
        survives; this is a convention, not an unbiased estimate).
    """

    def __init__(self, sizes: Sequence[int] | int, keep: float) -> None:
        self._sizes = check_sizes(sizes)
        keep = float(keep)
        if not (0.0 <= keep <= 1.0) or math.isnan(keep):
            raise UsageError(f"keep probability must be in [0, 1], got {keep!r}")
        self.keep = keep
        self.N = math.prod(self._sizes)

    @property
    def sizes(self) -> tuple[int, ...]:
        return self._sizes

    @property
    def diagonal(self) -> float:
        return self.keep + (1.0 - self.keep) / self.N

    @property
    def off_diagonal(self) -> float:
        return (1.0 - self.keep) / self.N

    @property
    def epsilon(self) -> float:
        """``ln(1 + a N / (1 - a))``; ``inf`` for ``a = 1`` with ``N > 1``; 0 when N = 1.

        Closed form :func:`mpc_rr.mechanisms.mixture_epsilon` (tested equal to
        :func:`mpc_rr.mechanisms.local_epsilon` of :meth:`dense`).
        """
        return mixture_epsilon(self.keep, self.N)

    def dense(self) -> np.ndarray:
        check_dense_cells(self._sizes)
        return np.full((self.N, self.N), self.off_diagonal) + self.keep * np.eye(self.N)

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Keep with probability ``a``, else uniform over the joint domain.

        One uniform per record decides keep-or-redraw and, rescaled, gives the
        new joint cell: O(n) with a single random array.  A single record (one
        party randomizing its own value) takes a scalar path that consumes the
        generator exactly as the array path does.
        """
        c = np.asarray(codes)
        if c.size == len(self._sizes) and c.ndim <= 2 and np.issubdtype(c.dtype, np.integer):
            return self._perturb_one(c, rng)
        flat = _as_joint_codes(codes, self._sizes)
        u: np.ndarray = rng.random((flat.shape[0],))
        a = self.keep
        if a >= 1.0:
            return np.array(codes, copy=True)
        keep = u < a
        u -= a  # in place: the new cell trunc((u - a) N / (1 - a)), capped at N - 1
        u *= self.N / (1.0 - a)
        np.minimum(u, self.N - 1, out=u)  # before the cast: the same integers, one pass on floats
        fresh = u.astype(np.int64)
        out = flat - fresh  # kept or fresh as integer arithmetic: 2x faster than np.where
        out *= keep
        out += fresh
        return _from_joint(out, np.asarray(codes), self._sizes)

    def _perturb_one(self, c: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        vals = c.reshape(-1).tolist()
        if (len(c.shape) == 1 and len(self._sizes) > 1) or (
            len(c.shape) == 2 and c.shape[1] != len(self._sizes)
        ):
            return _from_joint(
                _as_joint_codes(c, self._sizes), c, self._sizes
            )  # raises the shape error
        for j, (v, s) in enumerate(zip(vals, self._sizes, strict=True)):
            if not 0 <= v < s:
                raise UsageError(f"codes: record 0, attribute {j}: code {v} outside 0..{s - 1}")
        u = rng.random()
        a = self.keep
        if a >= 1.0 or u < a:
            return c.copy()
        cell = min(int((u - a) * (self.N / (1.0 - a))), self.N - 1)
        out = np.unravel_index(cell, self._sizes) if len(self._sizes) > 1 else (cell,)
        return np.array(out, dtype=c.dtype).reshape(c.shape)

    def forward(self, pi: np.ndarray) -> np.ndarray:
        p = np.asarray(pi, dtype=float)
        result: np.ndarray = self.keep * p + (1.0 - self.keep) * p.sum() / self.N
        return result

    adjoint = forward  # symmetric

    def estimate(self, observed: np.ndarray) -> np.ndarray:
        """Closed-form Eq. 2: ``pi = (obs - (1 - a) total / N) / a``, O(N)."""
        o = _check_observed(observed, self._sizes)
        if self.keep == 0.0:
            return np.full(o.shape, o.sum() / self.N)
        result: np.ndarray = (o - (1.0 - self.keep) * o.sum() / self.N) / self.keep
        return result

    def __repr__(self) -> str:
        return f"UniformMixture(sizes={self._sizes}, keep={self.keep:.6g})"


def _check_p(p: float) -> float:
    p = float(p)
    if not (0.0 < p <= 1.0) or math.isnan(p):
        raise UsageError(f"p must be in (0, 1], got {p!r}")
    return p


def keep_or_uniform(size: int | Sequence[int], p: float) -> UniformMixture:
    """Corollary 1 mechanism: keep the true value w.p. ``p``, else uniform (docs/rr_library.md, decision 1)."""
    return UniformMixture(check_sizes(size, name="size"), _check_p(p))


def keep_or_uniform_epsilon(size: int, p: float) -> float:
    """True epsilon of keep-or-uniform: ``ln(1 + p N / (1 - p))``."""
    return keep_or_uniform(size, p).epsilon


def paper_epsilon(size: int, p: float) -> float:
    """The paper's printed Sec. 6.3.1 formula ``|ln(p N / (1 - p))|`` (for comparison only)."""
    n = math.prod(check_sizes(size, name="size"))
    p = _check_p(p)
    if p >= 1.0:
        return math.inf
    return abs(math.log(p * n / (1.0 - p)))


def k_rr(size: int | Sequence[int], epsilon: float) -> UniformMixture:
    """Epsilon-optimal k-ary RR: ``e^eps / (e^eps + N - 1)`` on the diagonal."""
    sizes = check_sizes(size, name="size")
    eps = float(epsilon)
    if not eps >= 0 or math.isnan(eps):
        raise UsageError(f"epsilon must be >= 0, got {epsilon!r}")
    N = math.prod(sizes)
    if math.isinf(eps):
        return UniformMixture(sizes, 1.0)
    # a = (e^eps - 1) / (e^eps + N - 1), written stably for large eps
    a = -math.expm1(-eps) / (1.0 + (N - 1) * math.exp(-eps))
    return UniformMixture(sizes, a)


def cluster_matrix(sizes: Sequence[int], epsilon: float) -> UniformMixture:
    """Sec. 6.3.2 cluster matrix at ``eps_C`` (sign slip fixed; equals k-RR on the cluster)."""
    return k_rr(check_sizes(sizes), epsilon)
