"""Composition with privacy-loss distributions (Google's ``dp-accounting``, Apache-2.0).

A party's record takes part in several releases: the m(m-1)/2 pair releases
of the dependence phase (Sec. 4.3), then the clustered release, or an RRBA
client's answers over its view.  Each release is one mechanism; the record's
central privacy is their *composition*, computed exactly (up to a pessimistic
discretization of the loss) by convolving their privacy-loss distributions
(PLDs: Koskela et al. 2020; Doroshenko et al. 2022, as implemented in
``dp_accounting.pld``).

The PLD of a shuffled release is the PLD of FMT's dominating pair (P, Q)
(:mod:`mpc_rr.privacy._shuffle`): outcomes (c, k), loss
``ln P(k|c) / Q(k|c) = ln((alpha r + 1 - alpha) / ((1 - alpha) r + alpha))``
with ``r = k / (c + 1 - k)``.  It is built pessimistically: c is binned down
(valid: the pair at c is a post-processing of the pair at any smaller c),
k is binned with each bin's mass put at its largest loss, and every
truncated tail goes to the infinite-loss mass.  A direct release of an
eps0-LDP report is dominated by the pure (eps0, 0) PLD; k-RR by
``from_randomized_response`` (exact).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import special, stats

from mpc_rr.core import UsageError
from mpc_rr.privacy._shuffle import clone_probability

if TYPE_CHECKING:
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

__all__ = ["DISCRETIZATION", "Mechanism", "compose", "epsilon_for_delta", "mechanism_pld"]

DISCRETIZATION = 1e-3  # loss grid of every PLD (pessimistic rounding: losses rounded up)
_C_POINTS = 160
_K_POINTS = 400
_TAIL = 1e-12  # mass left out on each truncated axis (goes to the infinite loss)


@dataclass(frozen=True)
class Mechanism:
    """One release of every party's report: its local eps0, k (k-RR) or None, and its channel.

    ``shuffled`` (the analyst sees only the multiset of ``parties`` reports) or not (direct).
    """

    epsilon0: float
    parties: int
    shuffled: bool
    k: int | None = None

    def key(self) -> tuple[float, int, bool, int | None]:
        return (round(self.epsilon0, 12), self.parties, self.shuffled, self.k)


def _binomial_cdf(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """P(Bin(c, 1/2) <= x) elementwise, 0 below 0 and 1 at/after c."""
    xx = np.clip(x, 0, np.maximum(c - 1, 0))
    val = special.betainc(np.maximum(c - xx, 1e-300), xx + 1, 0.5)
    return np.where(x < 0, 0.0, np.where(x >= c, 1.0, val))


def _shuffled_losses(eps0: float, n: int, q: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(loss, P-mass) points of the dominating pair, pessimistic, and the mass left out."""
    alpha = 1.0 / (1.0 + math.exp(-eps0))
    if n == 1:
        c_pts, wc, left = np.zeros(1), np.ones(1), 0.0
    else:
        lo = max(int(stats.binom.ppf(_TAIL, n - 1, q)), 0)
        hi = min(int(stats.binom.isf(_TAIL, n - 1, q)), n - 1)
        edges = np.unique(np.linspace(lo, hi + 1, min(hi + 2 - lo, _C_POINTS + 1)).astype(np.int64))
        cdf = stats.binom.cdf(edges - 1, n - 1, q)
        c_pts, wc = edges[:-1].astype(float), np.diff(cdf)
        left = float(cdf[0] + stats.binom.sf(edges[-1] - 1, n - 1, q))
    # K = A + Delta in 0..c+1; window of k per c, cut into at most _K_POINTS bins
    sd = np.sqrt(c_pts) / 2 + 1
    z = 7.5  # Bin(c, 1/2) beyond 7.5 sd: < 1e-13 of the mass (to the infinite loss)
    k_lo = np.maximum(np.floor(c_pts / 2 - z * sd), 0)
    k_hi = np.minimum(np.ceil(c_pts / 2 + z * sd) + 1, c_pts + 1)
    frac = np.linspace(0.0, 1.0, _K_POINTS + 1)
    # bin upper ends u_j (inclusive), from k_lo - 1 (nothing) to k_hi
    ends = np.floor((k_lo - 1)[:, None] + frac[None, :] * (k_hi - k_lo + 1)[:, None])
    cc = c_pts[:, None]

    def p_cdf(k: np.ndarray) -> np.ndarray:  # P(A + Delta <= k)
        return alpha * _binomial_cdf(k - 1, cc) + (1 - alpha) * _binomial_cdf(k, cc)

    pc = p_cdf(ends)
    mass = np.diff(pc, axis=1)  # P-mass of each bin (ends[j-1], ends[j]]
    top = np.maximum(ends[:, 1:], 0.0)
    r = top / np.maximum(cc + 1 - top, 1e-300)
    with np.errstate(divide="ignore"):
        loss = np.where(
            top >= cc + 1,
            math.log(alpha / (1 - alpha)),
            np.log((alpha * r + 1 - alpha) / ((1 - alpha) * r + alpha)),
        )
    inside = (pc[:, -1] - pc[:, 0]).clip(0, 1)
    left += float(np.dot(wc, 1.0 - inside))
    return loss.ravel(), (wc[:, None] * mass).ravel(), left


