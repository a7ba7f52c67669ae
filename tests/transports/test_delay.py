"""The delay line of an emulated network (transports/delay.py): every payload late by exactly the
delay, in order, the sender never waiting; bad destinations refused at once."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from mpc_rr.core import UsageError
from transports.delay import DelayedEndpoint
from transports.errors import UnknownDestination
from transports.memory import MemoryNetwork


def test_every_payload_arrives_late_by_the_delay_in_order() -> None:
    async def main() -> list[tuple[float, int, bytes]]:
        got: list[tuple[float, int, bytes]] = []
        async with MemoryNetwork(3) as net:
            a = DelayedEndpoint(net.endpoint(1), 0.25)
            b = net.endpoint(2)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(a.run)
                t0 = trio.current_time()
                for i in range(5):
                    before = trio.current_time()
                    await a.send(2, bytes([i]))  # returns at once: the delay line holds it
                    assert trio.current_time() == before
                    await trio.sleep(0.01)
                for _ in range(5):
                    src, payload = await b.receive()
                    got.append((trio.current_time() - t0, src, payload))
                await a.aclose()
        return got

    got = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [p for _, _, p in got] == [bytes([i]) for i in range(5)]  # FIFO
    assert {s for _, s, _ in got} == {1}
    for i, (t, _, _) in enumerate(got):
        assert t == pytest.approx(0.25 + 0.01 * i)


def test_bad_destination_and_delay_refused() -> None:
    async def main() -> None:
        async with MemoryNetwork(2) as net:
            ep = DelayedEndpoint(net.endpoint(0), 0.1)
            with pytest.raises(UnknownDestination):
                await ep.send(7, b"x")

    trio.run(main)
    with pytest.raises(UsageError, match="delay must be finite and >= 0"):
        DelayedEndpoint(None, -1.0)  # type: ignore[arg-type]
