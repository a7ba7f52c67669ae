"""Algorithm 2 (RR-Adjustment), including the paper's Example 1."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.data import load_adult
from mpc_rr.estimation import ADJUSTMENT_METHODS, dependence_matrix, rr_adjustment
from mpc_rr.mdrr import cluster_attributes, rr_independent
from mpc_rr.mechanisms import keep_or_uniform
from scenarios.reproduce.mdrr import attribute_epsilons, cluster_release

# Example 1: 4 x (a1, b1), 2 x (a2, b1), 0 x (a1, b2), 4 x (a2, b2); targets (1/2, 1/2)
Y = np.array([[0, 0]] * 4 + [[1, 0]] * 2 + [[1, 1]] * 4)
HALF = np.array([0.5, 0.5])


def joint(weights: np.ndarray) -> np.ndarray:
    return np.bincount(Y[:, 0] * 2 + Y[:, 1], weights=weights, minlength=4)


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_example1_first_pass_matches_the_paper(method: str) -> None:
    # one Adjust_weights call on the first attribute: w = 1/8 (first four), 1/12 (rest)
    res = rr_adjustment(Y, (2, 2), [(0,)], [HALF], max_iter=1, method=method)
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
        res = rr_adjustment(
            Y, (2, 2), [(0,), (1,)], [HALF, HALF], max_iter=t, tol=0, method="plain"
        )
        np.testing.assert_allclose(
            joint(res.weights), [float(w[0] * 4), 0, float(w[4] * 2), float(w[6] * 4)], atol=1e-14
        )
    res = rr_adjustment(
        Y, (2, 2), [(0,), (1,)], [HALF, HALF], max_iter=20_000, tol=0, method="plain"
    )
    assert joint(res.weights)[2] == pytest.approx(1 / (4 * 20_001), rel=1e-9)
    np.testing.assert_allclose(joint(res.weights), [0.5, 0.0, 0.0, 0.5], atol=2e-5)


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_zero_randomized_support_does_not_crash(method: str) -> None:
    # category 2 of attribute 0 never appears in Y but has target mass 0.2
    y = np.array([[0, 0], [1, 1], [0, 1], [1, 0]])
    res = rr_adjustment(
        y, (3, 2), [(0,), (1,)], [np.array([0.4, 0.4, 0.2]), HALF], max_iter=50, method=method
    )
    assert np.isfinite(res.weights).all() and res.weights.sum() == pytest.approx(1.0)
    assert res.unreachable_mass == pytest.approx(0.2)


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_target_zero_on_a_present_category(method: str) -> None:
    y = np.array([[0], [0], [1], [2]])
    res = rr_adjustment(y, (3,), [(0,)], [np.array([0.5, 0.0, 0.5])], max_iter=10, method=method)
    np.testing.assert_allclose(res.weights, [0.25, 0.25, 0.0, 0.5])
    assert res.converged and res.iterations == 2 and res.method == method


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_clusters_as_groups(method: str) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, size=(200, 3))
    target = np.full((2, 2), 0.25)
    res = rr_adjustment(
        y, (2, 2, 2), [(0, 1), (2,)], [target, HALF], max_iter=500, tol=1e-12, method=method
    )
    assert res.max_marginal_gap < 1e-9


def test_bad_targets_are_rejected() -> None:
    with pytest.raises(UsageError, match="has 3 cells, expected 2"):
        rr_adjustment(Y, (2, 2), [(0,)], [np.ones(3) / 3])
    with pytest.raises(UsageError, match="not a distribution"):
        rr_adjustment(Y, (2, 2), [(0,)], [np.array([0.9, 0.9])])
    with pytest.raises(UsageError, match="method must be one of"):
        rr_adjustment(Y, (2, 2), [(0,)], [HALF], method="squarem")
    with pytest.raises(UsageError, match=r"weights must be \(10,\)"):
        rr_adjustment(Y, (2, 2), [(0,)], [HALF], weights=np.ones(3))
    with pytest.raises(UsageError, match="max_iter must be >= 1"):
        rr_adjustment(Y, (2, 2), [(0,)], [HALF], max_iter=0)


# --- acceleration: same fixed point as the plain passes, far fewer of them -------------------


def test_example1_accelerated_reaches_the_exact_limit() -> None:
    """Plain IPF needs ~1/(4 d) passes to come within d of (1/2, 0, 0, 1/2) (sublinear:
    the limit is on the boundary); the accelerated passes get within 1e-9 in under 100."""
    res = rr_adjustment(Y, (2, 2), [(0,), (1,)], [HALF, HALF], max_iter=100, tol=1e-15)
    assert res.method == "anderson" and res.iterations < 100
    np.testing.assert_allclose(joint(res.weights), [0.5, 0.0, 0.0, 0.5], atol=1e-9)


def _odds_ratio_fit(counts: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Closed form of IPF on a 2 x 2 table: the margins given, the odds ratio of ``counts``."""
    theta = counts[0, 0] * counts[1, 1] / (counts[0, 1] * counts[1, 0])
    r1, c1 = rows[0], cols[0]
    # x (1 - r1 - c1 + x) = theta (r1 - x)(c1 - x), x = P[0, 0]
    roots = np.roots([1 - theta, 1 - r1 - c1 + theta * (r1 + c1), -theta * r1 * c1])
    x = next(float(v.real) for v in roots if max(0.0, r1 + c1 - 1) < v.real < min(r1, c1))
    return np.array([[x, r1 - x], [c1 - x, 1 - r1 - c1 + x]])


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_two_by_two_matches_the_odds_ratio_closed_form(method: str) -> None:
    counts = np.array([[4, 2], [1, 3]])
    y = np.array([[a, b] for a in (0, 1) for b in (0, 1) for _ in range(counts[a, b])])
    rows, cols = np.array([0.3, 0.7]), np.array([0.6, 0.4])
    res = rr_adjustment(y, (2, 2), [(0,), (1,)], [rows, cols], tol=1e-15, method=method)
    fitted = _odds_ratio_fit(counts.astype(float), rows, cols)
    np.testing.assert_allclose(
        res.weights, fitted[y[:, 0], y[:, 1]] / counts[y[:, 0], y[:, 1]], atol=1e-13
    )
    assert res.converged and res.max_marginal_gap < 1e-12


