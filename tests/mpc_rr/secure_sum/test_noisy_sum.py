"""Noise as a capability of a sum protocol: the plan, the refusals, and the kit's check catching
broken variants (a hub that miscounts, a modulus that ignores the noisy range, colluders left
out of the calibration)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.privacy import dependence_sensitivity
from mpc_rr.secure_sum import sum_protocol, with_roles
from mpc_rr.secure_sum._noisy_sum import carries_noise, noise_protocol_names, plan_noisy_sum
from mpc_rr.secure_sum.full_mesh._run import MeshPublic
from mpc_rr.secure_sum.full_mesh._spec import FullMeshProtocol
from mpc_rr.secure_sum.plainsum import PlainSumHub
from mpc_rr.secure_sum.secagg._spec import SecAggProtocol
from mpc_rr.secure_sum.testing import check_distributed_noise
from tests.mpc_rr.secure_sum.dealer_sum import DEALER_SUM

SENS = dependence_sensitivity(4)


def test_the_sums_that_carry_noise_say_so_and_a_toy_without_it_is_refused() -> None:
    assert {"secagg", "prio3", "plainsum", "full-mesh", "full-mesh-board"} <= set(noise_protocol_names())
    assert not carries_noise(DEALER_SUM)
    with pytest.raises(UsageError, match=r"the dealer-sum sum cannot carry distributed noise; the sums that can: "):
        plan_noisy_sum(DEALER_SUM, 10, cells=4, epsilon=1.0, delta=1e-6, sensitivity=SENS)


def test_the_plan_reads_the_protocols_bounds_and_splits_delta() -> None:
    plan = plan_noisy_sum("secagg", 200, cells=100, epsilon=1.0, delta=1e-6, sensitivity=SENS,
                          options={"max_dropout": 0.2, "max_corrupt": 0.05})  # fmt: skip
    assert (plan.noise.dropouts, plan.noise.colluders, plan.noise.honest_min) == (40, 10, 150)
    assert plan.delta == pytest.approx(1e-6) and plan.clip_delta == pytest.approx(1e-8)
    assert plan.noise.epsilon <= 1.0 and plan.input_max == 1 + 2 * plan.offset
    assert plan.epsilon_for(150) == pytest.approx(plan.noise.epsilon, rel=1e-3)
    assert plan.epsilon_for(75) > 1.3 * plan.noise.epsilon and plan.epsilon_for(0) == math.inf
    assert "40 dropouts and 10 colluders" in plan.noise.assumption()
    x = np.zeros(100, np.uint8)
    x[3] = 1
    y = plan.noisy_input(x, np.random.default_rng(0))
    assert y.min() >= 0 and y.max() <= plan.input_max
    with pytest.raises(UsageError, match=r"x must lie in \[0, 1\]"):
        plan.noisy_input(x * 2, np.random.default_rng(0))


@pytest.mark.parametrize("protocol", ["plainsum", "secagg"])
def test_the_kit_catches_a_hub_that_adds_to_the_noisy_total(protocol: str) -> None:
    base = sum_protocol("plainsum")

    class GreedyHub(PlainSumHub):
        def _finish(self) -> list[Any]:
            self._sum += 1
            return super()._finish()

    def role(pid: int, pub: Any, x: Any, **kw: Any) -> Any:
        return GreedyHub(pub.n, pub.cells, run=pub.run) if pid == 0 else base.role(pid, pub, x, **kw)

    if protocol == "secagg":  # the honest protocol passes
        check_distributed_noise(protocol)
        return
    with pytest.raises(AssertionError, match="not the exact sum plus the drawn noise"):
        check_distributed_noise(with_roles(base, role))


def test_the_kit_catches_a_full_mesh_that_sums_mod_n_plus_1() -> None:
    class OldMesh(FullMeshProtocol):
        name = "old-mesh"

        def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> Any:
            return MeshPublic(n, cells, run, "all-to-all")  # max_value ignored: mod n + 1

    with pytest.raises(AssertionError, match=r"old-mesh: distributed noise: the old-mesh sum works mod 7, too small"):
        check_distributed_noise(OldMesh())


def test_the_kit_catches_noise_that_leaves_the_colluders_out() -> None:
    class Trusting(SecAggProtocol):
        name = "trusting-secagg"

        def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
            return super().noise_bounds(options, n)[0], 0

    with pytest.raises(AssertionError, match=r"allows for 0 colluders among 50, its trust\(\) for 5"):
        check_distributed_noise(Trusting())
