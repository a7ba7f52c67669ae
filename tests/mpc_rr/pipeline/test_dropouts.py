"""Dropouts in the pipeline's secure sum: within the declared bound, at whatever steps, they
never fail a run; beyond the bound the run aborts cleanly naming the missing parties by id."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, DropAt, HarnessRunner
from mpc_rr.data import load_adult
from mpc_rr.estimation import dependence_matrix
from mpc_rr.pipeline import PipelineConfig, pipeline_roles
from mpc_rr.pipeline import _signing as signing
from mpc_rr.secure_sum.secagg import AdvertiseKeys, EncryptedShares, MaskedInput, UnmaskShares
from parties.runner import MemoryRunner

KEY = signing.new_signing_key(bytes(range(32)))
RUNNERS = {"harness": HarnessRunner, "memory": lambda: MemoryRunner(step_timeout=30.0)}


@pytest.fixture(scope="module")
def adult200():
    return load_adult().subsample(200, np.random.default_rng(0))


def _pipeline(data, plan, **sum_options):
    cfg = PipelineConfig(schema=data.schema, n=data.n, p=0.7, dependence="secure-sum",
                         coordinator_key=signing.public_bytes(KEY), run="drop",
                         sum_options=sum_options)  # fmt: skip
    roles = pipeline_roles(cfg, data.codes, 1, KEY)
    for v, m in plan.items():
        roles[v] = DropAt(roles[v], m)
    return roles


PLANS = {
    "one-at-unmask": {7: UnmaskShares},
    "keys+masked": {7: AdvertiseKeys, 9: MaskedInput},
    "shares+unmask": {3: EncryptedShares, 11: UnmaskShares},
}
# the default tier drops at every step (keys, shares, masked, unmask) on both runners; the
# dropout logic is the roles', so the other plan x runner cells are -m slow
DEFAULT_TIER = {("keys+masked", "harness"), ("one-at-unmask", "memory"), ("shares+unmask", "memory")}


@pytest.mark.parametrize(
    ("plan", "runner"),
    [pytest.param(PLANS[p], r, id=f"{p}-{r}", marks=() if (p, r) in DEFAULT_TIER else pytest.mark.slow)
     for p in PLANS for r in RUNNERS],
)  # fmt: skip
def test_pipeline_with_secure_sum_survives_dropouts_at_any_steps(adult200, runner, plan) -> None:
    """Before: one party vanishing at unmask, or two at different steps, ended in
    RuntimeError('party 0: role Coordinator not done')."""
    roles = _pipeline(adult200, plan)
    RUNNERS[runner]()(roles)
    res = roles[COORDINATOR].result
    lost_input = {v for v, m in plan.items() if m is not UnmaskShares}
    assert set(res.parties_dependence) == set(range(1, 201)) - lost_input
    assert set(res.parties_release) == set(range(1, 201)) - set(plan)
    used = np.asarray(res.parties_dependence) - 1  # exact counts over exactly those parties
    np.testing.assert_allclose(res.dependences, dependence_matrix(adult200.codes[used], adult200.schema), atol=1e-12)
    for i in set(range(1, 201)) - set(plan):
        assert roles[i].result.clusters == res.clustering.clusters


def test_pipeline_beyond_the_secagg_bound_aborts_naming_the_missing_parties(adult200) -> None:
    victims = {5, 6, 7, 8}
    roles = _pipeline(adult200, dict.fromkeys(victims, MaskedInput), max_dropout=0.01)
    RUNNERS["memory"]()(roles)
    err = roles[COORDINATOR].error
    assert err is not None and set(err.culprits) == victims
    assert "dropped out by step MASKED" in str(err) and "[5, 6, 7, 8]" in str(err)
    for i in (1, 100, 200):  # the survivors are told and end without a result
        assert roles[i].error is not None and "aggregator aborted" in str(roles[i].error)


