"""Distributed discrete noise for secure sums: the Skellam mechanism, its sampler and its accountant.

**The mechanism** (Agarwal, Kairouz & Liu, "The Skellam Mechanism for Differentially
Private Federated Learning", NeurIPS 2021).  Each client adds integer noise
``Sk(v) = Poisson(v/2) - Poisson(v/2)`` (mean 0, variance ``v``) to every cell of its
integer vector before it enters the secure sum.  Sums of independent Skellam draws are
*exactly* Skellam (``Sk(a) + Sk(b) = Sk(a + b)``: Poisson sums are Poisson), so whatever
set of honest clients survives, their noise in the total is exactly ``Sk(sum of their
variances)`` and the accounting below is exact, not a bound.  (The distributed discrete
Gaussian of Kairouz, Liu & Steinke, ICML 2021, loses this: a sum of discrete Gaussians is
only close to one, their Thm. 1, which adds a slack term to every claim.)

**The sampler.**  Two Poisson draws from the generator the caller passes in
(:func:`skellam_noise`): a seeded ``numpy.random.Generator`` in simulations, the ChaCha20
generator of :func:`mpc_rr.core.csprng_generator` (keyed from the OS CSPRNG) in
deployments.  numpy's Poisson sampler (PTRS transformed rejection, Hörmann 1993, for means
>= 10; inversion below) is floating-point: its pmf matches Poisson's to double precision,
the same sampler class Agarwal et al. use; the outputs are integers, so the float
artefacts of a textbook continuous Laplace (Mironov 2012) do not arise.  An exact sampler
with integer arithmetic only is :func:`mpc_rr.privacy.discrete_gaussian` (Canonne, Kamath &
Steinke 2020).

**The accountant.**  The pmf of ``Sk(v)`` is ``p(k) = e^-v I_|k|(v)`` (modified Bessel
function; ``scipy.special.ive``).  A replaced record moves the pipeline's dependence
vector by +-1 in at most ``d`` cells (``d = L1``, each coordinate by at most 1, see
:func:`dependence_sensitivity`); the noise is independent per cell, so the privacy loss of
the whole vector is the sum of ``d`` copies of the unit-shift loss
``L(k) = ln p(k) - ln p(k - 1)``, ``k ~ Sk(v)`` (a shift by -1 has the mirror loss, the
same distribution, since ``p`` is symmetric).  :func:`skellam_pld` builds that loss
distribution pessimistically (losses rounded up onto the grid, the truncated tails to the
infinite loss) and composes it ``d`` times with ``dp-accounting``'s PLD accountant
(Doroshenko et al. 2022), which gives the tight (epsilon, delta).  :func:`skellam_rdp` is
the closed-form RDP bound of Agarwal et al. (Thm. 3.5) for general L1/L2 sensitivities,
kept as a cross-check (it is looser).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import special

from mpc_rr.core import UsageError
from mpc_rr.privacy._compose import DISCRETIZATION

if TYPE_CHECKING:
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

__all__ = [
    "Sensitivity",
    "dependence_sensitivity",
    "skellam_epsilon",
    "skellam_noise",
    "skellam_pld",
    "skellam_pmf",
    "skellam_rdp",
    "skellam_tail_radius",
    "skellam_variance",
]

_TAIL = 1e-15  # Skellam mass left out on each side of the loss support (to the infinite loss)


def _check_variance(variance: float, name: str = "variance") -> float:
    v = float(variance)
    if not (math.isfinite(v) and v > 0):
        raise UsageError(f"{name} must be finite and > 0, got {variance}")
    return v


def skellam_noise(
    variance: float, size: int | tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """``Sk(variance)`` draws: ``Poisson(v/2) - Poisson(v/2)`` (int64), mean 0, variance ``v``.

    ``rng`` is the caller's: seeded in simulations, :func:`mpc_rr.core.csprng_generator`
    (ChaCha20 keyed by the OS) in deployments.
    """
    v = _check_variance(variance)
    if not isinstance(rng, np.random.Generator):
        raise UsageError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    a = rng.poisson(v / 2, size)
    b = rng.poisson(v / 2, size)
    out: np.ndarray = (a - b).astype(np.int64)
    return out


def skellam_pmf(k: np.ndarray | int, variance: float) -> np.ndarray:
    """Exact pmf of ``Sk(variance)`` at integers ``k``: ``e^-v I_|k|(v)`` (Skellam 1946)."""
    v = _check_variance(variance)
    kk = np.abs(np.asarray(k, dtype=np.int64))
    out: np.ndarray = special.ive(kk, v)
    return out


def _support(v: float) -> np.ndarray:
    """Integers ``k`` outside which ``Sk(v)`` has less than ``_TAIL`` mass on each side."""
    half = math.ceil(skellam_tail_radius(v, _TAIL)) + 1
    return np.arange(-half, half + 1, dtype=np.int64)


def skellam_tail_radius(v: float, beta: float) -> float:
    """Smallest ``t`` with the Chernoff bound ``P(Sk(v) >= t) <= beta`` (one side; ``Sk`` is
    symmetric, so ``P(|Sk(v)| >= t) <= 2 beta``).

    ``E e^{lambda Z} = exp(v (cosh lambda - 1))``; at ``lambda = asinh(t / v)`` the bound is
    ``exp(v (sqrt(1 + (t/v)^2) - 1) - t asinh(t/v))``, decreasing in ``t``: bisect.
    """
    v = _check_variance(v, "v")
    if not 0 < beta < 1:
        raise UsageError(f"beta must be in (0, 1), got {beta}")
    target = math.log(beta)

    def log_bound(t: float) -> float:
        r = t / v
        return v * (math.sqrt(1 + r * r) - 1) - t * math.asinh(r)

    lo, hi = 0.0, max(1.0, 2 * math.sqrt(v))
    while log_bound(hi) > target:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if log_bound(mid) > target else (lo, mid)
    return hi


@dataclass(frozen=True)
class Sensitivity:
    """How far one neighbouring record moves an integer vector: ``l1``, ``l2``, ``linf``.

    ``cells``: how many coordinates move (each by at most ``linf``).
    """

    l1: int
    l2: float
    linf: int
    relation: str

    @property
    def cells(self) -> int:
        return self.l1 // self.linf


def dependence_sensitivity(attributes: int, relation: str = "replace-one") -> Sensitivity:
    """Sensitivity of the dependence phase's vector (one one-hot block per attribute pair).

    A party's vector holds, for each of the ``P = m(m-1)/2`` attribute pairs, the one-hot
    indicator of its pair of values.  ``replace-one`` (the ledger's relation: neighbouring
    data sets differ in one party's record): in every pair where the record changes, one
    cell loses 1 and another gains 1, so ``L1 = 2P``, ``L2 = sqrt(2P)``, ``Linf = 1``.
    ``add-remove``: one cell per pair gains (or loses) 1, ``L1 = P``, ``L2 = sqrt(P)``.
    """
    m = int(attributes)
    if m < 2:
        raise UsageError(f"attributes must be >= 2 (a pair), got {attributes}")
    pairs = m * (m - 1) // 2
    if relation == "replace-one":
        cells = 2 * pairs
    elif relation == "add-remove":
        cells = pairs
    else:
        raise UsageError(f"relation must be 'replace-one' or 'add-remove', got {relation!r}")
    return Sensitivity(l1=cells, l2=math.sqrt(cells), linf=1, relation=relation)


def skellam_pld(
    variance: float, cells: int, discretization: float | None = None
) -> PrivacyLossDistribution:
    """PLD of ``Sk(variance)`` noise on a vector moved by +-1 in ``cells`` coordinates.

    Pessimistic (see the module docstring): every loss is rounded up onto the grid, the
    mass beyond the support goes to the infinite loss, then ``cells``-fold composition.
    The rounding adds at most ``cells * discretization`` to epsilon: the default grid,
    ``min(DISCRETIZATION, 0.01 / cells)``, keeps that below 0.01.
    """
    from dp_accounting.pld import pld_pmf, privacy_loss_distribution

    v = _check_variance(variance)
    if int(cells) < 1:
        raise UsageError(f"cells must be >= 1, got {cells}")
    if discretization is None:
        discretization = min(DISCRETIZATION, 0.01 / int(cells))
    k = _support(v)
    logp = np.log(special.ive(np.abs(k), v))
    mass = np.exp(logp[1:])  # P-mass at k[1:]
    loss = logp[1:] - logp[:-1]  # ln p(k) - ln p(k - 1)
    inside = float(mass.sum())
    idx = np.ceil(loss / discretization - 1e-9).astype(np.int64)
    base = int(idx.min())
    sums = np.bincount(idx - base, weights=mass)
    probs = {base + i: float(w) for i, w in enumerate(sums) if w > 0}
    infinity = min(max(1.0 - inside, 0.0), 1.0)
    pmf = pld_pmf.create_pmf(probs, discretization, infinity, True)
    pld = privacy_loss_distribution.PrivacyLossDistribution(pmf)
    return pld.self_compose(int(cells)) if int(cells) > 1 else pld


def skellam_epsilon(variance: float, cells: int, delta: float) -> float:
    """Central epsilon at ``delta`` of ``Sk(variance)`` noise, ``cells`` unit shifts (tight PLD)."""
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")
    return float(skellam_pld(variance, cells).get_epsilon_for_delta(delta))


def skellam_variance(epsilon: float, delta: float, cells: int, rel_tol: float = 1e-3) -> float:
    """Smallest central Skellam variance (to ``rel_tol``) with ``skellam_epsilon <= epsilon``.

    The epsilon at fixed delta decreases with the variance; bisection on ``ln v``.
    """
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise UsageError(f"epsilon must be finite and > 0, got {epsilon}")
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")
    # start from the Gaussian mechanism's analytic scale (L2 = sqrt(cells))
    guess = 2 * cells * math.log(1.25 / delta) / epsilon**2
    lo, hi = guess / 8, guess
    while skellam_epsilon(hi, cells, delta) > epsilon:
        lo, hi = hi, hi * 2
    while skellam_epsilon(lo, cells, delta) <= epsilon:
        lo, hi = lo / 2, lo
    while hi / lo > 1 + rel_tol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if skellam_epsilon(mid, cells, delta) <= epsilon else (mid, hi)
    return hi


def skellam_rdp(order: float, variance: float, l1: float, l2: float) -> float:
    """Closed-form RDP bound of the Skellam mechanism (Agarwal, Kairouz & Liu 2021, Thm. 3.5).

    Noise ``Sk(v)`` per coordinate (variance ``v``; each Poisson has mean ``v/2``) on an integer
    query of sensitivities ``l1``, ``l2``: ``(alpha, eps(alpha))``-RDP for integer ``alpha > 1``,
    ``eps = alpha l2^2 / (2 v) + min(((2 alpha - 1) l2^2 + 6 l1) / (4 v^2), 3 l1 / (2 v))``.
    The first term is the Gaussian mechanism's RDP at variance ``v``.
    """
    a = float(order)
    if not a > 1:
        raise UsageError(f"order must be > 1, got {order}")
    v = _check_variance(variance)
    return a * l2**2 / (2 * v) + min(((2 * a - 1) * l2**2 + 6 * l1) / (4 * v**2), 3 * l1 / (2 * v))
