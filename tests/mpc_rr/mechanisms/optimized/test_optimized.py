"""Privacy-optimized RR (Yamamoto & Shibuya): LP, closed form, heuristic, sampling, estimation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import CompactPattern, JointMechanism, TablePattern, local_epsilon
from mpc_rr.mechanisms._kron import subset_counts
from mpc_rr.mechanisms.optimized import optimize, solve_heuristic, solve_lp
from mpc_rr.mechanisms.optimized._heuristic import (
    closed_form_two,
    heuristic_in_order,
    heuristic_reference,
)


def _marginal_epsilons_from_dense(mat: np.ndarray, sizes: tuple[int, ...]) -> list[float]:
    """Per-attribute epsilon of the *built* matrix, from its marginal mechanisms (Eq. 2).

    For attribute i, sum P over all output cells with output_i = v; the result
    must depend on the input only through input_i (checked), giving an
    n_i x n_i matrix whose epsilon is taken.
    """
    k = len(sizes)
    tensor = mat.reshape(sizes + sizes)
    out = []
    for i in range(k):
        other_out = tuple(k + j for j in range(k) if j != i)
        marg = tensor.sum(axis=other_out)  # shape sizes + (n_i,)
        moved = np.moveaxis(marg, i, 0).reshape(sizes[i], -1, sizes[i])
        assert np.allclose(moved, moved[:, :1, :], atol=1e-13)  # independent of other inputs
        out.append(local_epsilon(moved[:, 0, :]))
    return out


# -- k = 2: closed form vs LP in all four cases --------------------------------------

CASES = {
    "I": (5, 5, 3.0, 1.0),
    "II": (5, 5, 1.0, 3.0),
    "III": (10, 10, 0.5, 1.0),
    "IV": (10, 10, 1.0, 0.5),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_closed_form_equals_lp_optimum(case):
    m, n, e1, e2 = CASES[case]
    x0, x1, x2, label = closed_form_two(m, n, e1, e2)
    assert label == case
    lp = solve_lp((m, n), (e1, e2))
    assert lp.overall_epsilon == pytest.approx(math.log(x0), abs=1e-7)
    # the LP's optimal ratios coincide with the closed form's (X_S / X_full)
    levels = lp.levels()
    np.testing.assert_allclose(levels[:3] / levels[3], [x0, x1, x2], rtol=1e-6)
    # and the heuristic for k = 2 *is* the closed form
    heur = solve_heuristic((m, n), (e1, e2))
    assert heur.overall_epsilon == pytest.approx(math.log(x0), rel=1e-12)


# -- the LP --------------------------------------------------------------------------


def test_known_value_555_eps_234():
    result = solve_lp((5, 5, 5), (2, 3, 4))
    assert round(result.overall_epsilon, 4) == 6.6633
    assert result.kronecker_epsilon == 9.0
    assert result.method == "lp"
    dense = result.dense_matrix()
    assert local_epsilon(dense) == pytest.approx(result.overall_epsilon, rel=1e-12)
    marginal = _marginal_epsilons_from_dense(dense, (5, 5, 5))
    np.testing.assert_allclose(marginal, [2, 3, 4], atol=1e-7)


@st.composite
def small_problems(draw, max_k: int = 4, max_cells: int = 600):
    k = draw(st.integers(2, max_k))
    sizes = []
    for _ in range(k):
        room = max_cells // max(1, math.prod(sizes))
        sizes.append(draw(st.integers(2, max(2, min(5, room)))))
    eps = [draw(st.floats(0.2, 6.0)) for _ in sizes]
    return tuple(sizes), tuple(eps)


@settings(max_examples=25, deadline=None)
@given(problem=small_problems())
def test_lp_and_heuristic_meet_requests_and_bounds(problem):
    sizes, eps = problem
    lp = solve_lp(sizes, eps)
    dense = lp.dense_matrix()
    # per-attribute epsilons computed from the built matrix equal the requested ones
    np.testing.assert_allclose(_marginal_epsilons_from_dense(dense, sizes), eps, atol=1e-6)
    np.testing.assert_allclose(lp.achieved_epsilons, eps, atol=1e-6)
    assert local_epsilon(dense) == pytest.approx(lp.overall_epsilon, rel=1e-9)
    assert lp.overall_epsilon <= sum(eps) + 1e-7  # at most the Kronecker epsilon
    try:
        heur = solve_heuristic(sizes, eps, on_mismatch="reorder")
    except UsageError:
        # refusal must be justified: in every order Algorithm 3 changes some epsilon
        for order in itertools.permutations(range(len(sizes))):
            mech, _ = heuristic_in_order(sizes, eps, order)
            assert not np.allclose(mech.epsilons, eps, rtol=1e-6, atol=0)
        return
    hdense = heur.dense_matrix()
    np.testing.assert_allclose(_marginal_epsilons_from_dense(hdense, sizes), eps, rtol=1e-6)
    assert heur.overall_epsilon >= lp.overall_epsilon - 1e-6  # LP is optimal
    assert heur.overall_epsilon <= sum(eps) + 1e-9


def test_lp_validation():
    with pytest.raises(UsageError, match="the exact LP needs 2 <= k <= 16"):
        solve_lp((3,), (1.0,))
    with pytest.raises(UsageError, match=r"epsilons\[1\] must satisfy 0 < eps"):
        solve_lp((3, 3), (1.0, -1.0))
    with pytest.raises(UsageError, match="need one epsilon per attribute: 2 sizes but 3"):
        solve_lp((3, 3), (1.0, 1.0, 1.0))
    with pytest.raises(UsageError, match="method must be 'lp', 'heuristic' or 'auto'"):
        optimize((3, 3), (1.0, 1.0), method="exact")


# -- the heuristic -------------------------------------------------------------------


def test_heuristic_matches_the_literal_algorithm():
    rng = np.random.default_rng(5)
    for k in (3, 5, 8, 20, 30):
        a = [int(v) for v in rng.integers(2, 6, k)]
        eps = [float(v) for v in rng.uniform(1, 10, k)]
        ratios = np.array(heuristic_reference(a, eps))
        mech, _ = heuristic_in_order(tuple(a), tuple(eps), tuple(range(k)))
        d0, singles, log_rest = mech.d0, mech.singles, mech.log_rest
        rest = math.exp(log_rest)
        np.testing.assert_allclose(1 + d0 / rest, ratios[0], rtol=1e-10)
        np.testing.assert_allclose(1 + singles / rest, ratios[1:], rtol=1e-10)


def test_heuristic_fallback_weakens_eps5_and_is_refused():
    sizes, eps = (5, 5, 5, 5, 5), (5, 4, 3, 2, 1)
    mech, fallbacks = heuristic_in_order(sizes, eps, tuple(range(5)))
    assert fallbacks == (4,)
    assert mech.epsilons[4] == pytest.approx(5.0, abs=1e-9)  # the known silent weakening
    with pytest.raises(UsageError, match=r"attribute 4: requested 1, achieved 5 \(weaker\)"):
        solve_heuristic(sizes, eps)
    with pytest.raises(UsageError, match="cannot meet the requested epsilons with any of 120"):
        solve_heuristic(sizes, eps, on_mismatch="reorder")
    exact = optimize(sizes, eps, method="auto")  # the LP always meets the request
    np.testing.assert_allclose(exact.achieved_epsilons, eps, atol=1e-6)


def test_heuristic_depends_on_order_and_reorder_finds_one():
    forward = (2.0, 3.0, 4.0)
    with pytest.raises(UsageError, match=r"attribute 2: requested 4, achieved 3 \(stronger\)"):
        solve_heuristic((5, 5, 5), forward)
    backward = solve_heuristic((5, 5, 5), (4.0, 3.0, 2.0))
    assert round(backward.overall_epsilon, 4) == 6.6633
    found = solve_heuristic((5, 5, 5), forward, on_mismatch="reorder")
    assert found.order != (0, 1, 2)
    np.testing.assert_allclose(found.achieved_epsilons, forward, rtol=1e-9)
    assert round(found.overall_epsilon, 4) == 6.6633
    dense = found.dense_matrix()
    np.testing.assert_allclose(_marginal_epsilons_from_dense(dense, (5, 5, 5)), forward, rtol=1e-9)


def test_heuristic_large_k_is_stable():
    k = 10_000
    sizes, eps = (5,) * k, (3.0,) * k
    result = solve_heuristic(sizes, eps)
    assert result.fallback_attributes == ()
    np.testing.assert_allclose(result.achieved_epsilons, eps, rtol=1e-9)
    assert math.isfinite(result.overall_epsilon)
    assert 0 < result.overall_epsilon < sum(eps)
    # rows still sum to one: no-change + single changes + all the rest
    keep, other = result.marginal_probabilities()
    np.testing.assert_allclose(keep + 4 * other, 1.0, rtol=1e-9)


def test_heuristic_validation():
    with pytest.raises(UsageError, match="on_mismatch must be 'raise' or 'reorder'"):
        solve_heuristic((3, 3), (1, 1), on_mismatch="ignore")
    with pytest.raises(UsageError, match=r"order must be a permutation of 0\.\.2"):
        solve_heuristic((3, 3, 3), (1, 1, 1), order=(0, 0, 1))
    with pytest.raises(UsageError, match="need k >= 2 attributes"):
        solve_heuristic((3,), (1,))


# -- the mechanism: estimation and sampling ------------------------------------------


@settings(max_examples=25, deadline=None)
@given(problem=small_problems(max_k=5, max_cells=300), seed=st.integers(0, 2**32 - 1))
def test_structured_estimate_matches_dense_solve(problem, seed):
    sizes, eps = problem
    mech = solve_lp(sizes, eps)
    obs = np.random.default_rng(seed).random(sizes) * 50
    spectrum = np.abs(np.linalg.eigvalsh(mech.dense_matrix()))  # P is symmetric
    if spectrum.min() < 1e-10 * spectrum.max():
        # some LP optima are singular (e.g. sizes (2,)*5, eps 1 each): refused, not garbage
        with pytest.raises(UsageError, match="singular"):
            mech.estimate(obs)
        return
    dense = np.linalg.solve(mech.dense_matrix().T, obs.ravel()).reshape(sizes)
    scale = np.abs(dense).max()
    np.testing.assert_allclose(mech.estimate(obs), dense, rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(mech.estimate(obs, method="dense"), dense, atol=1e-9 * scale)


def test_structured_estimate_for_heuristic_mechanism():
    sizes = (4, 3, 5, 2, 6)
    mech = solve_heuristic(sizes, (4.0, 3.0, 5.0, 2.0, 6.0), on_mismatch="reorder")
    assert mech.method == "heuristic" and mech.order == (0, 4, 1, 2, 3)
    obs = np.random.default_rng(2).random(sizes)
    dense = np.linalg.solve(mech.dense_matrix().T, obs.ravel()).reshape(sizes)
    np.testing.assert_allclose(mech.estimate(obs), dense, rtol=1e-9, atol=1e-9)


def test_singular_mechanism_is_refused():
    sizes = (2, 3)
    uniform = TablePattern(sizes, np.full(4, 1 / 6))
    with pytest.raises(UsageError, match="singular"):
        uniform.estimate(np.ones(sizes))


def test_levels_must_be_stochastic():
    with pytest.raises(UsageError, match="row sum"):
        TablePattern((2, 2), np.full(4, 0.5))


def _sampling_check(mech, record, n=150_000, seed=11):
    sizes = mech.sizes
    dense = mech.dense_matrix()
    out = mech.perturb(np.tile(np.asarray(record), (n, 1)), np.random.default_rng(seed))
    freq = np.bincount(np.ravel_multi_index(out.T, sizes), minlength=dense.shape[0]) / n
    expected = dense[np.ravel_multi_index(record, sizes)]
    se = np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(freq - expected) <= 5 * se + 1e-12)


def test_perturb_table_form_draws_from_matrix_rows():
    mech = solve_lp((2, 3, 4), (1.0, 0.7, 1.5))
    _sampling_check(mech, [1, 0, 3])


def test_perturb_compact_form_draws_from_matrix_rows():
    mech = solve_heuristic((3, 4, 2), (1.5, 1.0, 0.8), on_mismatch="reorder")
    assert isinstance(mech.mechanism, CompactPattern)
    _sampling_check(mech, [2, 1, 0])


def test_perturb_compact_many_attributes():
    k, n = 100, 20_000
    mech = solve_heuristic((4,) * k, (4.0,) * k)
    assert mech.method == "heuristic" and isinstance(mech.mechanism, CompactPattern)
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, size=(n, k), dtype=np.int32)
    out = mech.perturb(codes, rng)
    assert out.shape == codes.shape and out.dtype == codes.dtype
    assert out.min() >= 0 and out.max() < 4
    keep, _ = mech.marginal_probabilities()
    # every attribute keeps its value with its marginal keep probability (per-column binomial)
    kept = (out == codes).mean(axis=0)
    assert np.all(np.abs(kept - keep) <= 5 * np.sqrt(keep * (1 - keep) / n))
    # and unchanged records appear with probability X_empty
    d0, log_rest = mech.mechanism.d0, mech.mechanism.log_rest
    x_empty = math.exp(log_rest) + d0
    unchanged = (out == codes).all(axis=1).mean()
    assert abs(unchanged - x_empty) <= 5 * math.sqrt(x_empty * (1 - x_empty) / n)


def test_heuristic_never_worse_than_kronecker():
    sizes, eps = (2, 2, 2), (0.25, 0.25, 0.25)
    raw, _ = heuristic_in_order(sizes, eps, (0, 1, 2))
    assert raw.epsilon == pytest.approx(0.758982516758, abs=1e-9)  # Algorithm 3 as printed
    result = solve_heuristic(sizes, eps)
    assert result.method == "kronecker"
    assert result.overall_epsilon == pytest.approx(0.75, abs=1e-12)
    dense = result.dense_matrix()
    np.testing.assert_allclose(_marginal_epsilons_from_dense(dense, sizes), eps, atol=1e-12)


def test_subset_counts_and_mechanism_protocol():
    np.testing.assert_array_equal(subset_counts((3, 5)), [1, 2, 4, 8])
    assert isinstance(solve_lp((2, 2), (1.0, 1.0)), JointMechanism)
