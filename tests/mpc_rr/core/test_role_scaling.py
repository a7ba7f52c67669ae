"""The dispatch tests ``waiting_for()`` after every message: roles keep it as state, so a
collecting step costs O(1) per message (a role rebuilding an n-set per call made the Adult
pipeline O(n^2): 359 s of protocol for 32,561 parties)."""

from __future__ import annotations

import time

import numpy as np

from mpc_rr.core import COORDINATOR, run_roles
from mpc_rr.secure_sum.plainsum import make_role


def _hub_seconds_per_message(n: int) -> float:
    roles = {i: make_role(i, n + 1, 1, {"cells": 1}) for i in range(n + 1)}
    hub = roles[COORDINATOR]
    sends = [(i, roles[i].start()[0].msg) for i in range(1, n + 1)]
    t0 = time.perf_counter()
    for i, msg in sends:
        hub.receive(i, msg)
    return (time.perf_counter() - t0) / n


def test_collecting_cost_per_message_does_not_grow_with_n() -> None:
    small = min(_hub_seconds_per_message(2_000) for _ in range(3))
    large = min(_hub_seconds_per_message(40_000) for _ in range(3))
    assert large < 4 * small, (small, large)  # O(n) per message would make this ~20x


def test_waiting_for_is_the_roles_own_state_not_a_copy() -> None:
    roles = {i: make_role(i, 4, 1, {"cells": 1}) for i in range(4)}
    hub = roles[COORDINATOR]
    assert hub.waiting_for() is hub.waiting_for()
    res = run_roles(roles)
    assert res.ok and not hub.waiting_for()
    np.testing.assert_array_equal(hub.result.total, sum(roles[i].x for i in (1, 2, 3)))
