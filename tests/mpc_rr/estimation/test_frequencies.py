"""Eq. 2 estimation, its unbiasedness, Proposition 1, and the three repairs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize

from mpc_rr.core import UsageError
from mpc_rr.estimation import estimate_distribution, ibu
from mpc_rr.estimation._frequencies import clip_rescale, project_simplex
from mpc_rr.mechanisms import RandomizationMatrix, keep_or_uniform


def test_estimate_is_unbiased() -> None:
    """Mean of 400 seeded estimates is within 4 standard errors of the truth in every cell."""
    rng = np.random.default_rng(11)
    truth = np.array([0.5, 0.3, 0.15, 0.05])
    n = 2_000
    x = np.repeat(np.arange(4), (truth * n).astype(int))
    mech = keep_or_uniform(4, 0.3)
    ests = np.array(
        [
            estimate_distribution(
                mech, np.bincount(mech.perturb(x, rng), minlength=4), "none"
            ).distribution
            for _ in range(400)
        ]
    )
    se = ests.std(axis=0, ddof=1) / np.sqrt(len(ests))
    assert np.all(np.abs(ests.mean(axis=0) - truth) < 4 * se)


def test_keep_or_uniform_scales_covariance_by_pa_pb() -> None:
    """Proposition 1: Cov(Ya, Yb) = pa pb Cov(Xa, Xb) (within 4 standard errors)."""
    rng = np.random.default_rng(5)
    n = 400_000
    xa = rng.integers(0, 5, n)
    xb = np.where(rng.random(n) < 0.7, xa, rng.integers(0, 5, n))  # strongly dependent
    pa, pb = 0.6, 0.3
    ya = keep_or_uniform(5, pa).perturb(xa, rng)
    yb = keep_or_uniform(5, pb).perturb(xb, rng)
    cx = np.cov(xa, xb)[0, 1]
    prod = (ya - ya.mean()) * (yb - yb.mean())
    se = prod.std() / np.sqrt(n)
    assert abs(prod.mean() - pa * pb * cx) < 4 * se
    assert abs(prod.mean() - cx) > 20 * se  # and the attenuation is real


def test_clip_rescale_is_the_papers_rule() -> None:
    np.testing.assert_allclose(clip_rescale(np.array([0.6, -0.2, 0.6])), [0.5, 0.0, 0.5])
    np.testing.assert_allclose(clip_rescale(np.array([-1.0, -2.0])), [0.5, 0.5])


def _qp_projection(v: np.ndarray) -> np.ndarray:
    res = minimize(
        lambda x: 0.5 * np.sum((x - v) ** 2),
        np.full(v.size, 1 / v.size),
        jac=lambda x: x - v,
        bounds=[(0, None)] * v.size,
        constraints=[
            {"type": "eq", "fun": lambda x: x.sum() - 1, "jac": lambda x: np.ones_like(x)}
        ],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.x


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-2, 2)))
def test_projection_matches_a_qp_solver(v: np.ndarray) -> None:
    p = project_simplex(v)
    assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(p, _qp_projection(v), atol=1e-6)
    # never farther from v than the clip-and-rescale answer
    assert np.linalg.norm(p - v) <= np.linalg.norm(clip_rescale(v) - v) + 1e-12


def test_projection_is_identity_on_the_simplex() -> None:
    x = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(project_simplex(x), x)


def test_ibu_stays_on_simplex_and_matches_mle() -> None:
    rng = np.random.default_rng(2)
    P = RandomizationMatrix([[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]])
    x = rng.choice(3, size=5_000, p=[0.7, 0.3, 0.0])
    obs = np.bincount(P.perturb(x, rng), minlength=3).astype(float)
    pi, iters = ibu(P, obs, tol=1e-13, max_iter=100_000)
    assert pi.min() >= 0 and pi.sum() == pytest.approx(1.0) and iters > 1

    # the MLE maximizes sum obs * log(P^T pi) over the simplex: compare with a generic optimizer
    def nll(z: np.ndarray) -> float:
        q = np.exp(z) / np.exp(z).sum()
        return -float(obs @ np.log(P.matrix.T @ q))

    best = minimize(
        nll,
        np.zeros(3),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    assert nll(np.log(np.maximum(pi, 1e-300))) <= best.fun + 1e-6


def test_estimate_distribution_reports_method_and_validates() -> None:
    mech = keep_or_uniform(3, 0.2)
    est = estimate_distribution(mech, np.array([100.0, 0.0, 0.0]), "project")
    assert est.method == "project" and est.n == 100
    assert est.raw.min() < 0 and est.distribution.min() >= 0
    with pytest.raises(UsageError, match="method must be one of"):
        estimate_distribution(mech, np.ones(3), "magic")
    with pytest.raises(UsageError, match="no reports"):
        estimate_distribution(mech, np.zeros(3))
