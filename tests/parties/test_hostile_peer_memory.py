"""What a hostile peer sends must not stay in a party's memory (errors, run labels)."""

from __future__ import annotations

import tracemalloc

import msgspec
import numpy as np
import trio

from mpc_rr.core import WireArray
from mpc_rr.secure_sum.plainsum import PlainValue, make_role
from parties import Party
from transports import MemoryNetwork


async def _flood(make_frame, count: int) -> tuple[Party, int]:
    roles = {i: make_role(i, 3, 1, {"cells": 2}) for i in range(3)}
    async with MemoryNetwork(range(4)) as net:  # party 3 is the attacker, with no role
        hub = Party(roles[0], net.endpoint(0))
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(hub.run)
            attacker = net.endpoint(3)
            for k in range(count):
                await attacker.send(0, make_frame(k))
            for i in (1, 2):
                nursery.start_soon(Party(roles[i], net.endpoint(i)).run)
        grown = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
    assert roles[0].done and roles[0].error is None  # the others were served
    return hub, grown


async def test_100000_garbage_frames_keep_memory_bounded() -> None:
    """Before: every rejected message's error (about 1.2 KB with its traceback) was kept:
    100,000 garbage frames added 124 MB."""
    hub, grown = await _flood(lambda k: b"\xc1garbage" + k.to_bytes(4, "little"), 100_000)
    log = hub.stats.peer_errors
    assert log.total == 100_000 and len(log.kept) == 5 and log.counts[3] == 100_000
    assert "and 99995 more errors from party 3" in log.summary()[-1]
    assert grown < 5_000_000, grown


async def test_run_labels_are_bounded_by_the_codec() -> None:
    """Before: the run label of every decoded message was kept, even of rejected ones:
    40 messages with 8 MiB labels took 589 MB."""
    enc = msgspec.msgpack.Encoder()
    x = WireArray.from_numpy(np.zeros(2, np.int64))
    big = enc.encode(PlainValue(x=x, run="r" * (8 << 20)))
    hub, grown = await _flood(lambda k: big, 40)
    assert hub.stats.peer_errors.total == 40
    assert "Expected `str` of length <= 256" in str(hub.stats.peer_errors[0])
    assert grown < 20_000_000, grown


async def test_distinct_rejected_labels_are_not_recorded() -> None:
    """Before: ``Party.run`` recorded every decoded ``(run, step)`` in ``rounds_received``
    before the role rejected the message: 200,000 distinct in-limit labels added 84.6 MB."""
    enc = msgspec.msgpack.Encoder()
    x = WireArray.from_numpy(np.zeros(2, np.int64))
    hub, grown = await _flood(lambda k: enc.encode(PlainValue(x=x, run=f"stale-{k}")), 20_000)
    assert hub.stats.peer_errors.total == 20_000
    assert len(hub.stats.rounds_received) <= 4  # the labels the role accepted, not the flood's
    assert grown < 3_000_000, grown
