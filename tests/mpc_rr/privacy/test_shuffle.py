"""FMT21 amplification by shuffling: known values, exactness of the fast path, monotonicity, solvers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mpc_rr.core import UsageError
from mpc_rr.privacy import (
    amplification_curve,
    central_epsilon,
    clone_probability,
    closed_form_epsilon,
    largest_epsilon0,
    numerical_epsilon,
    shuffle_delta,
    smallest_n,
)


def test_fmt_published_point_numerical_and_closed_form() -> None:
    # FMT21's quoted figures for eps0 = 4, n = 10^5, delta = 10^-6
    num = central_epsilon(4.0, 10**5, 1e-6)
    assert 0.1675 <= num.central_epsilon <= 0.1728
    assert "clone reduction" in num.bound
    cf = central_epsilon(4.0, 10**5, 1e-6, bound="closed-form")
    assert cf.central_epsilon == pytest.approx(0.538, abs=1e-3)
    assert cf.valid and "Thm 3.1" in cf.bound


def test_closed_form_is_within_a_tenth_of_the_simplified_statement_and_never_below_it() -> None:
    for eps0, n, delta in [(1.0, 10**4, 1e-6), (2.0, 10**6, 1e-8), (4.0, 10**5, 1e-6)]:
        e, log4d = math.exp(eps0), math.log(4 / delta)
        printed = math.log1p((e - 1) / (e + 1) * (8 * math.sqrt(e * log4d / n) + 8 * e / n))
        ours = closed_form_epsilon(eps0, n, delta).central_epsilon
        assert ours >= printed - 1e-12
        assert ours == pytest.approx(printed, rel=0.1)
        # and the closed form is never tighter than the numerical bound
        assert numerical_epsilon(eps0, n, delta).central_epsilon <= ours


def test_closed_form_outside_its_range_claims_nothing() -> None:
    out = closed_form_epsilon(8.0, 1000, 1e-6)
    assert not out.valid and out.central_epsilon == 8.0


def test_one_party_is_not_amplified() -> None:
    assert numerical_epsilon(2.0, 1, 1e-6).central_epsilon == pytest.approx(2.0, abs=1e-5)


def _brute_delta(eps: float, n: int, eps0: float, q: float) -> float:
    """D_{e^eps}(P||Q) of FMT's pair by enumerating every (c, k)."""
    a = math.exp(eps0) / (math.exp(eps0) + 1)
    total = 0.0
    for c in range(n):
        b = stats.binom.pmf(np.arange(c + 1), c, 0.5)
        pk = a * np.concatenate([[0], b]) + (1 - a) * np.concatenate([b, [0]])
        qk = (1 - a) * np.concatenate([[0], b]) + a * np.concatenate([b, [0]])
        total += stats.binom.pmf(c, n - 1, q) * np.maximum(pk - math.exp(eps) * qk, 0).sum()
    return float(total)


@pytest.mark.parametrize(("n", "eps0", "eps"), [(30, 2.0, 0.5), (200, 1.0, 0.2), (300, 3.0, 1.0)])
def test_tail_formula_matches_enumeration(n: int, eps0: float, eps: float) -> None:
    q = clone_probability(eps0)
    assert shuffle_delta(eps, n, eps0) == pytest.approx(_brute_delta(eps, n, eps0, q), abs=1e-11)


def test_binned_c_is_an_upper_bound_close_to_exact() -> None:
    cases = [(4.0, 10**6), (1.0, 10**5)]
    fast = [numerical_epsilon(e0, n, 1e-6).central_epsilon for e0, n in cases]
    exact = [numerical_epsilon(e0, n, 1e-6, points=10**7).central_epsilon for e0, n in cases]
    for f, x in zip(fast, exact, strict=True):
        assert x - 1e-6 <= f <= x + 2e-4


def test_bound_holds_for_real_shuffled_binary_rr() -> None:
    # the exact histogram of binary RR: party 1 holds 0 or 1, everybody else 1 (n = 400)
    n, eps0 = 400, 2.0
    e = math.exp(eps0)
    p1 = e / (e + 1)  # P(report = true value)
    rest = stats.binom.pmf(np.arange(n), n - 1, 1 - p1)  # zeros among the others
    w0 = p1 * np.concatenate([[0], rest]) + (1 - p1) * np.concatenate([rest, [0]])
    w1 = (1 - p1) * np.concatenate([[0], rest]) + p1 * np.concatenate([rest, [0]])
    amp = numerical_epsilon(eps0, n, 1e-6, k=2)
    ee = math.exp(amp.central_epsilon)
    assert np.maximum(w0 - ee * w1, 0).sum() <= 1e-6 + 1e-12
    assert np.maximum(w1 - ee * w0, 0).sum() <= 1e-6 + 1e-12


def _krr(eps0: float, k: int) -> np.ndarray:
    m = np.full((k, k), 1.0 / (math.exp(eps0) + k - 1))
    np.fill_diagonal(m, math.exp(eps0) / (math.exp(eps0) + k - 1))
    return m  # m[x, y] = P(report y | value x)


