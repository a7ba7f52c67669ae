"""The trust-model frontier: its points are what the underlying mechanisms and runs give."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Dataset, Schema
from mpc_rr.mechanisms import keep_or_uniform
from mpc_rr.privacy import dependence_sensitivity
from mpc_rr.secure_sum._noisy_sum import plan_noisy_sum
from mpc_rr.workflows._frontier import (
    CURATOR,
    LOCAL,
    LOCAL_CLUSTERS,
    SHUFFLED,
    _shuffled_central,
    frontier,
    frontier_sums,
    local_keep_probability,
)
from mpc_rr.workflows._privacy import channel_assumption

SIZES = (3, 2, 2)


def _data(n: int, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    schema = Schema(tuple(Attribute(f"a{i}", tuple(map(str, range(s)))) for i, s in enumerate(SIZES)))
    base = rng.integers(0, 2, n)
    codes = np.stack([(base + rng.integers(0, 2, n)) % 3, base, (base + (rng.random(n) < 0.2)) % 2], axis=1)
    return Dataset(schema, codes, "toy")


@pytest.fixture(scope="module")
def report():  # type: ignore[no-untyped-def]
    return frontier(_data(40), [4.0], repeats=2, queries=12, seed=3)


@pytest.mark.slow
def test_the_sums_points_are_the_protocols_own_runs() -> None:
    """Each secure sum's point, computed from the sum of the parties' noisy inputs, equals the
    one computed from the protocol itself run over the same inputs (the harness)."""
    ran = frontier(_data(24), [4.0], repeats=2, queries=12, seed=3, run_sums=True)
    simulated = frontier(_data(24), [4.0], repeats=2, queries=12, seed=3)
    assert set(frontier_sums()) <= {m.removesuffix(" + noise") for m in ran.models}
    for name in frontier_sums():
        a, b = ran.point(f"{name} + noise", 4.0), simulated.point(f"{name} + noise", 4.0)
        assert a.errors == b.errors and all(e > 0 for e in a.errors) and a.errors[0] != a.errors[1]
    for model in (LOCAL, LOCAL_CLUSTERS, SHUFFLED, CURATOR):  # the other models do not depend on run_sums
        assert ran.point(model, 4.0).errors == simulated.point(model, 4.0).errors


def test_every_point_spends_the_target_epsilon(report) -> None:  # type: ignore[no-untyped-def]
    local = report.point(LOCAL, 4.0)
    spent = math.fsum(keep_or_uniform(s, local.value).epsilon for s in SIZES)
    assert spent == pytest.approx(4.0, abs=1e-6) and local.central_epsilon == pytest.approx(4.0, abs=1e-6)
    shuffled = report.point(SHUFFLED, 4.0)
    central = _shuffled_central(SIZES, shuffled.value, 40, 1e-6, channel_assumption("anonymous", 40, 0.1))
    assert central == pytest.approx(shuffled.central_epsilon) and central <= 4.0
    assert shuffled.value > local.value  # the amplification buys less local noise
    for name in frontier_sums():
        pt = report.point(f"{name} + noise", 4.0)
        noise = plan_noisy_sum(name, 40, cells=16, epsilon=4.0, delta=1e-6, sensitivity=dependence_sensitivity(3))
        assert pt.value == noise.noise.client_variance and pt.central_epsilon <= 4.0
        assert pt.messages > 40
    doc = report.to_json()
    assert doc["best"]["4.0"] in report.models and doc["best"]["4.0"] != CURATOR
    assert len(doc["points"]) == 4 + len(frontier_sums())
    clusters = report.point(LOCAL_CLUSTERS, 4.0)  # E/2 for the dependences, E/2 for the release
    assert clusters.value == pytest.approx(local_keep_probability(SIZES, 2.0))
    assert clusters.central_epsilon == pytest.approx(4.0, abs=1e-6)
    curator = report.point(CURATOR, 4.0)
    assert curator.central_epsilon <= 4.0 and curator.mean < report.point(LOCAL, 4.0).mean


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(UsageError, match=r"epsilons must be finite and > 0"):
        frontier(_data(20), [0.0])
    with pytest.raises(UsageError, match=r"'dealer' cannot carry distributed noise"):
        frontier(_data(20), [1.0], sums=["dealer"])
