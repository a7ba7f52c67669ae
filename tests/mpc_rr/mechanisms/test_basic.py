"""Randomization mechanisms: validation, exact epsilons, sampling and Eq. 2 solves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    JointMechanism,
    RandomizationMatrix,
    UniformMixture,
    cluster_matrix,
    k_rr,
    keep_or_uniform,
    local_epsilon,
    paper_epsilon,
)


def test_matrix_validation_names_the_row() -> None:
    with pytest.raises(UsageError, match="square"):
        RandomizationMatrix(np.ones((2, 3)) / 3)
    with pytest.raises(UsageError, match=r"row 1 sums to 0\.9"):
        RandomizationMatrix([[0.5, 0.5], [0.4, 0.5]])
    with pytest.raises(UsageError, match="row 0 has a negative entry"):
        RandomizationMatrix([[1.2, -0.2], [0.5, 0.5]])
    with pytest.raises(UsageError, match="do not multiply"):
        RandomizationMatrix(np.eye(4), sizes=(3, 2))


@pytest.mark.parametrize("p", [0.0, -0.1, 1.5, float("nan")])
def test_keep_or_uniform_rejects_bad_p(p: float) -> None:
    with pytest.raises(UsageError, match=r"p must be in \(0, 1\]"):
        keep_or_uniform(4, p)


def test_keep_or_uniform_matrix_and_true_epsilon() -> None:
    m = keep_or_uniform(4, 0.5)
    d = m.dense()
    np.testing.assert_allclose(np.diag(d), 0.5 + 0.5 / 4)
    np.testing.assert_allclose(d[0, 1], 0.5 / 4)
    # docs/rr_library.md, decision 1: ln(1 + p|A|/(1-p)), not the paper's ln(p|A|/(1-p))
    assert m.epsilon == pytest.approx(math.log(5.0))
    assert local_epsilon(d) == pytest.approx(math.log(5.0))
    assert paper_epsilon(4, 0.5) == pytest.approx(math.log(4.0))
    assert keep_or_uniform(4, 1.0).epsilon == math.inf


def test_local_epsilon_infinite_with_zero_next_to_positive() -> None:
    assert local_epsilon(np.eye(3)) == math.inf
    assert local_epsilon(np.full((3, 3), 1 / 3)) == 0.0


def test_k_rr_diagonal_and_epsilon() -> None:
    m = k_rr(5, 1.3)
    d = m.dense()
    e = math.exp(1.3)
    np.testing.assert_allclose(np.diag(d), e / (e + 4))
    np.testing.assert_allclose(d[1, 0], 1 / (e + 4))
    assert m.epsilon == pytest.approx(1.3)
    with pytest.raises(UsageError, match="epsilon must be >= 0"):
        k_rr(5, -1.0)
    # epsilon 0 (e.g. the paper's printed formula at p|A|/(1-p) = 1): uniform reports, no information
    flat = k_rr(5, 0.0)
    assert flat.epsilon == 0.0 and flat.keep == 0.0
    np.testing.assert_allclose(flat.estimate(np.array([10.0, 0, 0, 0, 0])), 2.0)


def test_cluster_matrix_uses_corrected_sign() -> None:
    # docs/rr_library.md, decision 2: p_C = 1/(1 + (prod|A| - 1) exp(-eps)); off-diagonal p_C exp(-eps)
    m = cluster_matrix((3, 4), 2.0)
    d = m.dense()
    pc = 1 / (1 + 11 * math.exp(-2.0))
    np.testing.assert_allclose(np.diag(d), pc)
    np.testing.assert_allclose(d[0, 5], pc * math.exp(-2.0))
    np.testing.assert_allclose(d.sum(axis=1), 1.0)
    assert m.epsilon == pytest.approx(2.0)
    # with the true epsilon of keep-or-uniform, a singleton cluster *is* keep-or-uniform(p)
    ku = keep_or_uniform(7, 0.3)
    np.testing.assert_allclose(cluster_matrix((7,), ku.epsilon).dense(), ku.dense())


def test_mechanisms_satisfy_the_joint_interface() -> None:
    assert isinstance(keep_or_uniform(3, 0.5), JointMechanism)
    assert isinstance(RandomizationMatrix(np.eye(2)), JointMechanism)


@pytest.mark.parametrize(
    "mech",
    [
        keep_or_uniform(6, 0.4),
        k_rr((2, 3), 1.0),
        RandomizationMatrix([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]]),
    ],
    ids=["keep-or-uniform", "k-rr-joint", "dense"],
)
def test_perturb_follows_the_matrix(mech: JointMechanism) -> None:
    """Empirical transition frequencies match P within 5 binomial standard errors."""
    rng = np.random.default_rng(7)
    N = math.prod(mech.sizes)
    n_per = 20_000
    flat = np.repeat(np.arange(N), n_per)
    codes = flat if len(mech.sizes) == 1 else np.stack(np.unravel_index(flat, mech.sizes), axis=1)
    out = mech.perturb(codes, rng)
    out_flat = out if len(mech.sizes) == 1 else np.ravel_multi_index(tuple(out.T), mech.sizes)
    emp = np.bincount(flat * N + out_flat, minlength=N * N).reshape(N, N) / n_per
    P = mech.dense()
    se = np.sqrt(P * (1 - P) / n_per)
    assert np.all(np.abs(emp - P) <= 5 * se + 1e-12)


def test_perturb_is_reproducible_and_validates_codes() -> None:
    m = keep_or_uniform(5, 0.5)
    x = np.arange(5).repeat(10)
    a = m.perturb(x, np.random.default_rng(3))
    b = m.perturb(x, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(UsageError, match=r"code 5 outside 0\.\.4"):
        m.perturb(np.array([0, 5]), np.random.default_rng(0))
    with pytest.raises(UsageError, match=r"shape \(n, 2\)"):
        k_rr((2, 2), 1.0).perturb(np.zeros(3, dtype=int), np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    keep=st.floats(0.05, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_structured_estimate_equals_dense_solve(sizes: list[int], keep: float, seed: int) -> None:
    m = UniformMixture(sizes, keep)
    obs = np.random.default_rng(seed).integers(0, 50, size=tuple(sizes)).astype(float)
    dense = RandomizationMatrix(m.dense(), sizes=sizes)
    np.testing.assert_allclose(m.estimate(obs), dense.estimate(obs), rtol=1e-9, atol=1e-9)
    pi = np.random.default_rng(seed + 1).dirichlet(np.ones(math.prod(sizes))).reshape(sizes)
    np.testing.assert_allclose(m.forward(pi), dense.forward(pi), atol=1e-12)


def test_estimate_rejects_wrong_shape() -> None:
    with pytest.raises(UsageError, match=r"observed must have shape \(3,\)"):
        keep_or_uniform(3, 0.5).estimate(np.ones(4))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_perturb_refuses_a_negative_or_too_large_code_of_any_integer_dtype(dtype: type) -> None:
    # the range check reads signed codes as unsigned (one pass): a negative code must still fail
    mech, rng = keep_or_uniform((3, 4), 0.5), np.random.default_rng(0)
    good = np.array([[0, 1], [2, 3], [1, 0]], dtype=dtype)
    assert mech.perturb(good, rng).shape == (3, 2)
    if np.issubdtype(dtype, np.signedinteger):
        with pytest.raises(UsageError, match=r"record 1, attribute 1: code -1 outside 0\.\.3"):
            mech.perturb(np.array([[0, 1], [2, -1], [1, 0]], dtype=dtype), rng)
    with pytest.raises(UsageError, match=r"record 2, attribute 0: code 3 outside 0\.\.2"):
        mech.perturb(np.array([[0, 1], [2, 3], [3, 0]], dtype=dtype), rng)
    strided = np.array([[0, -1, 1], [2, 9, 3]], dtype=np.int64)[:, ::2]  # a non-contiguous view
    assert mech.perturb(strided, rng).shape == (2, 2)


def test_perturb_keeps_its_stream_and_distribution() -> None:
    # the cell of a redraw is trunc((u - a) N / (1 - a)) of the record's one uniform
    rng = np.random.default_rng(7)
    x = rng.integers(0, 16, 50_000)
    u = np.random.default_rng(8).random(x.size)
    fresh = np.minimum(((u - 0.3) * (16 / 0.7)).astype(np.int64), 15)
    np.testing.assert_array_equal(
        keep_or_uniform(16, 0.3).perturb(x, np.random.default_rng(8)), np.where(u < 0.3, x, fresh)
    )
