"""Count queries (Sec. 6.5), exact models answering them, relative error and distances."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.estimation import (
    CountQuery,
    answer,
    jensen_shannon,
    l2_distance,
    make_queries,
    relative_error,
    true_count,
)
from mpc_rr.estimation._models import FactorModel, WeightedRecords


def test_queries_follow_section_6_5() -> None:
    rng = np.random.default_rng(0)
    codes = np.stack(
        [rng.integers(0, 4, 500), rng.integers(0, 5, 500), rng.integers(0, 2, 500)], axis=1
    )
    qs = make_queries(codes, (4, 5, 2), 50, 0.3, rng)
    for q in qs:
        a, b = q.attrs
        assert a < b and q.mask.shape == ((4, 5, 2)[a], (4, 5, 2)[b])
        assert q.mask.sum() == max(1, round(0.3 * q.mask.size))
        assert true_count(codes, q) >= 1
    with pytest.raises(UsageError, match=r"sigma must be in \(0, 1\]"):
        make_queries(codes, (4, 5, 2), 1, 0.0, rng)


def test_exact_models_answer_exactly() -> None:
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 3, size=(300, 3))
    q = CountQuery((0, 2), rng.random((3, 3)) < 0.5)
    # the true joint as one factor
    joint = (
        np.bincount(np.ravel_multi_index(tuple(codes.T), (3, 3, 3)), minlength=27).reshape(3, 3, 3)
        / 300
    )
    assert answer(FactorModel((3, 3, 3), ((0, 1, 2),), (joint,)), q, 300) == pytest.approx(
        true_count(codes, q)
    )
    assert answer(
        WeightedRecords((3, 3, 3), codes, np.full(300, 1 / 300)), q, 300
    ) == pytest.approx(true_count(codes, q))
    # an independence model multiplies marginals
    m0 = np.bincount(codes[:, 0], minlength=3) / 300
    m12 = joint.sum(axis=0)
    fm = FactorModel((3, 3, 3), ((0,), (1, 2)), (m0, m12))
    np.testing.assert_allclose(fm.marginal([2, 0]), np.outer(m12.sum(axis=0), m0))


def test_errors_and_distances() -> None:
    assert relative_error(90, 100) == pytest.approx(0.1)
    with pytest.raises(UsageError, match="true count is 0"):
        relative_error(1, 0)
    assert jensen_shannon([1, 0], [0, 1]) == pytest.approx(1.0)
    assert jensen_shannon([0.3, 0.7], [0.3, 0.7]) == 0.0
    assert l2_distance([1, 0], [0, 1]) == pytest.approx(math.sqrt(2))
    with pytest.raises(UsageError, match="differ in size"):
        l2_distance([1, 0], [1, 0, 0])
