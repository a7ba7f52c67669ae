"""Speed targets of the mechanism families: the heuristic, the LP and lambda estimation on the
Adult domain (slow tier: run with ``-m slow``; generous on a shared machine)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mpc_rr.mechanisms import LambdaRandomization
from mpc_rr.mechanisms.optimized import solve_lp
from mpc_rr.mechanisms.optimized._heuristic import heuristic_in_order

pytestmark = pytest.mark.slow


def _best_of(fn, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _paper_inputs(k, seed):
    rng = np.random.default_rng(seed)
    return tuple(int(v) for v in rng.integers(2, 6, k)), tuple(rng.uniform(1, 10, k))


@pytest.mark.parametrize(("k", "limit"), [(1_000, 0.05), (10_000, 2.0)])
def test_heuristic_speed(k, limit):
    sizes, eps = _paper_inputs(k, k)
    assert _best_of(lambda: heuristic_in_order(sizes, eps, tuple(range(k)))) < limit


@pytest.mark.parametrize(("k", "limit"), [(10, 0.5), (12, 5.0)])
def test_lp_speed(k, limit):
    sizes, eps = _paper_inputs(k, 100 + k)
    assert _best_of(lambda: solve_lp(sizes, eps)) < limit


def test_lambda_estimation_on_adult_domain_speed():
    sizes = (9, 16, 7, 15, 6, 5, 2, 2)
    mech = LambdaRandomization(sizes, (0.5, 0.6, 0.7, 0.4, 0.8, 0.55, 0.9, 0.3))
    obs = np.random.default_rng(0).random(sizes)
    assert _best_of(lambda: mech.estimate(obs)) < 1.0
