"""Algorithm 2 (RR-Adjustment), including the paper's Example 1."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mpc_rr.adjustment import rr_adjustment
from mpc_rr.errors import UsageError

# Example 1: 4 x (a1, b1), 2 x (a2, b1), 0 x (a1, b2), 4 x (a2, b2); targets (1/2, 1/2)
Y = np.array([[0, 0]] * 4 + [[1, 0]] * 2 + [[1, 1]] * 4)
HALF = np.array([0.5, 0.5])


def joint(weights: np.ndarray) -> np.ndarray:
    return np.bincount(Y[:, 0] * 2 + Y[:, 1], weights=weights, minlength=4)


def test_example1_first_pass_matches_the_paper() -> None:
    # one Adjust_weights call on the first attribute: w = 1/8 (first four), 1/12 (rest)
    res = rr_adjustment(Y, (2, 2), [(0,)], [HALF], max_iter=1)
    np.testing.assert_allclose(res.weights[:4], 1 / 8)
    np.testing.assert_allclose(res.weights[4:], 1 / 12)
    # side effect on the second attribute: (2/3, 1/3)
    np.testing.assert_allclose(np.bincount(Y[:, 1], weights=res.weights), [2 / 3, 1 / 3])


def test_example1_converges_to_half_zero_zero_half() -> None:
    """The iterates follow mass(a2, b1) = 1/(4(t+1)) exactly, so the limit is exactly
    (1/2, 0, 0, 1/2); checked against exact rational arithmetic of the same updates."""
    w = [Fraction(1, 10)] * 10
    for t in range(1, 30):
        for j in (0, 1):
            s = [sum(wi for wi, y in zip(w, Y[:, j], strict=True) if y == k) for k in (0, 1)]
            w = [wi * Fraction(1, 2) / s[y] for wi, y in zip(w, Y[:, j], strict=True)]
        assert w[4] * 2 == Fraction(1, 4 * (t + 1))
        res = rr_adjustment(Y, (2, 2), [(0,), (1,)], [HALF, HALF], max_iter=t, tol=0)
        np.testing.assert_allclose(
            joint(res.weights), [float(w[0] * 4), 0, float(w[4] * 2), float(w[6] * 4)], atol=1e-14
        )
    res = rr_adjustment(Y, (2, 2), [(0,), (1,)], [HALF, HALF], max_iter=20_000, tol=0)
    assert joint(res.weights)[2] == pytest.approx(1 / (4 * 20_001), rel=1e-9)
    np.testing.assert_allclose(joint(res.weights), [0.5, 0.0, 0.0, 0.5], atol=2e-5)


def test_zero_randomized_support_does_not_crash() -> None:
    # category 2 of attribute 0 never appears in Y but has target mass 0.2
    y = np.array([[0, 0], [1, 1], [0, 1], [1, 0]])
    res = rr_adjustment(y, (3, 2), [(0,), (1,)], [np.array([0.4, 0.4, 0.2]), HALF], max_iter=50)
    assert np.isfinite(res.weights).all() and res.weights.sum() == pytest.approx(1.0)
    assert res.unreachable_mass == pytest.approx(0.2)


def test_target_zero_on_a_present_category() -> None:
    y = np.array([[0], [0], [1], [2]])
    res = rr_adjustment(y, (3,), [(0,)], [np.array([0.5, 0.0, 0.5])], max_iter=10)
    np.testing.assert_allclose(res.weights, [0.25, 0.25, 0.0, 0.5])
    assert res.converged and res.iterations == 2


def test_clusters_as_groups() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=(200, 3))
    target = np.full((2, 2), 0.25)
    res = rr_adjustment(y, (2, 2, 2), [(0, 1), (2,)], [target, HALF], max_iter=500, tol=1e-12)
    assert res.max_marginal_gap < 1e-9


def test_bad_targets_are_rejected() -> None:
    with pytest.raises(UsageError, match="has 3 cells, expected 2"):
        rr_adjustment(Y, (2, 2), [(0,)], [np.ones(3) / 3])
    with pytest.raises(UsageError, match="not a distribution"):
        rr_adjustment(Y, (2, 2), [(0,)], [np.array([0.9, 0.9])])
