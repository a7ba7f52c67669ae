"""The secure-sum dependence with distributed Skellam noise: config, inputs, counts, ledger, a run."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mpc_rr.core import COORDINATOR, DropAt, HarnessRunner, UsageError
from mpc_rr.data import load_adult
from mpc_rr.estimation import dependence_matrix
from mpc_rr.mdrr._pair_cells import pair_layout
from mpc_rr.pipeline import PipelineConfig, pipeline_roles
from mpc_rr.pipeline import _signing as signing
from mpc_rr.pipeline._dependence import dependence_input, noisy_counts
from mpc_rr.privacy import skellam_epsilon
from mpc_rr.secure_sum.secagg import MaskedInput
from mpc_rr.workflows._privacy import pipeline_ledger

KEY = signing.new_signing_key(bytes(range(32)))


@pytest.fixture(scope="module")
def adult300():
    return load_adult().subsample(300, np.random.default_rng(0))


def _cfg(data, **kw) -> PipelineConfig:
    return PipelineConfig(schema=data.schema, n=data.n, p=0.7, dependence="secure-sum",
                          coordinator_key=signing.public_bytes(KEY), run="dp",
                          sum_options={"max_dropout": 0.1, "max_corrupt": 0.05}, **kw)  # fmt: skip


def test_dp_epsilon_needs_the_secure_sum_dependence(adult300) -> None:
    with pytest.raises(UsageError, match="dp_epsilon applies to the secure-sum dependence"):
        PipelineConfig(schema=adult300.schema, n=300, dependence="rr", dp_epsilon=1.0,
                       coordinator_key=b"k" * 32)  # fmt: skip
    with pytest.raises(UsageError, match="dp_epsilon must be finite and > 0"):
        _cfg(adult300, dp_epsilon=-1.0)
    with pytest.raises(UsageError, match=r"dp_delta must be in \(0, 1\)"):
        _cfg(adult300, dp_epsilon=1.0, dp_delta=0.0)
    assert _cfg(adult300).dp_noise() is None


def test_calibration_uses_the_sums_dropout_and_collusion_bounds(adult300) -> None:
    noise = _cfg(adult300, dp_epsilon=1.0).dp_noise()
    assert noise is not None
    assert noise.noise.honest_min == 300 - 30 - 15
    assert noise.noise.epsilon <= 1.0 and noise.delta == pytest.approx(1e-6)
    assert noise.noise.sensitivity.cells == 2 * 28  # Adult: 8 attributes, 28 pairs, replace-one


def test_survivors_counts_carry_the_stated_noise(adult300) -> None:
    """Dropouts within the bound: the counts over the survivors are exact counts plus the
    survivors' noise, whose variance is what the ledger's claim needs (and no less)."""
    cfg = _cfg(adult300, dp_epsilon=1.0)
    noise = cfg.dp_noise()
    assert noise is not None
    rng = np.random.default_rng(1)
    inputs = np.stack([dependence_input(cfg, r, rng) for r in adult300.codes])
    assert inputs.min() >= 0 and inputs.max() <= 1 + 2 * noise.offset  # the sum's max_value
    survivors = np.sort(rng.choice(300, 300 - 30, replace=False))  # 30 dropouts: the bound
    counts, included = noisy_counts(cfg, inputs[survivors].sum(axis=0))
    assert included == 270
    exact = pair_layout(cfg.sizes).one_hot(adult300.codes[survivors]).sum(axis=0)
    err = counts - exact
    # the colluders' noise does not count: take the 255 honest survivors' share as the floor
    floor = noise.noise.central_variance
    lo = floor * stats.chi2.ppf(1e-4, err.size - 1) / (err.size - 1)
    assert err.var() >= lo
    assert err.var() == pytest.approx(270 * noise.noise.client_variance, rel=0.15)
    assert np.abs(err).max() < 6 * math.sqrt(270 * noise.noise.client_variance)


def test_ledger_gives_the_accountants_central_figure(adult300) -> None:
    cfg = _cfg(adult300, dp_epsilon=1.0)
    led, _ = pipeline_ledger(cfg, ((0, 1), (2,), (3,), (4,), (5,), (6,), (7,)),
                             parties_dependence=300, parties_release=300)  # fmt: skip
    dep = led.entries[0]
    assert dep.central_epsilon is not None and 0 < dep.central_epsilon <= 1.0
    assert dep.delta == pytest.approx(1e-6)
    assert "30 dropouts and 15 colluders" in dep.bound
    assert led.total.central_epsilon is not None and math.isfinite(led.total.central_epsilon)
    assert led.total.central_epsilon >= dep.central_epsilon + led.entries[1].central_epsilon - 1e-9


def test_a_noisy_run_with_dropouts_gives_close_dependences(adult300) -> None:
    cfg = _cfg(adult300, dp_epsilon=8.0)  # 300 parties: a large epsilon for a close estimate
    roles = pipeline_roles(cfg, adult300.codes, 1, KEY)
    for v in (5, 9):
        roles[v] = DropAt(roles[v], MaskedInput)
    HarnessRunner()(roles)
    res = roles[COORDINATOR].result
    assert set(res.parties_dependence) == set(range(1, 301)) - {5, 9}
    used = np.asarray(res.parties_dependence) - 1
    exact = dependence_matrix(adult300.codes[used], adult300.schema)
    iu = np.triu_indices(len(cfg.sizes), 1)
    err = np.abs(res.dependences - exact)[iu]
    assert 1e-6 < err.mean() < 0.1  # noisy (not exact), yet close


def test_the_full_mesh_sizes_its_modulus_for_the_noisy_inputs(adult300) -> None:
    """The board's full mesh sums mod n max_value + 1: with noise, n (1 + 2c) + 1 (not n + 1)."""
    from mpc_rr.pipeline._dependence import dependence_public

    cfg = PipelineConfig(schema=adult300.schema, n=300, dependence="secure-sum", dp_epsilon=1.0,
                         coordinator_key=signing.public_bytes(KEY), sum_protocol="full-mesh-board")  # fmt: skip
    noise = cfg.dp_noise()
    assert noise is not None and noise.offset > 1
    assert noise.noise.dropouts == 0 and noise.noise.colluders == 30  # no dropouts; 0.1 n colluders
    pub = dependence_public(cfg)
    assert pub.modulus == 300 * (1 + 2 * noise.offset) + 1


