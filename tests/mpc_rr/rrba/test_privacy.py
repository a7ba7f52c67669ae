"""True epsilon of RRBA answers; the consistency QP (Sec. 4.3); Eq. 7 and the independence test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import local_epsilon
from mpc_rr.rrba import (
    Layout,
    chi2_independence,
    elastic_fit,
    epsilon_cap,
    implied_matrix,
    independence_test,
    marginal_constraints,
    paper_epsilon,
    rank_threshold,
    reconstruct,
    rrba_simulator,
    solve_simplex_qp,
    table_epsilon,
    view_epsilon,
)


# --------------------------------------------------------------------------- epsilon
@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(1e-4, 1.0), min_size=2, max_size=12),
    st.floats(0.01, 0.99),
)
def test_true_epsilon_is_the_max_column_ratio(w: list[float], p: float) -> None:
    t = np.array(w) / sum(w)
    got = table_epsilon(t[None], Layout((t.size,)), p)[0]
    assert got == pytest.approx(local_epsilon(implied_matrix(t, p)), rel=1e-9)
    assert got >= paper_epsilon(p)  # never below the paper's figure for >= 2 cells


def test_design_note_5_example_and_edges() -> None:
    lay = Layout((4, 1, 2))
    tabs = np.array([[0.25] * 4, [1.0, 0, 0, 0], [0.5, 0.5, 0, 0]])
    eps = table_epsilon(tabs, lay, 0.5)
    assert eps[0] == pytest.approx(math.log(5)) and eps[1] == 0.0  # one cell: nothing to hide
    assert paper_epsilon(0.5) == pytest.approx(math.log(2))
    assert table_epsilon(np.array([[0.5, 0.5, 0.0, 0.0]]), Layout((4,)), 0.5)[0] == math.inf
    assert table_epsilon(tabs, lay, 1.0)[0] == math.inf
    # views compose: 2 x 2 uniform and the 2-cell table in one view
    assert view_epsilon(eps, np.array([[0, 2], [1, -1]])).tolist() == pytest.approx(
        [math.log(5) + math.log(3), 0.0]
    )
    # a floor f caps one subset's epsilon at ln(1 + p / ((1 - p) f))
    assert epsilon_cap(0.01, 0.5) == pytest.approx(math.log(101))


# ----------------------------------------------------------------------- consistency
def _views_of(joint: np.ndarray, subsets: list[tuple[int, ...]]) -> list[np.ndarray]:
    d = joint.ndim
    return [joint.sum(axis=tuple(a for a in range(d) if a not in s)) for s in subsets]


def test_qp_meets_its_constraints_on_consistent_views() -> None:
    rng = np.random.default_rng(0)
    sizes = (2, 3, 2, 2)
    joint = rng.dirichlet(np.ones(24)).reshape(sizes)
    subsets = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]
    tables = _views_of(joint, subsets)
    m = reconstruct((0, 1, 2), sizes, subsets, tables)
    A, b = marginal_constraints((0, 1, 2), sizes, subsets, tables)
    x = m.table.reshape(-1)
    assert m.residual < 1e-6  # consistent, realizable views
    assert x.min() >= 0 and x.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(A @ x, b, atol=1e-6)
    # the paper's objective: never above the true marginal's, which is feasible
    truth = joint.sum(axis=3)
    assert (x**2).sum() <= (truth**2).sum() + 1e-7


def test_qp_equals_a_generic_solver_on_noisy_views() -> None:
    rng = np.random.default_rng(1)
    sizes = (2, 2, 3, 2)
    joint = rng.dirichlet(np.ones(24)).reshape(sizes)
    subsets = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]
    noisy = [np.clip(t + rng.normal(0, 0.02, t.shape), 0, None) for t in _views_of(joint, subsets)]
    noisy = [t / t.sum() for t in noisy]
    ours = reconstruct((0, 1, 2), sizes, subsets, noisy)
    generic = reconstruct((0, 1, 2), sizes, subsets, noisy, solver="scipy")
    assert ours.residual > 1e-3  # the views disagree: the paper's program alone is infeasible
    np.testing.assert_allclose(ours.table, generic.table, atol=2e-4)
    A, b = marginal_constraints((0, 1, 2), sizes, subsets, noisy)
    # stage 1 optimality: no feasible point fits the constraints better (random simplex points)
    best = np.linalg.norm(A @ ours.table.reshape(-1) - b)
    rand = rng.dirichlet(np.ones(12), size=2000)
    assert best <= np.linalg.norm(rand @ A.T - b, axis=1).min() + 1e-9


def test_qp_bad_input() -> None:
    with pytest.raises(UsageError, match="no table of the views covers any attribute"):
        reconstruct((3,), (2, 2, 2, 2), [(0, 1)], [np.full(4, 0.25)])
    with pytest.raises(UsageError, match="solver must be one of"):
        solve_simplex_qp(np.eye(2), np.zeros(2), solver="cvx")


# ----------------------------------------------------------------------- independence
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
