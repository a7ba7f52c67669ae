"""The exact discrete Gaussian sampler (Canonne, Kamath & Steinke 2020): pmf vs empirical."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from mpc_rr.core import UsageError, csprng_generator
from mpc_rr.privacy import discrete_gaussian, discrete_gaussian_pmf

DRAWS = 100_000


def _chi2_pvalue(draws: np.ndarray, sigma2: float) -> float:
    half = int(6 * math.sqrt(sigma2)) + 2
    k = np.arange(-half, half + 1)
    expected = discrete_gaussian_pmf(k, sigma2) * draws.size
    keep = expected >= 5
    observed = np.bincount(np.clip(draws, -half, half) + half, minlength=k.size).astype(float)
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], draws.size - expected[keep].sum())
    return float(stats.chisquare(obs, exp).pvalue)


@pytest.mark.parametrize("sigma2", [0.4, 3.0, 50.0, 2500.0])
def test_sampler_matches_the_exact_pmf(sigma2: float) -> None:
    draws = discrete_gaussian(sigma2, DRAWS, np.random.default_rng(7))
    assert draws.dtype == np.int64 and draws.size == DRAWS
    assert _chi2_pvalue(draws, sigma2) > 1e-3
    k = np.arange(-int(40 * math.sqrt(sigma2)) - 40, int(40 * math.sqrt(sigma2)) + 41)
    var = float(np.dot(k**2, discrete_gaussian_pmf(k, sigma2)))  # below sigma2 for small sigma
    assert draws.var() == pytest.approx(var, rel=0.03)
    assert abs(draws.mean()) < 5 * math.sqrt(var / DRAWS)


@pytest.mark.parametrize("sigma2", [3.0, 50.0])
def test_the_chi_squared_test_rejects_a_wrong_sigma(sigma2: float) -> None:
    draws = discrete_gaussian(sigma2 * 1.1, DRAWS, np.random.default_rng(7))
    assert _chi2_pvalue(draws, sigma2) < 1e-6


def test_exact_rational_variance_and_a_cryptographic_generator() -> None:
    draws = discrete_gaussian(Fraction(7, 3), DRAWS, csprng_generator())
    assert _chi2_pvalue(draws, 7 / 3) > 1e-4


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(UsageError, match="sigma2 must be > 0"):
        discrete_gaussian(0.0, 3, np.random.default_rng(0))
    with pytest.raises(UsageError, match="size must be >= 0"):
        discrete_gaussian(1.0, -1, np.random.default_rng(0))
    with pytest.raises(UsageError, match="too large for exact int64 arithmetic"):
        discrete_gaussian(Fraction(10**12 + 1, 7), 10, np.random.default_rng(0))
    assert discrete_gaussian(1.0, 0, np.random.default_rng(0)).size == 0
