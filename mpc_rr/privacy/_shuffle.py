"""Privacy amplification by shuffling: Feldman, McMillan & Talwar, "Hiding Among the Clones" (FOCS 2021).

The setting (their Sec. 2): n parties each run an epsilon0-LDP randomizer on
their own record and the analyst sees only the *multiset* of the n reports
(a shuffler, an anonymous channel, or a secure sum of one-hot reports, which
reveals the histogram and nothing else).  Neighbouring data sets differ in one
party's record.

**The clone reduction (FMT21 Sec. 3, the lemma behind their Thm 3.1).**  For any
epsilon0-LDP randomizer R and inputs x1^0, x1^1 of party 1, every other party's R(x) is
a mixture ``q/2 R(x1^0) + q/2 R(x1^1) + (1-q) LO(x)`` with ``q = e^-epsilon0``; so each
other party is, with probability q, a "clone" of party 1 (of either input,
half/half).  Post-processing reduces the shuffled output to the pair
(P, Q) on (a, b) = (clones looking like x1^0, clones looking like x1^1)::

    C ~ Bin(n-1, q),  A ~ Bin(C, 1/2),  Delta ~ Bern(e^eps0 / (e^eps0 + 1))
    P = (A + Delta, C - A + 1 - Delta),   Q = (A + 1 - Delta, C - A + Delta)

and the shuffled protocol is (eps, delta)-DP wherever the hockey-stick
divergence ``D_{e^eps}(P || Q) <= delta`` (P and Q are mirror images, so one
direction suffices).  **The numerical bound** is FMT21's Appendix E method
(their Algorithm 4, "B": the divergence given C = c; Algorithm 5, "M1": its
expectation over C; binary search on eps), computed here differently:
:func:`shuffle_delta` evaluates the divergence exactly for each c (the loss
``ln P/Q`` being increasing in a, the positive part is one binomial tail per c,
``scipy.special.betainc``, vectorized over c); C is truncated to a window whose
outside mass (below ``delta * 1e-3``) is *added* to delta, so the result is an
upper bound; :func:`central_epsilon` inverts it with Brent's method.

**k-RR (the same reduction, the largest clone weight k-RR allows).**  The reduction
only needs ``q/2 (R(x1^0) + R(x1^1)) <= R(x)`` pointwise.  k-RR at eps0 puts
``e^eps0/D`` on the input and ``1/D`` elsewhere (``D = e^eps0 + k - 1``); the tightest
constraint is at y = x1^0 for an x outside {x1^0, x1^1}: ``q (e^eps0 + 1) / (2D) <= 1/D``,
so ``q = 2 / (e^eps0 + 1)`` for every k (>= e^-eps0; equal to the privacy-blanket
weight of binary RR, Balle et al. CRYPTO 2019).  This is our derivation from
FMT21's reduction, not a numbered theorem; tests check it against the exact
divergence of shuffled k-RR.  Keep-or-uniform(p) on a domain of size k is k-RR at
``eps0 = ln(1 + p k / (1 - p))`` (docs/rr_library.md, decision 1).

**Closed form (FMT21 Thm 3.1)**, stated for ``eps0 <= ln(n / (16 ln(2/delta)))``; we
use the stricter ``ln(4/delta)`` of FMT's reference code::

    eps' = ln(1 + 8 sqrt(e^eps0 ln(4/delta) / n) + 8 e^eps0 / n)
    eps  = ln(1 + (1 - e^-eps0) / (1 + e^-(eps0 + eps')) * (e^eps' - 1))

The second line is the final step as FMT's reference implementation
(github.com/apple/ml-shuffling-amplification, ``closedformanalysis``) computes it;
the theorem's printed ``ln(1 + (e^eps0-1)/(e^eps0+1) * (e^eps' - 1))`` is slightly
*smaller* (by up to ~10%), so we keep the larger, conservative form.  Checked
against the reference implementation's published figures (its README: eps0 = 4,
n = 10^5, delta = 10^-6: numerical search bracket 0.16754-0.17279, closed form
0.5378040242374512) and against a direct, slow evaluation of the same divergence
(tests/mpc_rr/privacy/test_fmt_reference.py; docs/privacy.md has the table).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, special

from mpc_rr.core import UsageError
from mpc_rr.privacy._limits import MAX_PARTIES, check_epsilon0, check_numerical_parties

__all__ = [
    "BOUNDS",
    "Amplification",
    "amplification_curve",
    "central_epsilon",
    "clone_probability",
    "closed_form_epsilon",
    "largest_epsilon0",
    "numerical_epsilon",
    "shuffle_delta",
    "smallest_n",
]

BOUNDS = ("numerical", "closed-form")
THEOREM = {
    "numerical": "FMT21 clone reduction, numerical (App. E)",
    "numerical-krr": "FMT21 clone reduction with k-RR's clone weight 2/(e^eps0+1), numerical (App. E)",
    "closed-form": "FMT21 Thm 3.1, closed form",
}
_TAIL = 1e-3  # fraction of delta allowed for the truncated tails of C (added to delta)
_XTOL = 1e-7
_POINTS = 192  # values of c evaluated exactly; beyond, binned (an upper bound)


def _check(eps0: float, n: int, delta: float) -> None:
    if not (math.isfinite(eps0) and eps0 > 0):
        raise UsageError(f"epsilon0 must be a finite positive number, got {eps0}")
    check_epsilon0(eps0)
    if int(n) != n or n < 1:
        raise UsageError(f"parties must be an integer >= 1, got {n}")
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")


def clone_probability(eps0: float, k: int | None = None) -> float:
    """q: the chance another party is a clone of party 1 (generic ``e^-eps0``; k-RR ``2/(e^eps0+1)``,
    the largest q with ``q/2 (R(x1^0) + R(x1^1)) <= R(x)`` for k-RR, module docstring)."""
    q = math.exp(-eps0)
    if k is not None:
        if k < 2:
            raise UsageError(f"k-RR needs a domain of at least 2 values, got k={k}")
        q = max(q, 2.0 / (math.exp(eps0) + 1))
    return min(q, 1.0)


class _Pair:
    """The FMT dominating pair for one (n, q, eps0), its C-window precomputed."""

    def __init__(self, n: int, q: float, eps0: float, tail: float, points: int = 0) -> None:
        self.alpha = 1.0 / (1.0 + math.exp(-eps0))  # e^eps0 / (e^eps0 + 1)
        self.eps0 = eps0
        if n == 1:
            self.c, self.w, self.tail = np.zeros(1), np.ones(1), 0.0
            return
        # the window only sets how much of C is evaluated: its outside mass is computed exactly
        # below and added to delta, so the (continuous) binomial inverse needs no exactness;
        # scipy.special's ufuncs instead of scipy.stats (whose argument checks cost more here)
        # (bdtrik is NaN where no k solves it, e.g. P(C = 0) above the tail: the whole range)
        lo_f, hi_f = special.bdtrik(tail / 2, n - 1, q), special.bdtrik(1.0 - tail / 2, n - 1, q)
        lo = max(int(np.floor(lo_f)) - 1, 0) if np.isfinite(lo_f) else 0
        hi = min(int(np.ceil(hi_f)) + 1, n - 1) if np.isfinite(hi_f) else n - 1
        # the divergence given C = c is non-increasing in c (adding a fair coin to A is a
        # post-processing of the pair), so a bin of c's is bounded by its smallest c: past
        # _POINTS values of c, bins of equal width each weighted by their whole mass
        pts = points or _POINTS
        edges = np.unique(np.linspace(lo, hi + 1, min(hi + 2 - lo, pts + 1)).astype(np.int64))
        below = edges - 1
        cdf = np.where(below < 0, 0.0, special.bdtr(np.maximum(below, 0), n - 1, q))  # P(C <= e - 1)
        self.c = edges[:-1].astype(float)
        self.w = np.diff(cdf)
        self.tail = float(cdf[0] + (special.bdtrc(edges[-1] - 1, n - 1, q) if edges[-1] <= n - 1 else 0.0))

    def _pmf(self, j: np.ndarray) -> np.ndarray:
        """P(A = j) for A ~ Bin(c, 1/2), elementwise (log-gamma: cheaper than a second betainc)."""
        jj = np.clip(j, 0, self.c)
        log = special.gammaln(self.c + 1) - special.gammaln(jj + 1) - special.gammaln(self.c - jj + 1)
        return np.where((j < 0) | (j > self.c), 0.0, np.exp(log - self.c * math.log(2.0)))

    def _sf(self, j: np.ndarray) -> np.ndarray:
        """P(A >= j) for A ~ Bin(c, 1/2), elementwise (regularized incomplete beta)."""
        jj = np.clip(j, 1, self.c + 1)
        out = special.betainc(jj, np.maximum(self.c - jj + 1, 1e-300), 0.5)
        return np.where(j <= 0, 1.0, np.where(j > self.c, 0.0, out))

    def delta(self, eps: float) -> float:
        """``D_{e^eps}(P || Q)`` (plus the truncated mass)."""
        if eps >= self.eps0:
            return self.tail
        a, ee = self.alpha, math.exp(eps)
        # P(k|c)/Q(k|c) >= e^eps  <=>  r = k / (c + 1 - k) >= R
        big_r = (ee * a - (1 - a)) / (a - ee * (1 - a))
        kstar = np.ceil(big_r * (self.c + 1) / (1 + big_r) - 1e-12)
        s1 = self._sf(kstar - 1)
        s0 = np.maximum(s1 - self._pmf(kstar - 1), 0.0)  # P(A >= k*) = P(A >= k*-1) - P(A = k*-1)
        p_tail = a * s1 + (1 - a) * s0  # P(A + Delta >= k*)
        q_tail = (1 - a) * s1 + a * s0
        return float(np.dot(self.w, np.maximum(p_tail - ee * q_tail, 0.0))) + self.tail


def shuffle_delta(eps: float, n: int, eps0: float, *, k: int | None = None) -> float:
    """Upper bound on delta at central ``eps`` for n shuffled eps0-LDP reports (FMT21 clone reduction)."""
    _check(eps0, n, 0.5)
    return _Pair(n, clone_probability(eps0, k), eps0, 1e-12).delta(max(eps, 0.0))


@dataclass(frozen=True)
class Amplification:
    """One point of the accountant: n shuffled eps0-LDP reports -> central (epsilon, delta)."""

    epsilon0: float
    parties: int
    delta: float
    central_epsilon: float
    bound: str  # the theorem used (THEOREM values)
    clone_probability: float
    seconds: float
    k: int | None = None
    valid: bool = True  # closed form outside its range: False, central = eps0 (no amplification claimed)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _solve(pair: _Pair, delta: float, eps0: float, hint: tuple[float, float] | None) -> float:
    """The root of ``delta(eps) = delta`` on [0, eps0] (delta(eps) is non-increasing): Brent's
    method, in the bracket ``hint`` = (lo, hi) where each end is confirmed by its sign."""
    def f(e: float) -> float:
        return pair.delta(e) - delta

    lo, hi = 0.0, eps0
    if hint is not None:
        h_lo, h_hi = hint
        if 0.0 < h_hi < eps0 and f(h_hi) <= 0:
            hi = h_hi
        if 0.0 < h_lo < hi and f(h_lo) > 0:
            lo = h_lo
    if lo == 0.0 and f(0.0) <= 0:
        return 0.0
    return float(optimize.brentq(f, lo, hi, xtol=_XTOL))


def numerical_epsilon(
    eps0: float, n: int, delta: float, *, k: int | None = None, points: int = 0,
    hint: tuple[float, float] | None = None,
) -> Amplification:  # fmt: skip
    """Smallest eps with ``D_{e^eps}(P||Q) <= delta`` (FMT21 clone reduction; k-RR clone weight if ``k``).

    ``points``: values of C evaluated exactly before binning (0: the default 192; a value above
    n evaluates every c, the straightforward sum the benchmark compares against).  ``hint``: a
    likely bracket (lo, hi) of the answer (a warm start: each end is checked, never trusted).
    """
    _check(eps0, n, delta)
    check_numerical_parties(n)
    t0 = time.perf_counter()
    q = clone_probability(eps0, k)
    pair = _Pair(int(n), q, eps0, delta * _TAIL, points)
    eps = _solve(pair, delta, eps0, hint)
    name = "numerical-krr" if k is not None and q > math.exp(-eps0) else "numerical"
    return Amplification(eps0, int(n), delta, min(eps, eps0), THEOREM[name], q,
                         time.perf_counter() - t0, k)  # fmt: skip


def closed_form_epsilon(eps0: float, n: int, delta: float) -> Amplification:
    """FMT Thm 3.1 (module docstring); outside its range: ``valid=False`` and eps0 itself."""
    _check(eps0, n, delta)
    t0 = time.perf_counter()
    log4d = math.log(4.0 / delta)
    valid = n > 16 * log4d and eps0 <= math.log(n / (16.0 * log4d))
    eps = eps0
    if valid:
        e_prime = math.log1p(8 * math.sqrt(math.exp(eps0) * log4d / n) + 8 * math.exp(eps0) / n)
        gain = (1 - math.exp(-eps0)) / (1 + math.exp(-eps0 - e_prime))
        eps = min(eps0, math.log1p(gain * math.expm1(e_prime)))
    return Amplification(eps0, int(n), delta, eps, THEOREM["closed-form"], math.exp(-eps0),
                         time.perf_counter() - t0, None, valid)  # fmt: skip


def central_epsilon(
    eps0: float, n: int, delta: float, *, bound: str = "numerical", k: int | None = None
) -> Amplification:
    """The central epsilon of n shuffled eps0-LDP reports by the named bound (:data:`BOUNDS`)."""
    if bound == "numerical":
        return numerical_epsilon(eps0, n, delta, k=k)
    if bound == "closed-form":
        return closed_form_epsilon(eps0, n, delta)
    raise UsageError(f"bound must be one of {BOUNDS}, got {bound!r}")


def amplification_curve(
    eps0: float, ns: np.ndarray | list[int], delta: float, *, bound: str = "numerical",
    k: int | None = None,
) -> list[Amplification]:  # fmt: skip
    """:func:`central_epsilon` at every n of ``ns`` (e.g. ``np.geomspace(1e2, 1e7, 41)``).

    Numerical: n in increasing order, each solve warm-started from the previous answer (the
    central epsilon falls with n, about as 1/sqrt(n)), results in the order of ``ns``.
    """
    if bound != "numerical":
        return [central_epsilon(eps0, int(n), delta, bound=bound, k=k) for n in ns]
    order = np.argsort(np.asarray(ns, dtype=np.int64), kind="stable")
    out: dict[int, Amplification] = {}
    prev: tuple[int, float] | None = None
    for i in order.tolist():
        n = int(ns[i])
        hint = None if prev is None else (prev[1] * math.sqrt(prev[0] / n) * 0.7, prev[1] * 1.0000001)
        out[i] = numerical_epsilon(eps0, n, delta, k=k, hint=hint)
        prev = (n, out[i].central_epsilon) if out[i].central_epsilon > 0 else prev
    return [out[i] for i in range(len(out))]


def smallest_n(
    eps0: float, target: float, delta: float, *, k: int | None = None, limit: int = MAX_PARTIES
) -> int | None:
    """Fewest parties whose shuffle brings eps0 down to ``target`` (None: not below ``limit``,
    at most :data:`MAX_PARTIES`)."""
    limit = min(limit, MAX_PARTIES)
    if target <= 0:
        raise UsageError(f"target epsilon must be > 0, got {target}")
    if target >= eps0:
        return 1

    def ok(n: int) -> bool:
        return numerical_epsilon(eps0, n, delta, k=k).central_epsilon <= target

    hi = 2
    while not ok(hi):
        if hi >= limit:
            return None
        hi = min(hi * 4, limit)
    lo = hi // 4 if hi > 2 else 1  # ok(lo) is False (or lo = 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def largest_epsilon0(
    n: int, target: float, delta: float, *, k: int | None = None, cap: float = 30.0
) -> float:
    """The largest local eps0 whose shuffle over n parties stays within central ``target``."""
    if target <= 0:
        raise UsageError(f"target epsilon must be > 0, got {target}")

    def excess(e0: float) -> float:
        return numerical_epsilon(e0, n, delta, k=k).central_epsilon - target

    if excess(cap) <= 0:
        return cap
    return float(optimize.brentq(excess, min(target, cap) * 0.999, cap, xtol=1e-6))
