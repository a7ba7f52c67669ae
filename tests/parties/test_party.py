"""Party actors: what a peer sends that is not a message of the protocol is recorded, naming
the peer, and the others are served (on every kind of endpoint)."""

from __future__ import annotations

import msgspec
import numpy as np
import trio

from mpc_rr.core import DecodeError, PeerError, WireArray
from mpc_rr.secure_sum.plainsum import PlainValue, expected_total, make_role
from parties import Party
from transports import MemoryNetwork
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


async def test_garbage_from_a_peer_is_recorded_and_the_party_keeps_serving(plainsum_roles) -> None:
    n = 4
    roles = plainsum_roles(n, seed=2)
    async with MemoryNetwork(range(n + 2)) as net:  # party n+1 is an attacker with no role
        hub = Party(roles[0], net.endpoint(0))
        clients = [Party(roles[i], net.endpoint(i)) for i in range(1, n + 1)]
        async with trio.open_nursery() as nursery:
            attacker = net.endpoint(n + 1)
            await attacker.send(0, b"\xc1garbage")
            await attacker.send(
                0, msgspec.msgpack.encode(PlainValue(x=WireArray.from_numpy(np.zeros(3, np.int64))))
            )
            nursery.start_soon(hub.run)
            for c in clients:
                nursery.start_soon(c.run)
    assert roles[0].done and roles[0].error is None
    np.testing.assert_array_equal(roles[0].result.total, expected_total(n, 2, 3))
    errs = list(hub.stats.peer_errors)
    assert [e.peer for e in errs] == [n + 1, n + 1]
    assert isinstance(errs[0], DecodeError) and "party 5" in str(errs[0])
    assert isinstance(errs[1], PeerError) and "unexpected or duplicate" in str(errs[1])
