"""Difference-pattern mechanisms: one type per representation, and OptimizedRR as a record
built by its constructor that holds one of them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    CompactPattern,
    JointMechanism,
    KroneckerPattern,
    LambdaRandomization,
    PatternMechanism,
    TablePattern,
    local_epsilon,
)
from mpc_rr.mechanisms.optimized import (
    OptimizedRR,
    kronecker_mechanism,
    optimize,
    solve_heuristic,
    solve_lp,
)
from mpc_rr.mechanisms.optimized._heuristic import heuristic_in_order


def _table() -> TablePattern:
    return solve_lp((2, 3, 4), (1.0, 0.7, 1.5)).mechanism  # type: ignore[return-value]


def _compact() -> CompactPattern:
    return heuristic_in_order((3, 4, 2), (1.5, 1.0, 0.8), (0, 1, 2))[0]


def _kronecker() -> KroneckerPattern:
    return kronecker_mechanism((3, 4, 2), (1.0, 2.0, 0.5))


BUILDERS = {"table": _table, "compact": _compact, "kronecker": _kronecker}


def test_the_interface_is_abstract() -> None:
    with pytest.raises(TypeError, match="abstract"):
        PatternMechanism((2, 2))  # type: ignore[abstract]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_each_representation_is_a_pattern_and_joint_mechanism(name: str) -> None:
    mech = BUILDERS[name]()
    assert isinstance(mech, PatternMechanism)
    assert isinstance(mech, JointMechanism)
    dense = mech.dense_matrix()
    np.testing.assert_allclose(dense.sum(axis=1), 1.0, atol=1e-12)
    # every column holds every level: overall epsilon is the definition's
    assert mech.epsilon == pytest.approx(local_epsilon(dense), rel=1e-9)
    obs = np.random.default_rng(1).random(mech.sizes)
    np.testing.assert_allclose(
        mech.estimate(obs), mech.estimate(obs, method="dense"), rtol=1e-9, atol=1e-9
    )


def test_solvers_return_the_matching_representation() -> None:
    assert isinstance(solve_lp((3, 3), (1.0, 2.0)).mechanism, TablePattern)
    heur = solve_heuristic((4,) * 30, (3.0,) * 30)
    assert heur.method == "heuristic" and isinstance(heur.mechanism, CompactPattern)
    kron = solve_heuristic((2, 2, 2), (0.25, 0.25, 0.25))
    assert kron.method == "kronecker" and isinstance(kron.mechanism, KroneckerPattern)
    auto = optimize((3, 3, 3), (1.0, 1.0, 1.0), method="auto", on_mismatch="raise")
    assert auto.method == "lp" and isinstance(auto, JointMechanism)


def test_kronecker_pattern_is_its_product() -> None:
    lam = LambdaRandomization((3, 4), (0.4, 0.7))
    mech = KroneckerPattern(lam)
    np.testing.assert_allclose(mech.dense_matrix(), lam.dense_matrix(), atol=1e-15)
    np.testing.assert_allclose(mech.epsilons, lam.epsilons, rtol=1e-12)
    codes = np.random.default_rng(0).integers(0, 3, size=(50, 2))
    np.testing.assert_array_equal(
        mech.perturb(codes, np.random.default_rng(4)), lam.perturb(codes, np.random.default_rng(4))
    )


def test_representations_validate_their_data() -> None:
    with pytest.raises(UsageError, match=r"levels must have 2\*\*2 = 4 entries, got \(3,\)"):
        TablePattern((2, 2), np.full(3, 0.25))
    with pytest.raises(UsageError, match="levels must be non-negative"):
        TablePattern((2, 2), np.array([0.5, 0.5, 0.5, -0.5]))
    with pytest.raises(UsageError, match=r"singles must have 3 entries .*, got \(2,\)"):
        CompactPattern((2, 2, 2), 0.1, np.zeros(2), -3.0)
    with pytest.raises(UsageError, match="a 2\\*\\*k level table is not formed for k = 30"):
        solve_heuristic((4,) * 30, (3.0,) * 30).levels()


def test_held_data_is_read_only() -> None:
    table, compact = _table(), _compact()
    with pytest.raises(ValueError, match="read-only"):
        table.levels()[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        compact.singles[0] = 1.0


def test_optimized_rr_is_built_by_its_constructor_and_computes_its_figures() -> None:
    mech = _compact()
    result = OptimizedRR(
        mech, requested_epsilons=(1.5, 1.0, 0.8), method="heuristic", order=(0, 1, 2), seconds=0.5
    )
    assert result.mechanism is mech
    assert result.achieved_epsilons == mech.epsilons  # computed, never passed in
    assert result.overall_epsilon == mech.epsilon
    assert result.kronecker_epsilon == pytest.approx(3.3)
    assert result.fallback_attributes == ()
    assert result.report()["method"] == "heuristic"
    codes = np.random.default_rng(2).integers(0, 2, size=(200, 3))
    np.testing.assert_array_equal(
        result.perturb(codes, np.random.default_rng(8)),
        mech.perturb(codes, np.random.default_rng(8)),
    )
    np.testing.assert_array_equal(result.dense_matrix(), mech.dense_matrix())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "exact"}, r"method must be one of \('lp', 'heuristic', 'kronecker'\)"),
        ({"order": (0, 0, 1)}, r"order must be a permutation of 0\.\.2, got \(0, 0, 1\)"),
        ({"requested_epsilons": (1.0,)}, "need one requested epsilon per attribute: 3, got 1"),
    ],
)
def test_optimized_rr_validates(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "requested_epsilons": (1.0, 1.0, 1.0),
        "method": "lp",
        "order": (0, 1, 2),
        "seconds": 0.0,
    }
    with pytest.raises(UsageError, match=message):
        OptimizedRR(_table(), **(args | kwargs))  # type: ignore[arg-type]


def test_compact_form_keeps_precision_where_the_rest_level_underflows() -> None:
    result = solve_heuristic((5,) * 10_000, (3.0,) * 10_000)
    mech = result.mechanism
    assert isinstance(mech, CompactPattern)
    assert math.exp(mech.log_rest) == 0.0  # R underflows ...
    assert math.isfinite(result.overall_epsilon)  # ... the epsilon does not
