"""Party actors on every kind of endpoint: a peer's garbage is reported and the others served."""

from __future__ import annotations

import numpy as np
import trio

from mpc_rr.core import DecodeError
from mpc_rr.secure_sum.plainsum import expected_total, make_role
from parties import Party
from transports.testing import OpenEndpoints


async def test_garbage_from_a_peer_is_reported_and_others_are_served(
    open_endpoints: OpenEndpoints,
) -> None:
    n = 5  # hub 0, clients 1..3, party 4 sends garbage
    roles = {i: make_role(i, n - 1, 3, {"cells": 2}) for i in range(n - 1)}
    async with open_endpoints(n) as eps:
        parties = {i: Party(r, eps[i]) for i, r in roles.items()}
        async with trio.open_nursery() as nursery:
            await eps[4].send(0, b"\x92\x01not a message")
            for p in parties.values():
                nursery.start_soon(p.run)
    np.testing.assert_array_equal(roles[0].result.total, expected_total(n - 2, 3, 2))
    assert [type(e) for e in parties[0].peer_errors] == [DecodeError]
    assert parties[0].peer_errors[0].peer == 4