def mechanism_pld(m: Mechanism, discretization: float = DISCRETIZATION) -> PrivacyLossDistribution:
    """The PLD of one release (see the module docstring)."""
    from dp_accounting.pld import pld_pmf, privacy_loss_distribution
    from dp_accounting.pld.common import DifferentialPrivacyParameters

    if not (math.isfinite(m.epsilon0) and m.epsilon0 > 0):
        raise UsageError(f"a release's epsilon0 must be finite and > 0, got {m.epsilon0}")
    if not m.shuffled:
        if m.k is not None:  # keep-or-uniform(p) over k values = k-RR at eps0
            p_keep = math.expm1(m.epsilon0) / (math.expm1(m.epsilon0) + m.k)
            return privacy_loss_distribution.from_randomized_response(
                1.0 - p_keep, m.k, value_discretization_interval=discretization
            )
        return privacy_loss_distribution.from_privacy_parameters(
            DifferentialPrivacyParameters(m.epsilon0, 0.0), discretization
        )
    loss, mass, left = _shuffled_losses(m.epsilon0, m.parties, clone_probability(m.epsilon0, m.k))
    keep = mass > 0
    idx = np.ceil(loss[keep] / discretization - 1e-9).astype(np.int64)
    base = int(idx.min())
    sums = np.bincount(idx - base, weights=mass[keep])
    probs = {base + i: float(v) for i, v in enumerate(sums) if v > 0}
    pmf = pld_pmf.create_pmf(probs, discretization, min(max(left, 0.0), 1.0), True)
    return privacy_loss_distribution.PrivacyLossDistribution(pmf)


def compose(mechanisms: Iterable[Mechanism], discretization: float = DISCRETIZATION) -> Any:
    """PLD of the composition of every release (identical ones self-composed once)."""
    counts: dict[tuple[float, int, bool, int | None], tuple[Mechanism, int]] = {}
    for m in mechanisms:
        got = counts.get(m.key())
        counts[m.key()] = (m, 1 if got is None else got[1] + 1)
    if not counts:
        raise UsageError("nothing to compose: no release")
    total: Any = None
    for m, times in counts.values():
        pld = mechanism_pld(m, discretization)
        if times > 1:
            pld = pld.self_compose(times)
        total = pld if total is None else total.compose(pld)
    return total


def epsilon_for_delta(pld: Any, delta: float) -> float:
    """The smallest epsilon the PLD certifies at ``delta`` (``inf`` when none)."""
    return float(pld.get_epsilon_for_delta(delta))
