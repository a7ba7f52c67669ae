"""λ-randomization (Ruiz): exact inverse, privacy figures, sampling, Eq. 9, Sec. 6 example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    PAPER_TABLE1,
    JointMechanism,
    LambdaRandomization,
    local_epsilon,
    paper_example,
)
from mpc_rr.mechanisms._kron import apply_kron_ij, eigenvalues_from_levels, solve_pattern
from mpc_rr.mechanisms._lambda import factor_entropy


def _row_entropy_bits(mat: np.ndarray) -> float:
    """Mean row entropy (the entropy rate of Ruiz Sec. 2.2), computed densely."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(mat > 0, -mat * np.log2(mat), 0.0)
    return float(terms.sum(axis=1).mean())


@st.composite
def lambda_mechanisms(draw, max_cells: int = 400):
    k = draw(st.integers(1, 4))
    sizes = []
    for _ in range(k):
        room = max_cells // max(1, math.prod(sizes))
        if room < 2:
            break
        sizes.append(draw(st.integers(2, min(6, room))))
    lams = [draw(st.floats(0.05, 1.0)) for _ in sizes]
    return LambdaRandomization(sizes, lams)


# -- validation ---------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.2, float("nan")])
def test_lambda_outside_unit_interval_is_rejected(bad):
    with pytest.raises(UsageError, match=r"lambdas\[1\] must satisfy 0 < λ <= 1"):
        LambdaRandomization((3, 3), (0.5, bad))


def test_length_mismatch_and_small_sizes_are_rejected():
    with pytest.raises(UsageError, match="need one λ per attribute: 2 sizes but 1 lambdas"):
        LambdaRandomization((3, 3), (0.5,))
    with pytest.raises(UsageError, match="at least 2 categories"):
        LambdaRandomization((3, 1), (0.5, 0.5))


def test_is_a_joint_mechanism():
    assert isinstance(LambdaRandomization((2, 3), (0.5, 0.5)), JointMechanism)


# -- exact inverse -------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(mech=lambda_mechanisms(), seed=st.integers(0, 2**32 - 1))
def test_structured_estimate_matches_dense_solve(mech, seed):
    obs = np.random.default_rng(seed).random(mech.sizes) * 100
    structured = mech.estimate(obs)
    dense = np.linalg.solve(mech.dense_matrix().T, obs.ravel()).reshape(mech.sizes)
    np.testing.assert_allclose(structured, dense, rtol=1e-9, atol=1e-9 * np.abs(dense).max())
    # the generic difference-pattern eigen-solver agrees too
    generic = solve_pattern(obs, eigenvalues_from_levels(mech.levels(), mech.sizes))
    np.testing.assert_allclose(generic, dense, rtol=1e-9, atol=1e-9 * np.abs(dense).max())


def test_estimate_inverts_the_forward_map_on_adult_domain():
    sizes = (9, 16, 7, 15, 6, 5, 2, 2)  # 1,814,400 cells: no dense matrix possible
    lams = (0.5, 0.6, 0.7, 0.4, 0.8, 0.55, 0.9, 0.3)
    mech = LambdaRandomization(sizes, lams)
    pi = np.random.default_rng(3).dirichlet(np.ones(math.prod(sizes))).reshape(sizes)
    observed = apply_kron_ij(pi, lams, [(1 - lam) / n for lam, n in zip(lams, sizes, strict=True)])
    np.testing.assert_allclose(observed.sum(), 1.0)
    np.testing.assert_allclose(mech.estimate(observed), pi, atol=1e-12)
    with pytest.raises(UsageError, match="at most 4096 cells"):
        mech.dense_matrix()


def test_estimate_validates_shape_and_method():
    mech = LambdaRandomization((2, 3), (0.5, 0.5))
    with pytest.raises(UsageError, match=r"observed must have shape \(2, 3\)"):
        mech.estimate(np.ones((3, 2)))
    with pytest.raises(UsageError, match="method must be 'structured' or 'dense'"):
        mech.estimate(np.ones((2, 3)), method="lu")


def test_dense_method_agrees_with_structured():
    mech = LambdaRandomization((3, 4), (0.3, 0.8))
    obs = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(mech.estimate(obs, method="dense"), mech.estimate(obs), atol=1e-10)


# -- privacy figures -----------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(mech=lambda_mechanisms(max_cells=300))
def test_epsilons_and_entropies_match_the_dense_matrices(mech):
    for i, (eps, h) in enumerate(zip(mech.epsilons, mech.entropies, strict=True)):
        factor = mech.factor_matrix(i)
        assert eps == pytest.approx(local_epsilon(factor), rel=1e-12)
        assert h == pytest.approx(_row_entropy_bits(factor), abs=1e-12)
    dense = mech.dense_matrix()
    assert mech.epsilon == pytest.approx(local_epsilon(dense), rel=1e-12)
    # Theorem 2: entropy rates add under the Kronecker product
    assert mech.entropy == pytest.approx(_row_entropy_bits(dense), abs=1e-9)
    assert mech.entropy_share == pytest.approx(
        _row_entropy_bits(dense) / math.log2(dense.shape[0]), abs=1e-9
    )