def _noisy_problem(
    seed: int,
) -> tuple[np.ndarray, tuple[int, ...], list[tuple[int, ...]], list[np.ndarray]]:
    """Correlated records, a cluster, and targets with zeros and an absent category."""
    rng = np.random.default_rng(seed)
    n = 3000
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    c = np.where(rng.random(n) < 0.6, a % 3, rng.integers(0, 3, n))
    d = rng.integers(0, 4, n)  # category 4 of d never occurs
    y = np.stack([a, b, c, d], axis=1)
    sizes = (4, 4, 3, 5)
    groups = [(0, 1), (2,), (3,)]
    t01 = rng.dirichlet(np.ones(16))
    t01[[3, 7]] = 0.0  # zero targets on present cells
    t01 /= t01.sum()
    return y, sizes, groups, [t01, rng.dirichlet(np.ones(3)), rng.dirichlet(np.ones(5))]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_accelerated_and_plain_share_the_fixed_point(seed: int) -> None:
    y, sizes, groups, targets = _noisy_problem(seed)
    plain = rr_adjustment(y, sizes, groups, targets, tol=1e-14, max_iter=100_000, method="plain")
    fast = rr_adjustment(y, sizes, groups, targets, tol=1e-14, max_iter=100_000)
    assert plain.converged and fast.converged
    np.testing.assert_allclose(fast.weights, plain.weights, rtol=0, atol=1e-9)
    assert abs(fast.weights - plain.weights).sum() < 1e-9
    assert fast.iterations < plain.iterations
    assert fast.unreachable_mass == plain.unreachable_mass == pytest.approx(targets[2][4])


