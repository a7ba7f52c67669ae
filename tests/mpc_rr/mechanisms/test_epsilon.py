"""The one epsilon definition (mpc_rr.mechanisms.local_epsilon) against known closed forms,
and every mechanism's closed-form epsilon against it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    LambdaRandomization,
    RandomizationMatrix,
    cluster_matrix,
    k_rr,
    keep_or_uniform,
    local_epsilon,
    mixture_epsilon,
)
from mpc_rr.mechanisms._lambda import factor_epsilon
from mpc_rr.mechanisms.optimized import kronecker_mechanism, solve_heuristic, solve_lp
from mpc_rr.mechanisms.optimized._heuristic import heuristic_in_order


def _mixture(keep: float, n: int) -> np.ndarray:
    """``keep I + (1 - keep) J / n`` built from its definition."""
    return keep * np.eye(n) + (1.0 - keep) / n * np.ones((n, n))


# -- the definition against closed forms, on matrices built by hand ------------------


@pytest.mark.parametrize("n", [2, 3, 9, 16])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9])
def test_keep_or_uniform_closed_form(p: float, n: int) -> None:
    # docs/rr_library.md, decision 1: ln(1 + p N / (1 - p)), not the paper's ln(p N / (1 - p))
    expected = math.log(1 + p * n / (1 - p))
    assert local_epsilon(_mixture(p, n)) == pytest.approx(expected, rel=1e-12)
    assert mixture_epsilon(p, n) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("k", "eps"), [(2, 0.5), (5, 1.3), (12, 3.0), (100, 0.1)])
def test_k_rr_closed_form(k: int, eps: float) -> None:
    e = math.exp(eps)
    dense = np.full((k, k), 1.0 / (e + k - 1))
    np.fill_diagonal(dense, e / (e + k - 1))
    assert local_epsilon(dense) == pytest.approx(eps, rel=1e-12)


@pytest.mark.parametrize(("sizes", "eps"), [((3, 4), 2.0), ((2, 2, 5), 0.7), ((9,), 4.0)])
def test_cluster_matrix_closed_form(sizes: tuple[int, ...], eps: float) -> None:
    # docs/rr_library.md, decision 2: p_C = 1 / (1 + (prod|A| - 1) exp(-eps)), off-diagonal p_C exp(-eps)
    n = math.prod(sizes)
    pc = 1.0 / (1.0 + (n - 1) * math.exp(-eps))
    dense = np.full((n, n), pc * math.exp(-eps))
    np.fill_diagonal(dense, pc)
    np.testing.assert_allclose(dense.sum(axis=1), 1.0)
    assert local_epsilon(dense) == pytest.approx(eps, rel=1e-12)
    # the printed sign (1 - prod|A|) gives no probability at all here
    printed = 1.0 / (1.0 + (1 - n) * math.exp(-eps))
    assert not 0.0 <= printed <= 1.0


def test_zeros_next_to_positive_entries_and_unused_columns() -> None:
    assert local_epsilon(np.eye(3)) == math.inf
    assert local_epsilon(np.full((3, 3), 1 / 3)) == 0.0
    # a column that is never reported does not count
    assert local_epsilon(np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]])) == pytest.approx(
        math.log(2.0)
    )
    assert local_epsilon(np.ones((1, 1))) == 0.0


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones(3), r"matrix must be a non-empty 2-D array, got shape \(3,\)"),
        (np.ones((0, 0)), r"non-empty 2-D array, got shape \(0, 0\)"),
        (np.array([[1.2, -0.2], [0.5, 0.5]]), "finite and non-negative"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), "finite and non-negative"),
        (np.zeros((2, 2)), "no positive entry"),
    ],
)
def test_local_epsilon_rejects_non_matrices(matrix: np.ndarray, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        local_epsilon(matrix)


@settings(max_examples=60, deadline=None)
@given(keep=st.floats(0.0, 1.0), n=st.integers(1, 40))
def test_mixture_epsilon_equals_the_definition(keep: float, n: int) -> None:
    dense = _mixture(keep, n)
    expected = local_epsilon(dense)
    got = mixture_epsilon(keep, n)
    if math.isinf(expected):
        assert math.isinf(got)
    else:
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert factor_epsilon(keep, n) == got


# -- every mechanism's closed form against the definition ----------------------------


def _dense(mech: object) -> np.ndarray:
    dense = getattr(mech, "dense_matrix", None) or mech.dense
    return np.asarray(dense())


MECHANISMS = {
    "keep-or-uniform": lambda: keep_or_uniform(7, 0.3),
    "keep-or-uniform joint": lambda: keep_or_uniform((3, 4), 0.6),
    "keep-or-uniform one category": lambda: keep_or_uniform(1, 0.6),
    "k-rr": lambda: k_rr(5, 1.3),
    "cluster": lambda: cluster_matrix((3, 4, 2), 2.5),
    "dense": lambda: RandomizationMatrix([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]]),
    "lambda": lambda: LambdaRandomization((3, 4, 2), (0.3, 0.8, 0.5)),
    "lambda, λ = 1": lambda: LambdaRandomization((3, 2), (1.0, 0.5)),
    "optimized lp": lambda: solve_lp((5, 5, 5), (2.0, 3.0, 4.0)),
    "optimized heuristic": lambda: solve_heuristic(
        (4, 3, 5), (4.0, 3.0, 5.0), on_mismatch="reorder"
    ),
    "optimized kronecker": lambda: solve_heuristic((2, 2, 2), (0.25, 0.25, 0.25)),
    "kronecker": lambda: kronecker_mechanism((3, 4), (1.0, 2.0)),
    "table pattern": lambda: solve_lp((2, 3, 4), (1.0, 0.7, 1.5)).mechanism,
    "compact pattern": lambda: heuristic_in_order((4, 3, 5), (4.0, 3.0, 5.0), (0, 1, 2))[0],
}


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_closed_form_epsilon_equals_the_definition(name: str) -> None:
    mech = MECHANISMS[name]()
    expected = local_epsilon(_dense(mech))
    if math.isinf(expected):
        assert math.isinf(mech.epsilon)
    else:
        assert mech.epsilon == pytest.approx(expected, rel=1e-9, abs=1e-12)
