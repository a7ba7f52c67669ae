"""The one size validator (mpc_rr.mechanisms.check_sizes): its rule and its messages."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.mdrr import PairLayout
from mpc_rr.mechanisms import (
    LambdaRandomization,
    RandomizationMatrix,
    UniformMixture,
    check_sizes,
    k_rr,
    keep_or_uniform,
)
from mpc_rr.mechanisms._domain import DENSE_LIMIT, check_dense_cells
from mpc_rr.mechanisms.optimized import kronecker_mechanism, solve_heuristic, solve_lp


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        (5, (5,)),
        (np.int64(3), (3,)),
        ([2, 3], (2, 3)),
        ((1, 4), (1, 4)),
        (np.array([9, 16, 7]), (9, 16, 7)),
        ((3.0, 2), (3, 2)),
    ],
)
def test_accepted_sizes(sizes, expected) -> None:
    out = check_sizes(sizes)
    assert out == expected
    assert all(type(v) is int for v in out)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ((), r"sizes must name at least one attribute, got \(\)"),
        ([], r"sizes must name at least one attribute, got \[\]"),
        ("55", r"sizes must be an integer or a sequence of integers, got '55'"),
        (None, "sizes must be an integer or a sequence of integers, got None"),
        (True, "sizes must be an integer or a sequence of integers, got True"),
        ((3, 2.5), r"sizes\[1\] must be an integer number of categories, got 2\.5"),
        ((3, "4"), r"sizes\[1\] must be an integer number of categories, got '4'"),
        ((3, True), r"sizes\[1\] must be an integer number of categories, got True"),
        ((3, float("nan")), r"sizes\[1\] must be an integer number of categories, got nan"),
        ((3, 0), r"sizes\[1\] must be at least 1 category, got 0"),
        ((-2,), r"sizes\[0\] must be at least 1 category, got -2"),
        (0, "sizes must be at least 1 category, got 0"),
    ],
)
def test_rejected_sizes_name_the_parameter_rule_and_value(sizes, message) -> None:
    with pytest.raises(UsageError, match=message):
        check_sizes(sizes)


def test_name_and_raised_floor_appear_in_the_message() -> None:
    with pytest.raises(UsageError, match=r"cluster\[2\] must be at least 1 category, got 0"):
        check_sizes((2, 2, 0), name="cluster")
    with pytest.raises(
        UsageError, match=r"sizes\[1\] must be at least 2 categories \(a reason\), got 1"
    ):
        check_sizes((3, 1), min_categories=2, why="a reason")


def test_one_category_is_a_valid_domain_for_the_generic_mechanisms() -> None:
    # a constant attribute: the 1 x 1 identity, epsilon 0, nothing revealed
    for mech in (keep_or_uniform(1, 0.5), k_rr((1, 3), 1.0), UniformMixture((1, 1), 0.3)):
        assert mech.epsilon == pytest.approx(0.0 if mech.sizes.count(1) == len(mech.sizes) else 1.0)
    assert RandomizationMatrix(np.ones((1, 1))).sizes == (1,)
    assert PairLayout((1, 3)).cells == 3


def test_families_that_need_two_categories_say_why() -> None:
    with pytest.raises(UsageError, match=r"sizes\[1\] must be at least 2 categories \(.*log2 n"):
        LambdaRandomization((3, 1), (0.5, 0.5))
    for build in (
        lambda: solve_lp((3, 1), (1.0, 1.0)),
        lambda: solve_heuristic((1, 3), (1.0, 1.0)),
        lambda: kronecker_mechanism((3, 1), (1.0, 1.0)),
    ):
        with pytest.raises(UsageError, match=r"at least 2 categories \(.*a_i - 1\)"):
            build()


def test_every_mechanism_reports_bad_sizes_the_same_way() -> None:
    cases = [
        lambda: keep_or_uniform(0, 0.5),
        lambda: k_rr((2, 0), 1.0),
        lambda: UniformMixture((2, 0), 0.5),
        lambda: LambdaRandomization((2, 0), (0.5, 0.5)),
        lambda: solve_lp((2, 0), (1.0, 1.0)),
        lambda: PairLayout((2, 0)),
    ]
    for build in cases:
        with pytest.raises(UsageError, match=r"must be at least \d categor(y|ies).*, got 0"):
            build()
    with pytest.raises(UsageError, match=r"sizes \(3, 2\) do not multiply"):
        RandomizationMatrix(np.eye(4), sizes=(3, 2))
    with pytest.raises(UsageError, match="PairLayout: need >= 2 attributes"):
        PairLayout((4,))


def test_dense_limit_is_shared() -> None:
    assert check_dense_cells((64, 64)) == DENSE_LIMIT
    for dense in (
        lambda: check_dense_cells((65, 64)),
        lambda: UniformMixture((65, 64), 0.5).dense(),
        lambda: LambdaRandomization((65, 64), (0.5, 0.5)).dense_matrix(),
        lambda: kronecker_mechanism((65, 64), (1.0, 1.0)).dense_matrix(),
    ):
        with pytest.raises(UsageError, match=r"at most 4096 cells; sizes \(65, 64\) give 4160"):
            dense()