def test_unreachable_mass_counts_categories_whose_records_are_all_zeroed() -> None:
    # category 1 of attribute 0 only occurs with category 1 of attribute 1, whose target is 0
    y = np.array([[0, 0], [0, 0], [1, 1], [0, 1]])
    t0, t1 = np.array([0.7, 0.3]), np.array([1.0, 0.0])
    for method in ADJUSTMENT_METHODS:
        res = rr_adjustment(y, (2, 2), [(0,), (1,)], [t0, t1], method=method)
        assert res.unreachable_mass == pytest.approx(0.3)
        np.testing.assert_allclose(res.weights, [0.5, 0.5, 0.0, 0.0])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([(2, 2), (3, 2), (2, 3, 2), (4, 3)]),
)
def test_full_support_problems_share_the_fixed_point(seed: int, sizes: tuple[int, ...]) -> None:
    """Every cell of the joint present and positive targets: the fitted weights are interior
    and unique, and the accelerated passes find the same ones as the plain passes."""
    rng = np.random.default_rng(seed)
    cells = np.array(np.unravel_index(np.arange(int(np.prod(sizes))), sizes)).T
    y = np.concatenate([cells, cells[rng.integers(0, len(cells), 40)]])
    groups = [(j,) for j in range(len(sizes))]
    targets = [rng.dirichlet(np.ones(s)) + 1e-3 for s in sizes]
    targets = [t / t.sum() for t in targets]
    plain = rr_adjustment(y, sizes, groups, targets, tol=1e-14, max_iter=200_000, method="plain")
    fast = rr_adjustment(y, sizes, groups, targets, tol=1e-14, max_iter=200_000)
    assert plain.converged and fast.converged
    np.testing.assert_allclose(fast.weights, plain.weights, rtol=0, atol=1e-9)


def test_adult_release_at_p09_converges_within_the_pipeline_cap() -> None:
    """A real RR-Clusters release (Adult, p = 0.9, Tv = 100, Td = 0.1): the plain passes
    stop at the pipeline's 50-pass cap unconverged; the accelerated ones converge well
    within it, to the weights the plain passes reach given enough passes."""
    data = load_adult()
    sizes = data.schema.sizes
    rng = np.random.default_rng(9)
    ind = rr_independent(data.codes, sizes, [keep_or_uniform(s, 0.9) for s in sizes], rng)
    cl = cluster_attributes(dependence_matrix(ind.randomized, data.schema), sizes, 100, 0.1)
    clu = cluster_release(data, cl, attribute_epsilons(sizes, 0.9), rng)
    args = (clu.randomized, sizes, clu.groups, [e.distribution for e in clu.estimates])
    assert not rr_adjustment(*args, max_iter=50, method="plain").converged
    fast = rr_adjustment(*args, max_iter=50)
    assert fast.converged and fast.iterations <= 30
    ref = rr_adjustment(*args, tol=1e-14, max_iter=10_000, method="plain")
    assert ref.converged
    assert abs(fast.weights - ref.weights).sum() < 1e-8


@pytest.mark.parametrize("method", ADJUSTMENT_METHODS)
def test_conflicting_targets_converge_to_the_same_limit(method: str) -> None:
    """Noisy estimates can conflict: the only record of B = 2 lies in A = 1, which the
    target of A limits to 0.01 while B asks 0.03 of it.  The passes still converge (the
    other A = 1 records decay to 0, the log-factors drift), to one limit for both methods."""
    y = np.array([[0, 0]] * 40 + [[0, 1]] * 40 + [[1, 2]] + [[1, 0]] * 5)
    targets = [np.array([0.99, 0.01]), np.array([0.5, 0.47, 0.03])]
    args = (y, (2, 3), [(0,), (1,)], targets)
    ref = rr_adjustment(*args, tol=1e-14, max_iter=100_000, method="plain")
    res = rr_adjustment(*args, tol=1e-14, max_iter=100_000, method=method)
    assert ref.converged and res.converged
    assert abs(res.weights - ref.weights).sum() < 1e-9
    assert res.weights[80] == pytest.approx(0.03) and res.weights[81:].max() < 1e-12
    assert res.max_marginal_gap == pytest.approx(0.04)  # irreducible: B's 0.03 vs A's 0.01
