"""Privacy-optimized RR by the inductive heuristic (Yamamoto & Shibuya, Algorithm 3).

All levels with two or more differing attributes are equal, so the result is
a :class:`~mpc_rr.mechanisms.CompactPattern` for any ``k``.  The induction
starts from the closed-form optimum for ``k = 2`` (:func:`closed_form_two`,
Sec. IV-B1, cases I–IV) and adds one attribute at a time.  Implemented in
``O(k)`` (running sums replace the ``O(k)`` inner loop of the paper) and in
probability units with a log-tracked "rest" level, so it neither overflows
(ratios reach ``exp(sum eps)``) nor underflows for ``k = 10,000``;
:func:`heuristic_reference` is the literal ``O(k^2)`` transcription it is
tested and benchmarked against.

The fallback (steps 8–10) silently replaces an attribute's requested
epsilon by another one -- e.g. sizes (5,5,5,5,5), eps (5,4,3,2,1) yields
eps_5 = 5 instead of 1 -- and its outcome depends on the attribute order.
:func:`solve_heuristic` reports requested and achieved epsilons and lets the
caller choose with ``on_mismatch`` (refuse, or search attribute orders).
Algorithm 3 can also be *worse* than the Kronecker construction
(:func:`kronecker_mechanism`) for small epsilons; then that is returned.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.mechanisms._lambda import LambdaRandomization
from mpc_rr.mechanisms._patterns import CompactPattern, KroneckerPattern, check_pattern_sizes
from mpc_rr.mechanisms.optimized._result import MATCH_RTOL, OptimizedRR, check_epsilons

__all__ = [
    "closed_form_two",
    "heuristic_in_order",
    "heuristic_reference",
    "kronecker_mechanism",
    "solve_heuristic",
]


def closed_form_two(m: int, n: int, eps1: float, eps2: float) -> tuple[float, float, float, str]:
    """Optimal ``(x_{2,0}, x_{2,1}, x_{2,2})`` for two attributes (Sec. IV-B1).

    Ratios to the all-differ level ``X_3``; returns the case label I–IV too.
    """
    e1, e2 = math.exp(eps1), math.exp(eps2)
    if e1 * e2 >= (m - 1) * (n - 1):
        if n * (e1 - 1) >= m * (e2 - 1):
            x0 = (n * e1 * e2 + (m - 1) * (n - 1) * (e2 - 1)) / (e2 + n - 1)
            return x0, 1.0, (n * e1 - (m - 1) * (e2 - 1)) / (e2 + n - 1), "I"
        x0 = (m * e1 * e2 + (m - 1) * (n - 1) * (e1 - 1)) / (e1 + m - 1)
        return x0, (m * e2 - (n - 1) * (e1 - 1)) / (e1 + m - 1), 1.0, "II"
    if (n - m) * e1 * e2 - m * (n - 1) * e1 + (m - 1) * n * e2 >= 0:
        den = -(e1 - 1) * e2 + m * (n - 1)
        x0 = (n - 1) * (e1 + m - 1) * e2 / den
        return x0, x0, (m * (n - 1) * e1 + (m - 1) * (e1 - 1) * e2) / den, "III"
    den = -e1 * (e2 - 1) + (m - 1) * n
    x0 = (m - 1) * e1 * (e2 + n - 1) / den
    return x0, ((m - 1) * n * e2 + (n - 1) * e1 * (e2 - 1)) / den, x0, "IV"


def heuristic_reference(a: Sequence[int], eps: Sequence[float]) -> list[float]:
    """Algorithm 3 of Yamamoto & Shibuya transcribed literally (ratio units, O(k^2)).

    The reference the fast O(k) heuristic is tested against and benchmarked
    next to.  Ratios reach exp(sum eps), so it overflows to inf/nan for large
    k: use it for small k as an oracle, for large k as a timing baseline only.
    """
    k = len(a)
    x0, x1, x2, _ = closed_form_two(a[0], a[1], eps[0], eps[1])
    x = [x0, x1, x2]
    prod, total = float(a[0] * a[1]), float(a[0] + a[1])
    with np.errstate(all="ignore"):
        for i in range(3, k + 1):
            ai = a[i - 1]
            new = [0.0] * (i + 1)
            for j in range(1, i):
                new[j] = ai * x[j] - ai + 1
            big_a = sum((a[h - 1] - 1) * new[h] for h in range(1, i))
            big_b = prod - total + i - 2
            big_c = prod - 1
            e = math.exp(eps[i - 1])
            xi = (ai * x[0] + big_a + big_b - e * big_c) / (ai - 1 + e)
            x0n = ai * x[0] - (ai - 1) * xi
            if x0n < 1 or xi < 1 or any(x0n < new[j] for j in range(1, i)) or x0n < xi:
                x0n, xi = ai * x[0] - ai + 1, 1.0
            new[0], new[i] = x0n, xi
            x = new
            prod *= ai
            total += ai
    return x


def _heuristic_compact(
    sizes: tuple[int, ...], eps: tuple[float, ...]
) -> tuple[float, np.ndarray, float, tuple[int, ...]]:
    """Algorithm 3 in probability units; returns ``(d0, singles, log_rest, fallbacks)``.

    State after attribute ``i``: the rest level ``R_i`` (log-tracked) and the
    excesses over it, ``d0 = X0 − R`` and ``d_j = X_j − R``.  In the paper's
    ratio units ``x = X / R`` the induction (Eq. 9) reads
    ``x_{i,j} − 1 = a_i (x_{i−1,j} − 1)`` and ``R_i = R_{i−1} / a_i``, so the
    excesses ``d_j`` do not change once set, and ``d0`` loses ``(a_i − 1) d_i``.
    Eq. 7 becomes ``Q/a_i + d0_i + D = e^{eps_i} (Q/a_i + d_i)`` with
    ``Q = R N`` (invariant) and ``D = sum_{h<i} (a_h − 1) d_h``, solved for
    ``d_i``.  The fallback test (step 8) is ``d0_i < 0``, ``d_i < 0`` or
    ``d0_i < max_{j <= i} d_j``; the fallback (step 9) sets ``d_i = 0``.
    Each step is ``O(1)``: ``O(k)`` overall, no overflow, no cancellation.
    """
    k = len(sizes)
    a1, a2 = sizes[0], sizes[1]
    x0, x1, x2, _ = closed_form_two(a1, a2, eps[0], eps[1])
    z = x0 + (a1 - 1) * x1 + (a2 - 1) * x2 + (a1 - 1) * (a2 - 1)
    d0 = (x0 - 1.0) / z
    singles = [(x1 - 1.0) / z, (x2 - 1.0) / z]
    log_rest = -math.log(z)
    q = a1 * a2 / z  # rest level times the current domain size: invariant
    sum_d = (a1 - 1) * singles[0] + (a2 - 1) * singles[1]
    max_d = max(singles)
    fallbacks = []
    for i in range(2, k):
        a = sizes[i]
        e = math.exp(eps[i])
        log_rest -= math.log(a)
        qa = q / a
        di = (d0 + sum_d + qa * (1.0 - e)) / (e + a - 1)
        new_d0 = d0 - (a - 1) * di
        if new_d0 < 0 or di < 0 or new_d0 < max(max_d, di):
            di = 0.0  # Algorithm 3, steps 8-10: eps_i is no longer the requested one
            new_d0 = d0
            fallbacks.append(i)
        d0 = new_d0
        sum_d += (a - 1) * di
        max_d = max(max_d, di)
        singles.append(di)
    return d0, np.asarray(singles), log_rest, tuple(fallbacks)


def _candidate_orders(sizes: tuple[int, ...], eps: tuple[float, ...]) -> list[tuple[int, ...]]:
    k = len(sizes)
    if k <= 6:
        return list(itertools.permutations(range(k)))
    e = np.asarray(eps)
    a = np.asarray(sizes)
    cands = [
        np.arange(k),
        np.argsort(e, kind="stable"),
        np.argsort(-e, kind="stable"),
        np.lexsort((e, a)),
        np.lexsort((-e, -a)),
        np.argsort(e / np.log(a), kind="stable"),
        np.argsort(-e / np.log(a), kind="stable"),
    ]
    seen, out = set(), []
    for cand in cands:
        key = tuple(int(v) for v in cand)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def heuristic_in_order(
    sizes: tuple[int, ...], eps: tuple[float, ...], order: tuple[int, ...]
) -> tuple[CompactPattern, tuple[int, ...]]:
    """Algorithm 3 (Yamamoto & Shibuya) adding the attributes in ``order``.

    Returns the mechanism and the attributes (original indices) at which the
    inductive step fell back; the heuristic's result depends on the order, and
    :func:`solve_heuristic` tries the orders it documents.
    """
    perm_sizes = tuple(sizes[j] for j in order)
    perm_eps = tuple(eps[j] for j in order)
    d0, singles_perm, log_rest, fb = _heuristic_compact(perm_sizes, perm_eps)
    singles = np.empty(len(sizes))
    singles[list(order)] = singles_perm
    mech = CompactPattern(sizes, d0, singles, log_rest)
    return mech, tuple(order[i] for i in fb)


def _mismatches(requested: tuple[float, ...], achieved: tuple[float, ...]) -> list[int]:
    return [
        i
        for i, (r, a) in enumerate(zip(requested, achieved, strict=True))
        if not abs(a - r) <= MATCH_RTOL * max(1.0, r)
    ]


def solve_heuristic(
    sizes: Sequence[int],
    epsilons: Sequence[float],
    *,
    on_mismatch: str = "raise",
    order: Sequence[int] | None = None,
) -> OptimizedRR:
    """Near-optimal mechanism by the inductive heuristic (Algorithm 3), ``O(k)`` here.

    Parameters
    ----------
    sizes, epsilons:
        Category counts (each ``>= 2``, ``k >= 2``) and requested epsilons.
    on_mismatch:
        What to do when Algorithm 3's fallback changes an attribute's epsilon:
        ``"raise"`` (refuse with :class:`UsageError` naming the attributes and
        their requested/achieved epsilons) or ``"reorder"`` (try attribute
        orders -- all of them for ``k <= 6``, a few sorted ones otherwise --
        and return the lowest overall epsilon among orders meeting every
        request; refuse if none does).
    order:
        Attribute order to run the induction in (default: as given).  Ignored
        by ``"reorder"``.

    Returns
    -------
    OptimizedRR
        ``method="heuristic"``, or ``method="kronecker"`` when Algorithm 3's
        result has a larger overall epsilon than the Kronecker construction
        (it can, for small epsilons: sizes (2, 2, 2), eps 0.25 each gives
        0.7590 > 0.75), which then is returned instead.

    Raises
    ------
    UsageError
        When the requested epsilons cannot be met (see ``on_mismatch``), or on
        invalid parameters.
    """
    start = time.perf_counter()
    sz = check_pattern_sizes(sizes)
    k = len(sz)
    if k < 2:
        raise UsageError(f"the optimized mechanisms need k >= 2 attributes, got k = {k}")
    eps = check_epsilons(epsilons, k)
    if on_mismatch not in ("raise", "reorder"):
        raise UsageError(f"on_mismatch must be 'raise' or 'reorder', got {on_mismatch!r}")
    if on_mismatch == "reorder":
        orders = _candidate_orders(sz, eps)
    else:
        base = tuple(range(k)) if order is None else tuple(int(v) for v in order)
        if sorted(base) != list(range(k)):
            raise UsageError(f"order must be a permutation of 0..{k - 1}, got {order!r}")
        orders = [base]
    best = None
    first_failure = None
    for cand in orders:
        mech, fb = heuristic_in_order(sz, eps, cand)
        achieved = mech.epsilons
        bad = _mismatches(eps, achieved)
        if bad:
            if first_failure is None:
                first_failure = (cand, achieved, bad)
            continue
        if best is None or mech.epsilon < best[0].epsilon:
            best = (mech, cand, fb)
    if best is None:
        cand, achieved, bad = first_failure  # type: ignore[misc]
        more = f" (and {len(bad) - 5} more attributes)" if len(bad) > 5 else ""
        detail = (
            ", ".join(
                f"attribute {i}: requested {eps[i]:.6g}, achieved {achieved[i]:.6g}"
                + (" (weaker)" if achieved[i] > eps[i] else " (stronger)")
                for i in bad[:5]
            )
            + more
        )
        shown = str(cand) if k <= 12 else f"({cand[0]}, {cand[1]}, ..., {cand[-1]})"
        if on_mismatch == "reorder":
            tried = f"any of {len(orders)} attribute orders (e.g. order {shown})"
            hint = "use method='lp' (exact)"
        else:
            tried = f"order {shown}"
            hint = "use method='lp' (exact) or on_mismatch='reorder'"
        raise UsageError(
            f"the heuristic (Algorithm 3) cannot meet the requested epsilons with {tried}: "
            f"{detail}; {hint}"
        )
    mech, cand, fb = best
    kron = kronecker_mechanism(sz, eps)
    # Algorithm 3 can be worse than the baseline for small epsilons, e.g. sizes
    # (2, 2, 2), eps 0.25 each: 0.7590 vs 0.75.  Never return a worse guarantee.
    baseline_wins = kron.epsilon < mech.epsilon
    return OptimizedRR(
        kron if baseline_wins else mech,
        requested_epsilons=eps,
        method="kronecker" if baseline_wins else "heuristic",
        order=cand,
        fallback_attributes=fb,
        seconds=time.perf_counter() - start,
    )


def kronecker_mechanism(sizes: Sequence[int], epsilons: Sequence[float]) -> KroneckerPattern:
    """The Kronecker construction (Wang et al., Yamamoto & Shibuya Eq. 1) as a mechanism.

    Each factor is the optimal single-attribute RR, ``e^eps/(e^eps + a − 1)``
    on the diagonal -- i.e. ``P(λ)`` with ``λ = (e^eps − 1)/(e^eps + a − 1)``
    -- so this is λ-randomization; its epsilon is ``sum(eps)``.
    """
    sz = check_pattern_sizes(sizes)
    eps = check_epsilons(epsilons, len(sz))
    lams = [math.expm1(e) / (math.exp(e) + a - 1) for e, a in zip(eps, sz, strict=True)]
    return KroneckerPattern(LambdaRandomization(sz, lams))
