"""The prio3 sum over the runtime: harness, memory transport and TCP + mutual TLS agree with the plain sum."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.workflows import run_secure_sum
from parties.runners import runner_for


@pytest.mark.parametrize("transport", ["harness", "memory", "tcp"])
def test_two_aggregators_equal_the_plaintext_sum_and_reject_the_invalid(transport: str) -> None:
    x = np.random.default_rng(7).integers(0, 2, size=(8, 6))
    rep = run_secure_sum(
        "prio3", x, seed=7, invalid=2, runner=runner_for(transport, step_timeout=5.0)
    )
    assert rep.aborted is None, rep.aborted
    assert rep.rejected == (7, 8)
    assert rep.exact
    np.testing.assert_array_equal(rep.total, x[:6].sum(axis=0))


def test_a_run_sharded_over_spawned_workers_opens_every_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: each spawned worker drew its own simulated helper key, so the clients of the
    helper's other shard sealed to a key it did not hold (half of a 2-worker run rejected)."""
    import parties.launch
    from parties.shards import ShardedRunner

    monkeypatch.setattr(parties.launch, "fork_is_safe", lambda: False)  # as under `mpc-rr run`

    x = np.random.default_rng(3).integers(0, 2, size=(12, 5))
    rep = run_secure_sum("prio3", x, seed=3, runner=ShardedRunner(workers=2, step_timeout=30.0))
    assert rep.aborted is None, rep.aborted
    assert rep.rejected == () and rep.survivors == 12 and rep.exact
    np.testing.assert_array_equal(rep.total, x.sum(axis=0))
