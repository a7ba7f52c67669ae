"""Empirical lower bound for the noise inside a secure sum (the noisy-counts phase).

The attacker knows the neighbouring pair: two data sets that differ in one party's record,
so the sum's cells differ by +-1 in the ``L1`` cells the record moves
(:func:`mpc_rr.privacy.dependence_sensitivity`).  It sees those cells of the published
counts: exact counts plus the noise of the honest survivors only (the worst case the claim
covers: ``honest`` parties, each adding the run's per-party noise, clipped and offset as
in the pipeline -- :func:`mpc_rr.secure_sum.offset_noisy_input`; the colluders' noise is
known and removed).  Its statistic is the signed sum of those cells (the likelihood-ratio
direction), and it says "the record is x'" when the statistic reaches a threshold.

For an (epsilon, delta)-DP release, ``P(S >= tau | x') <= e^eps P(S >= tau | x) + delta``, so
with Clopper-Pearson bounds (each at ``(1 - confidence) / 2``)

    epsilon_lower = ln((TP_lo - delta) / FP_hi)

(Jagielski, Ullman & Oprea 2020; LDP-Auditor, Arcolezi & Gambs 2024).  The threshold is
chosen on a first half of the trials and the bound computed on the second half, so the
choice does not bias it.  Every trial draws each honest party's noise afresh.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mpc_rr.adversary._stats import check_confidence, check_count, cp_lower, cp_upper
from mpc_rr.secure_sum import SumNoise
from mpc_rr.secure_sum._noise import offset_noisy_input

__all__ = ["NoiseAudit", "audit_sum_noise"]


@dataclass(frozen=True)
class NoiseAudit:
    """The audit's figure next to the claim it audits."""

    epsilon_lower: float
    claimed_epsilon: float
    delta: float
    trials: int
    threshold: int
    honest: int

    def consistent(self) -> bool:
        return self.epsilon_lower <= self.claimed_epsilon


def _statistic(noise: SumNoise, honest: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """The signed sum of the moved cells' noise, per trial (the exact counts cancel)."""
    cells = noise.sensitivity.cells
    signs = np.where(np.arange(cells) % 2 == 0, 1, -1)
    offset = 64 * max(1, math.ceil(math.sqrt(noise.client_variance)))  # far beyond any draw
    zero = np.zeros(cells * trials, np.int64)
    total = np.zeros(cells * trials, np.int64)
    for _ in range(honest):
        total += offset_noisy_input(zero, noise, offset, rng) - offset
    out: np.ndarray = (total.reshape(trials, cells) * signs).sum(axis=1)
    return out


def _bound(s0: np.ndarray, s1: np.ndarray, tau: int, delta: float, level: float) -> float:
    tp = int((s1 >= tau).sum())
    fp = int((s0 >= tau).sum())
    lo = cp_lower(tp, s1.size, level) - delta
    hi = cp_upper(fp, s0.size, level)
    return math.log(lo / hi) if lo > 0 and hi > 0 else 0.0


def audit_sum_noise(
    noise: SumNoise,
    trials: int,
    rng: np.random.Generator,
    *,
    honest: int | None = None,
    confidence: float = 0.95,
) -> NoiseAudit:
    """Lower bound on the central epsilon of ``noise`` from ``trials`` runs per world.

    ``honest``: how many parties' noise reaches the counts (default ``noise.honest_min``,
    the fewest the claim allows).
    """
    check_count(trials, "trials", 100)
    level = (1.0 - check_confidence(confidence)) / 2
    h = noise.honest_min if honest is None else check_count(honest, "honest")
    shift = noise.sensitivity.cells  # world x': each moved cell one step along its sign
    half = trials // 2
    s0 = _statistic(noise, h, trials, rng)
    s1 = _statistic(noise, h, trials, rng) + shift
    a0, b0, a1, b1 = s0[:half], s0[half:], s1[:half], s1[half:]
    grid = np.unique(np.quantile(a1, np.linspace(0.5, 0.999, 60)).astype(np.int64))
    tau = int(max(grid, key=lambda t: _bound(a0, a1, int(t), noise.delta, level)))
    return NoiseAudit(_bound(b0, b1, tau, noise.delta, level), noise.epsilon, noise.delta,
                      int(trials), tau, h)  # fmt: skip