def test_epsilon_closed_form_and_identity():
    mech = LambdaRandomization((5, 2), (0.5, 1.0))
    assert mech.epsilons[0] == pytest.approx(math.log(1 + 0.5 * 5 / 0.5))  # ln 6
    assert mech.epsilons[1] == math.inf and mech.epsilon == math.inf
    assert mech.entropies[1] == 0.0  # λ = 1 keeps everything


# -- sampling ------------------------------------------------------------------------


@pytest.mark.parametrize("lams", [(0.3, 0.8, 0.5), (1.0, 0.05, 0.6)])
def test_perturb_draws_from_the_kronecker_rows(lams):
    sizes = (2, 3, 4)
    mech = LambdaRandomization(sizes, lams)
    dense = mech.dense_matrix()
    n = 120_000
    record = np.array([1, 2, 0])
    out = mech.perturb(np.tile(record, (n, 1)), np.random.default_rng(7))
    cells = np.ravel_multi_index(out.T, sizes)
    freq = np.bincount(cells, minlength=24) / n
    expected = dense[np.ravel_multi_index(record, sizes)]
    se = np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(freq - expected) <= 5 * se + 1e-12)


def test_perturb_shapes_dtype_and_validation():
    rng = np.random.default_rng(0)
    one = LambdaRandomization((4,), (0.5,))
    codes = np.array([0, 1, 2, 3], dtype=np.int16)
    out = one.perturb(codes, rng)
    assert out.shape == (4,) and out.dtype == np.int16
    two = LambdaRandomization((2, 3), (0.5, 0.5))
    with pytest.raises(UsageError, match=r"codes\[:, 1\] must lie in \[0, 3\)"):
        two.perturb(np.array([[0, 3]]), rng)
    with pytest.raises(UsageError, match=r"codes must have shape \(n, 2\)"):
        two.perturb(np.array([0, 1]), rng)
    with pytest.raises(UsageError, match="integer array"):
        two.perturb(np.array([[0.0, 1.0]]), rng)


# -- covariance attenuation (Eq. 9) --------------------------------------------------


def test_eq9_exact_for_centered_cross_covariances():
    rng = np.random.default_rng(1)
    c = rng.normal(size=(5, 5))
    c -= c.mean(axis=0, keepdims=True)
    c -= c.mean(axis=1, keepdims=True)  # a cross-covariance of indicators has zero margins
    a = LambdaRandomization((5,), (0.6,)).factor_matrix(0)
    b = LambdaRandomization((5,), (0.35,)).factor_matrix(0)
    np.testing.assert_allclose(a.T @ c @ b, 0.6 * 0.35 * c, atol=1e-12)


def test_eq9_covariance_attenuation_on_simulated_data():
    """cov(Y1, Y2) = λ1 λ2 cov(X1, X2) for the category codes (Ruiz Eq. 9).

    Bound: conditional on the data, the randomized covariance is an average of
    n independent terms up to an O(1/n) term; we require agreement within
    five standard errors of that average (estimated from the sample).
    """
    rng = np.random.default_rng(2024)
    n = 200_000
    x1 = rng.integers(0, 5, n)
    x2 = np.where(rng.random(n) < 0.7, x1, rng.integers(0, 5, n))  # strongly dependent
    lam1, lam2 = 0.6, 0.45
    mech = LambdaRandomization((5, 5), (lam1, lam2))
    y = mech.perturb(np.column_stack([x1, x2]), rng).astype(float)
    cov_x = np.cov(x1, x2)[0, 1]
    prod = (y[:, 0] - y[:, 0].mean()) * (y[:, 1] - y[:, 1].mean())
    cov_y = prod.mean()
    se = prod.std() / math.sqrt(n)
    assert abs(cov_y - lam1 * lam2 * cov_x) <= 5 * se
    assert abs(cov_y - cov_x) > 20 * se  # and the attenuation is real


# -- Sec. 6 example ------------------------------------------------------------------


def test_paper_example_strengths_from_the_definitions():
    rows = paper_example()
    assert [r.lambdas for r in rows[:3]] == [lams for lams, _, _ in PAPER_TABLE1]
    # hand computation for λ = 0.9, n = 5: diagonal 0.92, off-diagonal 0.02
    h = -(0.92 * math.log2(0.92) + 4 * 0.02 * math.log2(0.02))
    assert rows[0].shares[0] == pytest.approx(h / math.log2(5), abs=1e-12)
    assert round(100 * rows[0].shares[0], 1) == 24.2
    for row in rows:
        # Theorem 2 with equal sizes: the joint share is the mean of the attribute shares
        assert row.joint_share == pytest.approx(np.mean(row.shares), abs=1e-12)
        assert min(row.shares) <= row.joint_share <= max(row.shares)
    # the printed per-attribute values are within 3 points of the definitions ...
    for row in rows[:3]:
        assert np.all(np.abs(100 * np.array(row.shares) - row.paper_shares) <= 3.0)
    # ... but the printed joint column contradicts Theorem 2 (72 % < all of 92/96/99 %)
    assert rows[1].paper_joint < min(rows[1].paper_shares)
    assert [round(100 * r.joint_share, 1) for r in rows] == [40.1, 95.1, 68.6, 61.6]


def test_factor_entropy_extremes():
    assert factor_entropy(1.0, 7) == 0.0
    assert factor_entropy(1e-12, 8) == pytest.approx(3.0, abs=1e-9)  # log2 8: perfect privacy
