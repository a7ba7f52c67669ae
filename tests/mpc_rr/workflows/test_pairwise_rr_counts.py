"""Section 4.3: pairwise RR through the secure sum, Eq. 2 estimates, epsilon accounting."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Schema
from mpc_rr.mdrr import composed_epsilons
from mpc_rr.mdrr._pair_cells import crosstabs
from mpc_rr.mechanisms import k_rr, keep_or_uniform
from mpc_rr.workflows._secure_sum import pairwise_rr_counts as pairwise_rr

SCHEMA = Schema(
    (
        Attribute("a", ("0", "1", "2")),
        Attribute("b", ("0", "1")),
        Attribute("c", ("0", "1", "2", "3")),
    )
)


def test_identity_mechanism_reproduces_the_exact_tables() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, SCHEMA.sizes, size=(50, 3))
    out = pairwise_rr(codes, SCHEMA, lambda s: keep_or_uniform(s, 1.0), rng, seed=1)
    for k, t in crosstabs(codes, SCHEMA.sizes).items():
        np.testing.assert_allclose(out.tables[k], t, atol=1e-9)
        np.testing.assert_array_equal(out.observed[k], t)


def test_estimates_are_unbiased_and_epsilons_compose() -> None:
    rng = np.random.default_rng(1)
    n = 1000  # 3,000 took 4x as long (SecAgg+ over n parties); the bounds below scale with sqrt(n)
    # correlated data: c depends on a
    a = rng.integers(0, 3, n)
    codes = np.stack([a, rng.integers(0, 2, n), (a + rng.integers(0, 2, n)) % 4], axis=1)
    eps = 2.0
    # the scalable protocol: the O(n^2) full mesh at n = 3000 took minutes (it has its own tests)
    out = pairwise_rr(
        codes, SCHEMA, lambda s: k_rr(s, eps), rng, protocol="secagg", method="none", degree=8,
        max_dropout=0.0, max_corrupt=0.0,  # the estimator is the point here, not the bounds
    )
    truth = crosstabs(codes, SCHEMA.sizes)
    for k, t in truth.items():
        assert abs(out.tables[k].sum() - n) < 1e-6
        # Eq. 2 is unbiased: error within a few standard deviations of the multinomial noise
        assert np.abs(out.tables[k] - t).max() < 6 * math.sqrt(n), k
        assert not np.array_equal(out.observed[k], t)  # the sum saw randomized pairs only
    np.testing.assert_allclose(out.epsilon_sequential, [2 * eps, 2 * eps, 2 * eps])
    np.testing.assert_allclose(out.epsilon_parallel, [eps, eps, eps])
    assert out.dependence[0, 2] > out.dependence[0, 1]  # a-c dependence survives RR


def test_composition_with_unequal_pair_epsilons() -> None:
    seq, par = composed_epsilons({(0, 1): 1.0, (0, 2): 3.0, (1, 2): 0.5}, 3)
    np.testing.assert_allclose(seq, [4.0, 1.5, 3.5])
    np.testing.assert_allclose(par, [3.0, 1.0, 3.0])


def test_mechanism_size_mismatch_is_a_usage_error() -> None:
    rng = np.random.default_rng(2)
    codes = rng.integers(0, SCHEMA.sizes, size=(5, 3))
    with pytest.raises(UsageError, match=r"mechanism of pair \(0, 1\) has sizes"):
        pairwise_rr(codes, SCHEMA, lambda s: k_rr((2, 2), 1.0), rng)
