"""Distributed Skellam noise: worst-case calibration, the survivors' noise, the modulus and decoding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mpc_rr.core import UsageError
from mpc_rr.privacy import dependence_sensitivity, skellam_epsilon
from mpc_rr.secure_sum import (
    SumNoise,
    calibrate_noise,
    decode_noisy_sum,
    honest_survivors,
    noise_modulus,
)
from mpc_rr.secure_sum._noise import (
    noise_offset,
    noisy_inputs,
    offset_noisy_input,
    protocol_modulus,
)

SENS = dependence_sensitivity(3)  # 3 pairs, replace-one: 6 unit shifts


def test_fewest_honest_survivors() -> None:
    assert honest_survivors(100, 0.1, 0.05) == 85
    assert honest_survivors(100, 0.29, 0.0) == 71  # 0.29 of 100 is 29, not 28
    assert honest_survivors(7, 0.0, 0.0) == 7
    with pytest.raises(UsageError, match="no honest survivor is guaranteed"):
        honest_survivors(4, 0.5, 0.5)
    with pytest.raises(UsageError, match=r"max_dropout must be in \[0, 1\)"):
        honest_survivors(4, 1.0, 0.0)


def test_calibration_meets_the_target_for_the_fewest_survivors() -> None:
    noise = calibrate_noise(1.0, 1e-6, 100, SENS, max_dropout=0.1, max_corrupt=0.05)
    assert noise.honest_min == 85
    assert noise.client_variance == pytest.approx(noise.central_variance / 85)
    assert noise.epsilon <= 1.0
    assert skellam_epsilon(noise.client_variance * 85, SENS.cells, 1e-6) <= 1.0
    assert "10 dropouts and 5 colluders" in noise.assumption()


def _survivor_noise(
    n: int, dropped: int, corrupt: int, client_variance: float, cells: int
) -> np.ndarray:
    """What the aggregator cannot remove: the honest survivors' noise in the total, per cell."""
    rng = np.random.default_rng(5)
    zero = np.zeros(cells, np.int64)
    modulus = 1 << 40
    total = np.zeros(cells, np.int64)
    order = rng.permutation(n)
    gone = set(order[:dropped].tolist())
    colluders = set(order[dropped : dropped + corrupt].tolist())
    for i in range(n):
        if i in gone or i in colluders:  # a dropout sends nothing; a colluder's noise is known
            continue
        z = noisy_inputs(zero, noise_for(client_variance), rng, modulus).astype(np.int64)
        total += np.where(z > modulus // 2, z - modulus, z)
    return total


def noise_for(client_variance: float) -> SumNoise:
    """A SumNoise whose clients add the given variance."""
    return SumNoise(1, 0.0, 0.0, 1, client_variance, SENS, math.nan, 1e-6)


def test_survivors_noise_alone_reaches_the_central_variance() -> None:
    n, cells = 40, 20_000
    noise = calibrate_noise(2.0, 1e-6, n, SENS, max_dropout=0.2, max_corrupt=0.1)
    assert noise.honest_min == 28
    z = _survivor_noise(n, 8, 4, noise.client_variance, cells)
    # exactly Sk(28 * v / 28) = Sk(v): variance v (chi-squared interval on the sample variance)
    lo = noise.central_variance * stats.chi2.ppf(1e-4, cells - 1) / (cells - 1)
    assert z.var() >= lo
    assert z.var() == pytest.approx(noise.central_variance, rel=0.05)


def test_calibrating_for_all_parties_leaves_the_survivors_short() -> None:
    """The planted bug: v / n per client (no room for dropouts and colluders) falls short."""
    n, cells = 40, 20_000
    noise = calibrate_noise(2.0, 1e-6, n, SENS, max_dropout=0.2, max_corrupt=0.1)
    z = _survivor_noise(n, 8, 4, noise.central_variance / n, cells)
    lo = noise.central_variance * stats.chi2.ppf(1e-4, cells - 1) / (cells - 1)
    assert z.var() < lo


def test_modulus_bound_holds_against_the_exact_tail() -> None:
    noise = calibrate_noise(1.0, 1e-6, 50, SENS)
    m, bound = noise_modulus(50, 1, 100, noise, wrap_probability=1e-6)
    total_var = 50 * noise.client_variance
    tail = 2 * stats.skellam.sf(bound - 1, total_var / 2, total_var / 2)  # P(|Z| >= B)
    assert 100 * tail <= 1e-6
    assert m > 50 + 2 * bound and m & (m - 1) == 0 and m <= 2 * (50 + 2 * bound + 1)
    assert m <= protocol_modulus("secagg") == 2**32


def test_noisy_sum_decodes_to_counts_plus_noise() -> None:
    n, cells = 30, 500
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, (n, cells))
    noise = calibrate_noise(1.0, 1e-6, n, SENS)
    m, bound = noise_modulus(n, 1, cells, noise)
    sent = np.stack([noisy_inputs(row, noise, rng, m) for row in x])
    total = decode_noisy_sum(sent.sum(axis=0) % m, m, n, 1, bound)
    err = total - x.sum(axis=0)
    assert (err < 0).any()  # negative totals are lifted back, not wrapped
    assert err.var() == pytest.approx(noise.central_variance, rel=0.2)
    with pytest.raises(UsageError, match="modulus 64 must exceed"):
        decode_noisy_sum(total, 64, n, 1, bound)


def test_offset_bounds_the_chance_of_a_clipped_draw() -> None:
    noise = calibrate_noise(1.0, 1e-6, 200, SENS, max_dropout=0.1)
    c = noise_offset(noise, 1582, 1e-8)
    v = noise.client_variance
    clipped = 2 * stats.skellam.sf(c, v / 2, v / 2)  # P(|Z| > c) for one draw
    assert 200 * 1582 * clipped <= 1e-8
    assert 200 * 1582 * 2 * stats.skellam.sf(c - 3, v / 2, v / 2) > 1e-8  # and not far too wide
    x = offset_noisy_input(np.ones(1582, np.uint8), noise, c, np.random.default_rng(0))
    assert x.min() >= 0 and x.max() <= 1 + 2 * c and x.mean() == pytest.approx(1 + c, abs=0.2)