def test_krr_clone_weight_is_the_largest_valid_decomposition() -> None:
    for eps0, k in [(0.5, 2), (2.0, 3), (4.0, 7), (7.3, 84)]:
        q = clone_probability(eps0, k)
        assert q == pytest.approx(2 / (math.exp(eps0) + 1)) and q >= math.exp(-eps0)
        m = _krr(eps0, k)
        clone = q / 2 * (m[0] + m[1])  # x1^0 = 0, x1^1 = 1
        left = m - clone[None, :]  # (1 - q) LO(x) for every x: must be a sub-distribution
        assert left.min() >= -1e-15
        if k > 2:  # tight: a value x outside {0, 1} has nothing left on 0, so no larger q works
            assert left[2, 0] == pytest.approx(0.0, abs=1e-12)
    assert clone_probability(1.0) == pytest.approx(math.exp(-1))  # generic


def _exact_shuffled_3rr(eps: float, n: int, eps0: float, other: int) -> float:
    """max D_{e^eps} between the histograms of shuffled 3-RR, party 1 holding 0 or 1 and the
    n - 1 others all holding ``other`` (exact: multinomial counts of values 0 and 1)."""
    m = _krr(eps0, 3)
    a, b = np.arange(n)[:, None], np.arange(n)[None, :]
    rest = n - 1 - a - b
    pmf = np.where(rest >= 0, stats.multinomial.pmf(np.stack(np.broadcast_arrays(a, b, np.maximum(rest, 0)), -1),
                                                     n - 1, m[other]), 0.0)  # fmt: skip

    def world(x: int) -> np.ndarray:
        w = np.zeros((n + 1, n + 1))
        w[1:, :-1] += m[x, 0] * pmf
        w[:-1, 1:] += m[x, 1] * pmf
        w[:-1, :-1] += m[x, 2] * pmf
        return w

    w0, w1, ee = world(0), world(1), math.exp(eps)
    return float(max(np.maximum(w0 - ee * w1, 0).sum(), np.maximum(w1 - ee * w0, 0).sum()))


@pytest.mark.parametrize(("eps0", "n"), [(2.0, 100), (1.0, 60)])
def test_krr_bound_holds_for_real_shuffled_3rr_and_beats_the_generic_one(eps0: float, n: int) -> None:
    amp = numerical_epsilon(eps0, n, 1e-6, k=3)
    assert "k-RR" in amp.bound
    assert amp.central_epsilon < numerical_epsilon(eps0, n, 1e-6).central_epsilon - 0.05
    for other in (0, 1, 2):
        assert _exact_shuffled_3rr(amp.central_epsilon, n, eps0, other) <= 1e-6 + 1e-12


@settings(max_examples=15, deadline=None)
@given(
    st.floats(0.2, 6.0), st.integers(50, 10**6), st.integers(2, 10**6 // 2),
)
def test_monotone_in_n(eps0: float, n: int, more: int) -> None:
    a = numerical_epsilon(eps0, n, 1e-6).central_epsilon
    b = numerical_epsilon(eps0, n + more, 1e-6).central_epsilon
    assert b <= a + 1e-5


@settings(max_examples=15, deadline=None)
@given(st.floats(0.2, 6.0), st.floats(0.01, 2.0), st.integers(100, 10**6))
def test_monotone_in_epsilon0(eps0: float, step: float, n: int) -> None:
    a = numerical_epsilon(eps0, n, 1e-6).central_epsilon
    b = numerical_epsilon(eps0 + step, n, 1e-6).central_epsilon
    assert a <= b + 1e-5
    assert a <= eps0 + 1e-9


def test_warm_started_curve_equals_the_points_in_the_given_order() -> None:
    ns = [10**5, 300, 10**7, 3000, 10**4]  # unsorted on purpose
    curve = amplification_curve(2.0, ns, 1e-6, k=3)
    assert [a.parties for a in curve] == ns
    for a in curve:
        assert a.central_epsilon == pytest.approx(numerical_epsilon(2.0, a.parties, 1e-6, k=3).central_epsilon, abs=1e-6)
    # a wrong hint is checked, never trusted
    wrong = numerical_epsilon(4.0, 10**5, 1e-6, hint=(3.0, 3.5)).central_epsilon
    assert wrong == pytest.approx(numerical_epsilon(4.0, 10**5, 1e-6).central_epsilon, abs=1e-6)


def test_huge_epsilon0_is_not_amplified_and_does_not_crash() -> None:
    # q = e^-eps0 ~ 5e-17: the binomial inverse has no solution (NaN), the window is all of C
    for n in (2, 158, 10**7):
        assert numerical_epsilon(37.5, n, 1e-6).central_epsilon == pytest.approx(37.5, rel=1e-3)


def test_inverse_solvers() -> None:
    n = smallest_n(4.0, 0.5, 1e-6)
    assert n is not None
    assert numerical_epsilon(4.0, n, 1e-6).central_epsilon <= 0.5
    assert numerical_epsilon(4.0, n - 1, 1e-6).central_epsilon > 0.5
    e0 = largest_epsilon0(10**5, 0.5, 1e-6)
    assert numerical_epsilon(e0, 10**5, 1e-6).central_epsilon == pytest.approx(0.5, abs=1e-4)


def test_bad_input_is_refused_by_name() -> None:
    with pytest.raises(UsageError, match="epsilon0"):
        numerical_epsilon(-1.0, 10, 1e-6)
    with pytest.raises(UsageError, match="delta"):
        numerical_epsilon(1.0, 10, 0.0)
    with pytest.raises(UsageError, match="bound"):
        central_epsilon(1.0, 10, 1e-6, bound="magic")
