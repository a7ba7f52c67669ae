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