def test_deployed_parties_take_the_noise_parameters() -> None:
    from mpc_rr.pipeline._deploy import make_pipeline_role

    params = {"coordinator_key": signing.public_bytes(KEY).hex(), "dependence": "secure-sum",
              "dp_epsilon": 2, "dp_delta": 1e-7}  # fmt: skip
    role = make_pipeline_role(1, 51, 0, params)
    cfg = role.cfg  # type: ignore[attr-defined]
    noise = cfg.dp_noise()
    assert (cfg.dp_epsilon, cfg.dp_delta) == (2.0, 1e-7) and noise.noise.epsilon <= 2.0
    with pytest.raises(UsageError, match="dp_epsilon must be a float"):
        make_pipeline_role(1, 51, 0, {**params, "dp_epsilon": "big"})


def test_plainsum_shows_every_input_so_only_the_own_noise_counts(adult300) -> None:
    clusters = ((0, 1), (2,), (3,), (4,), (5,), (6,), (7,))
    led_sum, _ = pipeline_ledger(_cfg(adult300, dp_epsilon=1.0), clusters,
                                 parties_dependence=300, parties_release=300)  # fmt: skip
    plain = PipelineConfig(schema=adult300.schema, n=300, dependence="secure-sum", dp_epsilon=1.0,
                           coordinator_key=signing.public_bytes(KEY), sum_protocol="plainsum")  # fmt: skip
    led, _ = pipeline_ledger(plain, clusters, parties_dependence=300, parties_release=300)
    dep = led.entries[0]
    assert dep.channel == "direct" and "only the party's own" in dep.bound
    noise = plain.dp_noise()
    assert noise is not None
    own = skellam_epsilon(
        noise.noise.client_variance, noise.noise.sensitivity.cells, noise.noise.delta
    )
    assert dep.central_epsilon == pytest.approx(own) and own > 10 * noise.noise.epsilon
    assert led_sum.entries[0].local_epsilon > 10 * (led_sum.entries[0].central_epsilon or 0)


def test_bounds_that_leave_no_honest_survivor_are_refused_at_once(adult300) -> None:
    """Prio3's leader aggregates from min_batch reports on: with min_batch 30 of 300 and 30
    colluders, no honest survivor's noise is guaranteed."""
    with pytest.raises(UsageError, match=r"no honest survivor is guaranteed among 300 parties \(270 may "
                       r"drop out and 30 collude\)"):
        PipelineConfig(schema=adult300.schema, n=300, dependence="secure-sum", dp_epsilon=1.0,
                       coordinator_key=b"k" * 32, sum_protocol="prio3",
                       sum_options={"min_batch": 30})  # fmt: skip
    prio3 = PipelineConfig(schema=adult300.schema, n=300, dependence="secure-sum", dp_epsilon=1.0,
                           coordinator_key=b"k" * 32, sum_protocol="prio3").dp_noise()  # fmt: skip
    assert prio3 is not None and prio3.noise.honest_min == 300 - 150 - 30  # min_batch n / 2


def test_a_run_that_included_fewer_parties_than_calibrated_for_states_the_larger_epsilon(adult300) -> None:
    """Beyond the stated dropouts the claim does not hold: the ledger accounts for the honest
    parties the counts actually include (the included less the colluders)."""
    cfg = _cfg(adult300, dp_epsilon=1.0)
    noise = cfg.dp_noise()
    assert noise is not None and noise.noise.honest_min == 255
    clusters = ((0, 1), (2,), (3,), (4,), (5,), (6,), (7,))
    within, _ = pipeline_ledger(cfg, clusters, parties_dependence=270, parties_release=270)
    beyond, _ = pipeline_ledger(cfg, clusters, parties_dependence=150, parties_release=150)
    assert within.entries[0].central_epsilon == pytest.approx(noise.noise.epsilon)
    eps = beyond.entries[0].central_epsilon
    assert eps == pytest.approx(noise.epsilon_for(150 - 15)) and eps > 1.3
    assert "as few as 135 honest parties" in beyond.entries[0].bound
