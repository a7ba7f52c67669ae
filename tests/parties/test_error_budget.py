"""A Party's error budget, in virtual time: a sender that causes more errors than its budget
is cut off (its frames dropped unread, named in ``cut_off``), and a step that waits only for
parties that are gone for good ends at once instead of at its deadline."""

from __future__ import annotations

import pytest
import trio

from mpc_rr.core import UsageError
from mpc_rr.secure_sum.plainsum import make_role
from parties import Party
from transports import MemoryNetwork


async def _hub_against_flooder(budget: int | None, floods: int, step_timeout: float) -> tuple[Party, float]:
    """Hub 0 and honest client 1 of a plainsum run of 2 clients; client 2 sends ``floods``
    garbage frames to the hub and never its value.  Returns the hub's Party and the virtual
    time its role ended."""
    roles = {i: make_role(i, 3, 1, {"cells": 2}) for i in (0, 1)}
    async with MemoryNetwork(range(3)) as net:
        hub = Party(roles[0], net.endpoint(0), step_timeout=step_timeout, error_budget=budget)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(hub.run)
            nursery.start_soon(Party(roles[1], net.endpoint(1), step_timeout=step_timeout).run)
            flooder = net.endpoint(2)
            for k in range(floods):
                await flooder.send(0, b"\xc1garbage" + k.to_bytes(4, "little"))
            while not roles[0].done:
                await trio.sleep(0.001)
            ended = trio.current_time()
            nursery.cancel_scope.cancel()
    return hub, ended


async def test_a_flooder_over_its_error_budget_is_cut_off_and_named(autojump_clock) -> None:
    hub, _ = await _hub_against_flooder(budget=10, floods=500, step_timeout=60)
    assert list(hub.cut_off) == [2]
    assert "party 2 caused 11 errors, over its budget of 10 per run" in hub.cut_off[2]
    assert hub.peer_errors.total == 11  # the rest were dropped unread
    assert hub.cut_dropped == 500 - 11


async def test_without_a_budget_every_garbage_frame_is_decoded(autojump_clock) -> None:
    hub, _ = await _hub_against_flooder(budget=None, floods=500, step_timeout=60)
    assert hub.cut_off == {} and hub.peer_errors.total == 500 and hub.cut_dropped == 0


async def test_a_step_waiting_only_for_a_cut_off_party_ends_at_once(autojump_clock) -> None:
    """The hub waits for client 2 alone once client 1's value is in; 2 is cut off, so the
    deadline passes right away (the role aborts naming 2) instead of after 60 s."""
    hub, ended = await _hub_against_flooder(budget=10, floods=50, step_timeout=60)
    assert hub.role.error is not None and hub.role.error.culprits == (2,)
    assert ended < 1.0 and hub.stats.deadlines == 1
    slow, ended_slow = await _hub_against_flooder(budget=None, floods=50, step_timeout=60)
    assert ended_slow >= 60.0 and slow.role.error is not None


def test_a_bad_error_budget_is_refused() -> None:
    role = make_role(0, 3, 1, {"cells": 2})
    with pytest.raises(UsageError, match=r"error_budget must be None or an int >= 1, got 0"):
        Party(role, MemoryNetwork(range(3)).endpoint(0), error_budget=0)


async def test_garbage_is_cut_sooner_than_refused_messages(autojump_clock) -> None:
    """Frames that do not decode (an honest party never sends one) have their own, smaller
    budget; well-formed messages the role refuses count only against the error budget."""
    import msgspec
    import numpy as np

    from mpc_rr.core import WireArray
    from mpc_rr.secure_sum.plainsum import PlainValue

    dup = msgspec.msgpack.Encoder().encode(PlainValue(x=WireArray.from_numpy(np.zeros(2, np.int64))))
    for frame, limit, why in ((b"\xc1junk", 10, "frames that do not decode, over its budget of 10"),
                              (dup, 100, "errors, over its budget of 100")):  # fmt: skip
        role = make_role(0, 3, 1, {"cells": 2})
        async with MemoryNetwork(range(3)) as net:
            hub = Party(role, net.endpoint(0), step_timeout=60, error_budget=100, garbage_budget=10)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(hub.run)
                for _ in range(300):
                    await net.endpoint(2).send(0, frame)
                await trio.sleep(1)
                nursery.cancel_scope.cancel()
        assert why in hub.cut_off[2] and hub.peer_errors.total == limit + 1  # then dropped unread
