"""RRBA's independence check: Eq. 7 (step 1) against a generic solver on the literal problem,
the chi-square test and its size."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from mpc_rr.core import UsageError
from mpc_rr.rrba import chi2_independence, elastic_fit, independence_test, rrba_simulator
from mpc_rr.rrba._independence import rank_threshold


@pytest.mark.parametrize("gamma", [0.01, 0.5])
def test_eq7_step1_equals_clarabel_on_the_literal_problem(gamma: float) -> None:
    import clarabel
    from scipy import sparse

    rng = np.random.default_rng(2)
    for _ in range(5):
        t = rng.normal(100, 80, 8)
        n = 700.0
        # variables (x, s): min gamma sum s + (1 - gamma) ||x - t||^2, s >= |x - t|, x >= 0, sum x = n
        P = sparse.block_diag([2 * (1 - gamma) * np.eye(8), np.zeros((8, 8))], format="csc")
        q = np.concatenate([-2 * (1 - gamma) * t, gamma * np.ones(8)])
        eye, zero = np.eye(8), np.zeros((8, 8))
        A = sparse.csc_matrix(np.vstack([np.r_[np.ones(8), np.zeros(8)][None],
                                         np.hstack([eye, -eye]), np.hstack([-eye, -eye]),
                                         np.hstack([-eye, zero])]))  # fmt: skip
        b = np.concatenate([[n], t, -t, np.zeros(8)])
        s = clarabel.DefaultSettings()
        s.verbose = False
        cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(24)]
        sol = clarabel.DefaultSolver(sparse.triu(P, format="csc"), q, A, b, cones, s).solve()
        np.testing.assert_allclose(elastic_fit(t, n), np.asarray(sol.x)[:8], rtol=1e-6, atol=1e-4)


def test_chi2_known_answer_and_threshold() -> None:
    stat, exp = chi2_independence(np.array([[30.0, 10.0], [20.0, 40.0]]), (2, 2))
    np.testing.assert_allclose(exp, [[20, 20], [30, 30]])
    assert stat == pytest.approx(100 / 20 * 2 + 100 / 30 * 2)
    assert rank_threshold(np.arange(1, 100), 0.05) == 95.0  # ceil(100 * 0.95) = 95th smallest
    with pytest.raises(UsageError, match=r"need l > 1/alpha = 20 simulations, got 19"):
        rank_threshold(np.arange(19), 0.05)


def test_independence_test_size_is_about_alpha() -> None:
    """Under H0 the rejection rate is within binomial bounds of alpha (tiny configuration)."""
    rng = np.random.default_rng(7)
    n, tests = 2000, 120
    sim = rrba_simulator(n, block=500, p=0.5)
    rejections = 0
    for _ in range(tests):
        q = rng.uniform(0.3, 0.7, 2)
        pi = np.outer([q[0], 1 - q[0]], [q[1], 1 - q[1]]).reshape(-1)
        noisy = sim(pi, 1, rng)[0].reshape(2, 2)
        rejections += independence_test(noisy, n, sim, rng, simulations=39).reject
    lo, hi = binom.ppf(0.0005, tests, 0.05), binom.ppf(0.9995, tests, 0.05)
    assert lo <= rejections <= hi, rejections  # 0.999 interval of Binomial(120, 0.05): [0, 16]
