"""The Skellam sampler (pmf vs empirical), its accountant (tight, valid, invertible) and sensitivities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant
from scipy import stats

from mpc_rr.core import UsageError, csprng_generator
from mpc_rr.privacy import (
    dependence_sensitivity,
    skellam_epsilon,
    skellam_noise,
    skellam_pmf,
    skellam_rdp,
    skellam_tail_radius,
    skellam_variance,
)

DRAWS = 200_000


def _chi2_pvalue(draws: np.ndarray, variance: float) -> float:
    """Pearson chi-squared of the draws against the exact Sk(variance) pmf (tails pooled)."""
    half = int(5 * math.sqrt(variance)) + 2
    k = np.arange(-half, half + 1)
    expected = skellam_pmf(k, variance) * draws.size
    keep = expected >= 5  # cells with enough expected mass; the rest pooled into one
    observed = np.bincount(np.clip(draws, -half, half) + half, minlength=k.size).astype(float)
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], draws.size - expected[keep].sum())
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("variance", [0.3, 2.5, 40.0, 900.0])
def test_sampler_matches_the_exact_pmf(variance: float) -> None:
    draws = skellam_noise(variance, DRAWS, np.random.default_rng(11))
    assert draws.dtype == np.int64
    assert _chi2_pvalue(draws, variance) > 1e-3
    assert abs(draws.mean()) < 5 * math.sqrt(variance / DRAWS)
    assert draws.var() == pytest.approx(variance, rel=0.02)


@pytest.mark.parametrize("variance", [2.5, 40.0])
def test_the_chi_squared_test_rejects_a_wrong_variance(variance: float) -> None:
    draws = skellam_noise(variance * 1.1, DRAWS, np.random.default_rng(11))
    assert _chi2_pvalue(draws, variance) < 1e-6


def test_the_pmf_is_a_distribution_with_the_stated_variance() -> None:
    k = np.arange(-400, 401)
    p = skellam_pmf(k, 900.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert float(np.dot(k**2, p)) == pytest.approx(900.0, rel=1e-9)
    # Sk(a) * Sk(b) = Sk(a + b): convolution of pmfs (the closure that makes sums exact)
    a, b = skellam_pmf(np.arange(-60, 61), 3.0), skellam_pmf(np.arange(-60, 61), 5.0)
    assert np.convolve(a, b)[60:-60] == pytest.approx(
        skellam_pmf(np.arange(-60, 61), 8.0), abs=1e-14
    )


def test_the_sampler_draws_from_a_cryptographic_generator_too() -> None:
    draws = skellam_noise(40.0, DRAWS, csprng_generator())
    assert _chi2_pvalue(draws, 40.0) > 1e-4


def test_sampler_rejects_bad_arguments() -> None:
    with pytest.raises(UsageError, match="variance must be finite and > 0"):
        skellam_noise(0.0, 3, np.random.default_rng(0))
    with pytest.raises(UsageError, match=r"rng must be a numpy\.random\.Generator"):
        skellam_noise(1.0, 3, 7)  # type: ignore[arg-type]


def _exact_delta(variance: float, epsilon: float) -> float:
    """Hockey-stick divergence of Sk(v) vs Sk(v) + 1 at e^eps, summed over the support."""
    k = np.arange(-int(40 * math.sqrt(variance)) - 50, int(40 * math.sqrt(variance)) + 50)
    p, q = skellam_pmf(k, variance), skellam_pmf(k - 1, variance)
    return float(np.maximum(p - math.exp(epsilon) * q, 0).sum())


@pytest.mark.parametrize("variance", [4.0, 50.0, 400.0])
def test_one_cell_epsilon_is_valid_and_tight(variance: float) -> None:
    delta = 1e-5
    eps = skellam_epsilon(variance, 1, delta)
    assert _exact_delta(variance, eps) <= delta  # valid: the claimed eps holds at delta
    assert _exact_delta(variance, eps - 0.02) > delta  # tight: 0.02 less would not


@pytest.mark.parametrize("variance", [300.0, 3000.0, 30000.0])
def test_composed_epsilon_is_no_looser_than_the_closed_form_rdp_bound(variance: float) -> None:
    sens = dependence_sensitivity(15)
    orders = list(range(2, 256))
    rdp = [skellam_rdp(a, variance, sens.l1, sens.l2) for a in orders]
    eps_rdp = rdp_privacy_accountant.compute_epsilon(orders, rdp, 1e-6)[0]
    eps_pld = skellam_epsilon(variance, sens.cells, 1e-6)
    assert eps_pld <= eps_rdp + 0.01
    # and not absurdly below it: the Gaussian mechanism at the same variance (a lower reference)
    gauss = rdp_privacy_accountant.compute_epsilon(
        orders, [a * sens.l2**2 / (2 * variance) for a in orders], 1e-6
    )
    assert eps_pld > 0.7 * gauss[0]


def test_variance_for_a_target_is_the_smallest_that_meets_it() -> None:
    v = skellam_variance(1.0, 1e-6, 20)
    assert skellam_epsilon(v, 20, 1e-6) <= 1.0
    assert skellam_epsilon(v * 0.98, 20, 1e-6) > 1.0


def test_more_cells_or_less_noise_cost_more_epsilon() -> None:
    assert skellam_epsilon(100.0, 10, 1e-6) > skellam_epsilon(100.0, 5, 1e-6)
    assert skellam_epsilon(50.0, 5, 1e-6) > skellam_epsilon(100.0, 5, 1e-6)


def test_dependence_sensitivity_per_relation() -> None:
    rep = dependence_sensitivity(4)  # 6 pairs
    assert (rep.l1, rep.linf, rep.cells) == (12, 1, 12)
    assert rep.l2 == pytest.approx(math.sqrt(12))
    add = dependence_sensitivity(4, "add-remove")
    assert (add.l1, add.cells) == (6, 6)
    with pytest.raises(UsageError, match="relation must be"):
        dependence_sensitivity(4, "swap")
    with pytest.raises(UsageError, match="attributes must be >= 2"):
        dependence_sensitivity(1)


def test_accountant_rejects_bad_targets() -> None:
    with pytest.raises(UsageError, match="delta must be in"):
        skellam_epsilon(10.0, 3, 0.0)
    with pytest.raises(UsageError, match="epsilon must be finite"):
        skellam_variance(math.inf, 1e-6, 3)
    with pytest.raises(UsageError, match="order must be > 1"):
        skellam_rdp(1.0, 10.0, 1, 1)


@pytest.mark.parametrize("variance", [0.5, 30.0, 3000.0])
def test_tail_radius_bounds_the_exact_tail(variance: float) -> None:
    t = skellam_tail_radius(variance, 1e-9)
    exact = stats.skellam.sf(math.ceil(t) - 1, variance / 2, variance / 2)  # P(Z >= ceil t)
    assert exact <= 1e-9
    assert stats.skellam.sf(math.ceil(t) - 1 - 0.3 * t, variance / 2, variance / 2) > 1e-9
