"""Audit of a shuffled release: does the analyst's view leak more than the central epsilon claimed?

The game (docs/privacy.md, "audits"): n parties run k-randomized response
(binary by default) at the *actual* eps0; party 1 holds 0 (world 0) or 1
(world 1), everybody else holds 1 (the adversary knows their data: the worst
case of central DP).  What
the adversary sees depends on the channel:

* ``shuffle`` (anonymous channel, secure sum of one-hot reports): only the
  multiset, of which the number Z of zeros among the n reports is sufficient
  for this pair of worlds (the other values are equally likely in both);
* ``leaky`` (the broken-on-purpose channel, :data:`BROKEN_CHANNELS`): the
  multiset *and* party 1's own report (a channel that leaks the sender).

Each trial draws the sufficient statistic directly (party 1's report, plus
``Bin(n-1, 1/(e^eps0+k-1))`` zeros among the others: exactly the multiset's law),
vectorized over trials.  A threshold test on the statistic (either tail) is
chosen on the first half of the trials and scored on the second half with
one-sided Clopper-Pearson bounds, so the bound is honest:
``eps >= ln((TPR_low - delta) / FPR_up)`` at the stated confidence.  The
claim checked is the accountant's central epsilon for the *declared* eps0
(:func:`mpc_rr.privacy.numerical_epsilon` with the k-RR clone weight); a randomizer
weaker than declared (``actual_epsilon0 > epsilon0``) is the other planted
failure.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from mpc_rr.adversary._stats import check_confidence, check_count, cp_lower, cp_upper
from mpc_rr.core import UsageError
from mpc_rr.privacy import numerical_epsilon

__all__ = ["BROKEN_CHANNELS", "SHUFFLE_CHANNELS", "ShuffleAudit", "audit_shuffle"]

SHUFFLE_CHANNELS = ("shuffle", "leaky")
BROKEN_CHANNELS = ("leaky",)


@dataclass(frozen=True)
class ShuffleAudit:
    """The audit's outcome next to the claim it checks."""

    channel: str
    parties: int
    epsilon0: float  # declared
    actual_epsilon0: float
    delta: float
    trials: int
    confidence: float
    test: str
    tpr_low: float
    fpr_up: float
    epsilon_lower: float
    epsilon_claimed: float
    bound: str
    seconds: float
    k: int = 2

    @property
    def violation(self) -> bool:
        return self.epsilon_lower > self.epsilon_claimed

    def to_json(self) -> dict[str, object]:
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "violation": self.violation}


def _observe(world: int, n: int, eps0: float, channel: str, size: int,
             rng: np.random.Generator, k: int = 2) -> np.ndarray:  # fmt: skip
    """The statistic the adversary sees in ``size`` trials of one world (vectorized)."""
    keep = math.exp(eps0) / (math.exp(eps0) + k - 1)  # P(report = own value)
    other = 1.0 / (math.exp(eps0) + k - 1)  # P(report = one given other value)
    r1_zero = rng.random(size) < (keep if world == 0 else other)
    z = r1_zero.astype(np.int64) + rng.binomial(n - 1, other, size)
    if channel == "leaky":  # the sender's own report first, then the multiset
        return np.asarray(r1_zero, np.int64) * (n + 1) + z
    return z


def _best_test(s0: np.ndarray, s1: np.ndarray, top: int) -> tuple[int, bool]:
    """Threshold and tail maximizing the plug-in ratio TPR / FPR on the pilot half."""
    h0 = np.bincount(s0, minlength=top + 1)[: top + 1]
    h1 = np.bincount(s1, minlength=top + 1)[: top + 1]
    best, arg = -np.inf, (0, True)
    m = len(s0)
    for upper in (True, False):  # "s >= t says world 0" or "s <= t says world 1"
        a, b = (h0, h1) if upper else (h1[::-1], h0[::-1])
        tp = np.cumsum(a[::-1])[::-1]  # tp[t] = #{s >= t} in the guessed world
        fp = np.cumsum(b[::-1])[::-1]
        score = np.log((tp + 0.5) / m) - np.log((fp + 0.5) / m)
        score[tp < 20] = -np.inf  # too rare to confirm on the second half
        t = int(np.argmax(score))
        if score[t] > best:
            best, arg = float(score[t]), (t if upper else top - t, upper)
    return arg


def audit_shuffle(
    epsilon0: float, parties: int, *, channel: str = "shuffle", actual_epsilon0: float | None = None,
    delta: float = 1e-6, trials: int = 200_000, confidence: float = 0.95, seed: int = 0, k: int = 2,
) -> ShuffleAudit:  # fmt: skip
    """Empirical lower bound on the shuffled release's central epsilon against the accountant's claim
    (``k``: the randomizer is k-RR over k values; 2: binary randomized response)."""
    if channel not in SHUFFLE_CHANNELS:
        raise UsageError(f"channel must be one of {SHUFFLE_CHANNELS}, got {channel!r}")
    k = check_count(k, "k", 2)
    parties = check_count(parties, "parties", 2)
    trials = check_count(trials, "trials", 100)
    conf = check_confidence(confidence)
    actual = epsilon0 if actual_epsilon0 is None else actual_epsilon0
    if not (actual > 0 and math.isfinite(actual)):
        raise UsageError(f"actual epsilon0 must be finite and > 0, got {actual}")
    claim = numerical_epsilon(epsilon0, parties, delta, k=k)
    t0 = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5AFF1E]))
    half = trials // 2
    s = [_observe(w, parties, actual, channel, 2 * half, rng, k) for w in (0, 1)]
    top = 2 * parties + 2
    t, upper = _best_test(s[0][:half], s[1][:half], top)
    e0, e1 = s[0][half:], s[1][half:]
    if upper:  # s >= t -> world 0
        tp, fp, test = int((e0 >= t).sum()), int((e1 >= t).sum()), f"statistic >= {t} says world 0"
    else:
        tp, fp, test = int((e1 <= t).sum()), int((e0 <= t).sum()), f"statistic <= {t} says world 1"
    alpha = (1 - conf) / 2  # split between the two one-sided bounds (union bound)
    tpr, fpr = cp_lower(tp, half, alpha), cp_upper(fp, half, alpha)
    eps_lb = max(0.0, math.log((tpr - delta) / fpr)) if tpr > delta and fpr > 0 else 0.0
    return ShuffleAudit(channel, parties, epsilon0, actual, delta, trials, conf, test, tpr, fpr,
                        eps_lb, claim.central_epsilon, claim.bound, time.perf_counter() - t0, k)  # fmt: skip
