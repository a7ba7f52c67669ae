"""The exact discrete Gaussian sampler of Canonne, Kamath & Steinke (NeurIPS 2020), vectorized.

``N_Z(0, sigma^2)``: ``P(k) proportional to exp(-k^2 / (2 sigma^2))`` on the integers.  Their
algorithms use only uniform integers and exact rational comparisons -- no floating point
anywhere in an acceptance test:

* **Bernoulli(exp(-gamma))** for rational ``gamma = num/den`` (their Algorithm 1):
  for ``gamma <= 1``, draw ``A_k ~ Bernoulli(gamma / k)`` for ``k = 1, 2, ...`` until one is 0
  and return 1 iff the number of draws is odd; for ``gamma > 1``, ``floor(gamma)``
  Bernoulli(exp(-1)) draws must all be 1, then Bernoulli(exp(-(gamma - floor gamma))).
  ``Bernoulli(num / (den k))`` is ``U < num`` with ``U`` uniform on ``[0, den k)``.
* **Discrete Laplace** with integer scale ``t`` (Algorithm 2): ``U`` uniform on ``[0, t)``,
  kept with probability ``exp(-U/t)``; ``V`` geometric (Bernoulli(exp(-1)) successes);
  ``X = U + tV``; a sign; ``-0`` rejected.
* **Discrete Gaussian** (Algorithm 3): ``t = floor(sigma) + 1``; a discrete Laplace ``Y`` is
  kept with probability ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))``.

Every step runs on numpy batches (candidates drawn in bulk, rejected ones redrawn).
Uniform integers come from ``rng.integers`` (numpy's unbiased bounded integers) of the
caller's generator: seeded in simulations, :func:`mpc_rr.core.csprng_generator` in
deployments.  ``sigma^2`` is a rational (a float is read as the nearest fraction with
denominator at most 2^10); products stay below 2^62 in int64 or the call is refused.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["discrete_gaussian", "discrete_gaussian_pmf"]

_LIMIT = 1 << 62


def _bern_exp_small(num: np.ndarray, den: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) elementwise for ``0 <= num <= den`` (CKS Alg. 1, gamma <= 1)."""
    k = np.ones(num.shape, np.int64)
    alive = np.ones(num.shape, bool)
    while alive.any():
        idx = np.flatnonzero(alive)
        high = den[idx] * k[idx]
        if int(high.max()) >= _LIMIT:
            raise UsageError("discrete Gaussian: an exact comparison exceeds 2^62")
        hit = rng.integers(0, high) < num[idx]
        k[idx[hit]] += 1
        alive[idx[~hit]] = False
    out: np.ndarray = (k % 2) == 1
    return out


def _bern_exp(num: np.ndarray, den: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) elementwise for any ``num/den >= 0`` (CKS Alg. 1)."""
    whole = num // den
    out = np.ones(num.shape, bool)
    one = np.ones(num.shape, np.int64)
    for j in range(int(whole.max(initial=0))):
        idx = np.flatnonzero(out & (whole > j))
        out[idx] = _bern_exp_small(one[idx], one[idx], rng)
    idx = np.flatnonzero(out)
    out[idx] = _bern_exp_small(num[idx] - whole[idx] * den[idx], den[idx], rng)
    return out


def _discrete_laplace(t: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` candidates of CKS Alg. 2 (scale ``t``): accepted draws, fewer than ``m``."""
    u = rng.integers(0, t, m)
    keep = _bern_exp_small(u, np.full(m, t, np.int64), rng)
    v = np.zeros(m, np.int64)
    alive = keep.copy()
    one = np.ones(m, np.int64)
    while alive.any():
        idx = np.flatnonzero(alive)
        a = _bern_exp_small(one[idx], one[idx], rng)
        v[idx[a]] += 1
        alive[idx[~a]] = False
    x = u + t * v
    neg = rng.integers(0, 2, m).astype(bool)
    ok = keep & ~(neg & (x == 0))
    out: np.ndarray = np.where(neg, -x, x)[ok]
    return out


def _rational(sigma2: float | Fraction) -> Fraction:
    s = (
        sigma2
        if isinstance(sigma2, Fraction)
        else Fraction(float(sigma2)).limit_denominator(1 << 10)
    )
    if not s > 0:
        raise UsageError(f"sigma2 must be > 0, got {sigma2}")
    return s


def discrete_gaussian(sigma2: float | Fraction, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` exact draws of ``N_Z(0, sigma2)`` (int64; CKS 2020 Algorithm 3, batched)."""
    if not isinstance(rng, np.random.Generator):
        raise UsageError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if size < 0:
        raise UsageError(f"size must be >= 0, got {size}")
    s = _rational(sigma2)
    n, d = s.numerator, s.denominator
    t = math.isqrt(n // d) + 1  # floor(sigma) + 1
    out: list[np.ndarray] = []
    have = 0
    while have < size:
        m = max(64, 2 * (size - have))
        y = _discrete_laplace(t, m, rng)
        # gamma = (|Y| - s/t)^2 / (2 s) = (|Y| t d - n)^2 / (2 n d t^2)
        top = np.abs(y) * (t * d) - n
        if y.size and (int(np.abs(top).max()) >= 1 << 31 or 2 * n * d * t * t >= _LIMIT):
            raise UsageError(
                f"discrete Gaussian: sigma2 = {s} is too large for exact int64 arithmetic"
            )
        num = top * top
        den = np.full(y.size, 2 * n * d * t * t, np.int64)
        got = y[_bern_exp(num, den, rng)]
        out.append(got)
        have += got.size
    res: np.ndarray = np.concatenate(out)[:size] if out else np.zeros(0, np.int64)
    return res.astype(np.int64)


def discrete_gaussian_pmf(k: np.ndarray, sigma2: float) -> np.ndarray:
    """The pmf of ``N_Z(0, sigma2)`` at ``k`` (normalised over ``|k| <= 40 sigma + 40``)."""
    s = float(sigma2)
    if not s > 0:
        raise UsageError(f"sigma2 must be > 0, got {sigma2}")
    half = int(40 * math.sqrt(s)) + 40
    grid = np.arange(-half, half + 1)
    z = np.exp(-(grid.astype(float) ** 2) / (2 * s)).sum()
    kk = np.asarray(k, dtype=float)
    out: np.ndarray = np.exp(-(kk**2) / (2 * s)) / z
    return out
