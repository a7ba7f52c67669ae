"""Shared by the prio3 tests: one report through both aggregators, as the draft's Sec. 5 runs it."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from mpc_rr.secure_sum.prio3 import Prio3


def _verified_sum(vdaf: Prio3, encoded: Any, ctx: bytes) -> Any:
    """Shard an encoded vector (as a malicious client may), verify it at both aggregators and
    unshard the one report's aggregate; a bad report raises InvalidReport."""
    vk, nonce = os.urandom(32), os.urandom(16)
    public, inputs = vdaf.shard_encoded(ctx, encoded, nonce, os.urandom(vdaf.RAND_SIZE))
    states, vshares = [], []
    for agg, share in enumerate(inputs):
        state, vs = vdaf.verify_init(vk, ctx, agg, nonce, public, share)
        states.append(state)
        vshares.append(vs)
    msg = vdaf.verifier_shares_to_message(ctx, vshares)
    return vdaf.unshard([vdaf.verify_next(s, msg) for s in states], 1)


@pytest.fixture(scope="session")
def verified_sum() -> Callable[[Prio3, Any, bytes], Any]:
    """``verified_sum(vdaf, encoded, ctx)``: one report sharded, verified and unsharded."""
    return _verified_sum
