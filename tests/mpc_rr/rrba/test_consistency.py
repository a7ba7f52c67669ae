"""The consistency QP of RRBA (Sec. 4.3): its constraints met, equal to a generic solver, bad
input named."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.rrba import reconstruct
from mpc_rr.rrba._consistency import marginal_constraints, solve_simplex_qp


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
