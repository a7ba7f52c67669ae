"""RRBA's secure tally with distributed noise: the calibration, the consistent counts, a run whose
tallies are exactly the answers plus the clients' drawn noise, and the ledger's central figure."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mpc_rr.rrba._aggregator_role as aggregator_role
from mpc_rr.core import COORDINATOR, UsageError, run_roles
from mpc_rr.rrba import RRBAClient, rrba_roles
from mpc_rr.rrba._noisy_tally import consistent_counts, tally_sensitivity
from mpc_rr.rrba._protocol import config_for
from mpc_rr.rrba._simulate import assemble
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.workflows._rrba import summarize
from tests.mpc_rr.rrba.test_protocol import SEED, small_data


def test_consistent_counts_are_the_projection_of_the_noisy_counts() -> None:
    noisy = np.array([[5, -2, 3, 0], [1, 1, 0, 0], [-3, 9, 0, 0]])
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 0, 0]], bool)
    out = consistent_counts(noisy, np.array([6, 0, 4]), mask)
    # table 0: 6 x the projection of (5, -2, 3) / 6 onto the simplex = (4, 0, 2); table 1: no
    # answers; table 2: (-3, 9) / 4 -> (0, 1)
    assert out.tolist() == [[4, 0, 2, 0], [0, 0, 0, 0], [0, 4, 0, 0]]
    assert tally_sensitivity(3).l1 == 6 and tally_sensitivity(3).linf == 1


def test_the_noise_needs_the_secure_tally_and_a_positive_epsilon() -> None:
    sub = small_data(60, seed=3)
    with pytest.raises(UsageError, match=r"dp_epsilon applies to the secure tally"):
        config_for(sub, 30, 0.5, dp_epsilon=1.0)
    with pytest.raises(UsageError, match=r"dp_epsilon must be finite and > 0, got -1.0"):
        config_for(sub, 30, 0.5, secure_tally=True, dp_epsilon=-1.0)
    with pytest.raises(UsageError, match=r"dp_delta must be in \(0, 1\), got 0.0"):
        config_for(sub, 30, 0.5, secure_tally=True, dp_epsilon=1.0, dp_delta=0.0)
    assert config_for(sub, 30, 0.5, secure_tally=True).tally_noise(1) is None


def test_noisy_tallies_are_the_answers_plus_the_clients_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    sub = small_data(60, seed=3)
    cfg = config_for(sub, 30, 0.5, secure_tally=True, dp_epsilon=4.0)
    noise = cfg.tally_noise(1)
    assert noise is not None and noise.noise.honest_min == 30 - 3 - 3  # SecAgg+'s 0.1 / 0.1
    assert noise.noise.sensitivity.l1 == 2 * cfg.view_tables and noise.noise.epsilon <= 4.0
    sent: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    class Recording(RRBAClient):
        def _tally_input(self, tables: np.ndarray, cells: np.ndarray) -> np.ndarray:
            x = super()._tally_input(tables, cells)
            answer = np.zeros(self.cfg.cells, np.int64)
            answer[self.cfg.offsets[tables] + cells] = 1
            sent[self.party_id] = (answer, x - answer - noise.offset)
            assert x.min() >= 0 and x.max() <= noise.input_max
            return x

    fed: list[tuple[np.ndarray, np.ndarray]] = []

    def spy(counts: np.ndarray, want: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = consistent_counts(counts, want, mask)
        fed.append((counts[mask].copy(), out))
        return out

    monkeypatch.setattr(aggregator_role, "consistent_counts", spy)
    roles = rrba_roles(cfg, sub.codes, SEED, entropy=SeededEntropy(1).spawn)
    for pid in range(1, 61):
        old = roles[pid]
        assert isinstance(old, RRBAClient)
        roles[pid] = Recording(pid, cfg, sub.codes[pid - 1], old.rng, entropy=SeededEntropy(2).spawn(pid))
    assert run_roles(roles).ok
    assert len(fed) == 2
    for b, (decoded, out) in enumerate(fed):
        members = cfg.members(b + 1)
        answers = sum(sent[i][0] for i in members)
        drawn = sum(sent[i][1] for i in members)
        np.testing.assert_array_equal(decoded, answers + drawn)  # the exact tally plus the noise
        assert np.any(drawn != 0) and out.min() >= 0
    outcome = roles[COORDINATOR].result
    run = assemble(outcome, sub.codes, client_rng="per-client", transport="harness", secure_tally=True)
    doc = summarize(run, sub, "small", {}, None, secure_tally=True, dp_epsilon=4.0)
    phase = doc["privacy"]["phases"][0]
    assert 3.9 < phase["central_epsilon"] <= 4.0 and phase["delta"] == pytest.approx(1e-6)
    assert "24 honest survivors" in phase["bound"]
    assert "distributed noise" in doc["validity"][0]["validity"]
    assert doc["sum"]["dp_epsilon"] == 4.0


def test_a_block_that_included_fewer_clients_states_the_larger_epsilon() -> None:
    from mpc_rr.workflows._privacy import rrba_noise_central

    sub = small_data(60, seed=3)
    cfg = config_for(sub, 30, 0.5, secure_tally=True, dp_epsilon=4.0)
    full, delta, text = rrba_noise_central([(30, 30), (30, 27)], cfg._noise_for, "secure-sum")
    assert full <= 4.0 and delta == pytest.approx(1e-6) and "24 honest survivors" in text
    short: Any = rrba_noise_central([(30, 30), (30, 15)], cfg._noise_for, "secure-sum")
    assert short[0] > 1.3 * full and "as few as 12 honest clients" in short[2]
