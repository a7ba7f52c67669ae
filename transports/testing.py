"""Testing a transport: connected endpoints of every kind, and the one conformance suite.

As :mod:`trio.testing` does for streams (``check_two_way_stream``), this
module is public: anyone writing a transport imports it and runs the suite on
their endpoints.  It does not import pytest.

The suite is a set of ``check_*`` coroutines.  Each takes a factory of
connected endpoints (:class:`OpenEndpoints`) -- ``open_endpoints(n, *,
buffer=64, tap=None)`` is an async context manager that yields ``{party id:
Endpoint}`` for parties ``0..n-1``, every endpoint able to reach every
other, and closes them on exit -- and raises ``AssertionError`` when the
transport breaks a guarantee of :mod:`transports.base`::

    async def test_per_link_order():
        await check_per_link_order(open_my_endpoints)

Factories of this package's endpoints:

* :func:`open_memory_endpoints` -- a :class:`~transports.memory.MemoryNetwork`;
* :func:`tcp_endpoints` -- a :mod:`~transports.tcp` hub (party 0) and its
  clients on the loopback, mutual TLS or plaintext;
* :func:`open_shard_endpoints` -- the :class:`~transports.shards.ShardNetwork`
  s of a sharded simulation, in one trio run, with a driver task that moves
  the outboxes between the shards as the sharded runner does (supersteps at
  quiescence, cross-shard payloads as encoded batches).

Checks of transport *semantics* that one kind does not have are not
weakened here: the shard endpoints, whose ``send`` never blocks (outboxes
are unbounded within a superstep), fail :func:`check_back_pressure`, and
their test says so.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import trio
import trio.testing

from mpc_rr.core import Transcript, WireEvent
from transports.base import Endpoint
from transports.errors import EndpointClosed, UnknownDestination
from transports.tap import PAYLOAD_TAP, Tap

if TYPE_CHECKING:
    from transports.pki import Roster
    from transports.shards import ShardNetwork

__all__ = [
    "MEMORY_WIRE",
    "PAYLOAD_SIZES",
    "OpenEndpoints",
    "WireView",
    "check_back_pressure",
    "check_close",
    "check_large_payload",
    "check_no_shared_mutable_buffer",
    "check_payload_intact",
    "check_per_link_order",
    "check_tap_records_the_wire",
    "check_tap_without_data",
    "check_unknown_destination",
    "open_memory_endpoints",
    "open_shard_endpoints",
    "tcp_endpoints",
    "tcp_wire",
]


class OpenEndpoints(Protocol):
    """``open_endpoints(n, *, buffer=64, tap=None)``: endpoints ``0..n-1``, connected.

    ``buffer`` bounds each endpoint's inbound queue (payloads) where the
    transport has one; ``tap``, if given, is handed to the transport.  The
    context manager closes every endpoint on exit.
    """

    def __call__(
        self, n: int, *, buffer: int = ..., tap: Tap | None = ...
    ) -> AbstractAsyncContextManager[Mapping[int, Endpoint]]: ...


@dataclass(frozen=True)
class WireView:
    """What a :class:`~transports.tap.Tap` handed to a transport records.

    Parameters
    ----------
    observer:
        The tap's ``observer``: exactly this text when ``relay`` is ``None``,
        else its beginning.
    relay:
        ``None``: the tap records each payload once, as handed to the network
        (``src -> dst``).  Otherwise the party every payload passes through:
        the tap records the hops ``src -> relay`` and ``relay -> dst`` as
        framed bytes.
    encrypted:
        The payload bytes never appear in what the tap records (TLS beneath the tap).
    """

    observer: str
    relay: int | None = None
    encrypted: bool = False


MEMORY_WIRE = WireView(PAYLOAD_TAP)
"""What a tap sees on the memory and shard networks."""


def tcp_wire(tls: bool = True) -> WireView:
    """What a tap sees on the TCP transport: the hops through the hub (party 0)."""
    return WireView("tcp wire beneath TLS" if tls else "tcp wire plaintext", relay=0, encrypted=tls)


PAYLOAD_SIZES = (0, 1, 65535, 65536 + 7, 3 << 20)
"""Sizes :func:`check_payload_intact` is meant to run with: empty, tiny, around 64 KiB, 3 MiB."""


@contextmanager
def _raises(kind: type[BaseException], match: str) -> Iterator[None]:
    """The block raises ``kind`` with a message that ``re.search`` finds ``match`` in."""
    try:
        yield
    except kind as exc:
        if not re.search(match, str(exc)):
            raise AssertionError(
                f"{kind.__name__} raised, but {str(exc)!r} does not match {match!r}"
            ) from exc
    else:
        raise AssertionError(f"{kind.__name__} not raised")


# -- the checks ------------------------------------------------------------------------------


async def check_per_link_order(
    open_endpoints: OpenEndpoints, *, parties: int = 12, messages: int = 30
) -> None:
    """Every party sends ``messages`` numbered payloads to every other: each link keeps its
    order, and the source each receiver is told is the sender."""
    n, k = parties, messages
    async with open_endpoints(n) as eps:
        got: dict[int, list[tuple[int, int]]] = {i: [] for i in range(n)}

        async def sender(i: int) -> None:
            for seq in range(k):
                for j in range(n):
                    if j != i:
                        await eps[i].send(j, f"{i}:{seq}".encode())

        async def receiver(j: int) -> None:
            for _ in range((n - 1) * k):
                src, data = await eps[j].receive()
                a, b = data.decode().split(":")
                assert int(a) == src
                got[j].append((src, int(b)))

        async with trio.open_nursery() as nursery:
            for i in range(n):
                nursery.start_soon(sender, i)
                nursery.start_soon(receiver, i)
    for j in range(n):
        for i in range(n):
            if i != j:
                assert [s for src, s in got[j] if src == i] == list(range(k)), (i, j)


async def check_payload_intact(open_endpoints: OpenEndpoints, size: int) -> None:
    """A payload of ``size`` random bytes arrives unchanged, between clients and to party 0."""
    payload = np.random.default_rng(size).bytes(size)
    async with open_endpoints(3) as eps:
        await eps[1].send(2, payload)  # relayed by the hub on TCP
        await eps[2].send(0, payload)
        assert await eps[2].receive() == (1, payload)
        assert await eps[0].receive() == (2, payload)


async def check_large_payload(open_endpoints: OpenEndpoints, size: int = 64 << 20) -> None:
    """One 64 MiB payload arrives unchanged while its receiver is already waiting."""
    payload = np.random.default_rng(1).bytes(size)
    async with open_endpoints(3) as eps:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(eps[1].send, 2, payload)
            src, got = await eps[2].receive()
        assert src == 1 and got == payload


async def check_no_shared_mutable_buffer(open_endpoints: OpenEndpoints) -> None:
    """A sender reusing its ``bytearray`` changes nothing sent; receivers get ``bytes``."""
    payload = bytearray(b"abc" * 1000)
    async with open_endpoints(4) as eps:
        await eps[1].send(2, payload)  # type: ignore[arg-type]
        await eps[1].send(3, payload)  # type: ignore[arg-type]
        payload[0] = ord("X")  # the sender reusing its buffer must not change what was sent
        (_, a), (_, b) = await eps[2].receive(), await eps[3].receive()
    assert a == b == b"abc" * 1000 and type(a) is bytes and type(b) is bytes


async def check_unknown_destination(open_endpoints: OpenEndpoints) -> None:
    """Sending to a party not in the deployment raises ``UnknownDestination`` naming it."""
    async with open_endpoints(3) as eps:
        for i in (0, 1):
            with _raises(UnknownDestination, "unknown destination 99"):
                await eps[i].send(99, b"x")


async def check_close(open_endpoints: OpenEndpoints) -> None:
    """Closing wakes a blocked ``receive`` with ``EndpointClosed``; close is idempotent;
    ``send`` and ``receive`` then raise; a payload for the party that left is dropped
    and the others are still served.

    If endpoint 0 has a ``connected`` set (a hub), the check waits until party 1 has
    left it before sending to party 1.
    """
    async with open_endpoints(4) as eps:
        ep = eps[1]
        async with trio.open_nursery() as nursery:

            async def blocked_receive() -> None:
                with _raises(EndpointClosed, "party 1"):
                    await ep.receive()

            nursery.start_soon(blocked_receive)
            await trio.testing.wait_all_tasks_blocked(0.05)
            await ep.aclose()
        await ep.aclose()  # idempotent
        with _raises(EndpointClosed, "closed"):
            await ep.send(2, b"x")
        with _raises(EndpointClosed, "closed"):
            await ep.receive()
        # a payload for a party that left is dropped, not an error, and others still work
        with trio.fail_after(5):
            while 1 in getattr(eps[0], "connected", ()):
                await trio.sleep(0.01)
        await eps[2].send(1, b"lost")
        await eps[2].send(3, b"kept")
        assert await eps[3].receive() == (2, b"kept")


async def check_back_pressure(open_endpoints: OpenEndpoints) -> None:
    """A sender flooding a receiver that does not read blocks before it has sent 100 MiB
    (``buffer=4``), then every payload arrives in order once the receiver reads."""
    size, limit = 1 << 16, 1600  # 100 MiB: more than socket + hub buffers on 2 hops
    async with open_endpoints(3, buffer=4) as eps:
        sent = 0

        async def flood() -> None:
            nonlocal sent
            for i in range(limit):
                await eps[1].send(2, i.to_bytes(4, "big") * (size // 4))
                sent += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(flood)
            await trio.testing.wait_all_tasks_blocked(0.2)
            stalled_at = sent
            for i in range(limit):
                src, data = await eps[2].receive()
                assert src == 1 and int.from_bytes(data[:4], "big") == i
        # checked once the nursery has ended, so that a failure is an AssertionError, not a group
        assert 0 < stalled_at < limit, stalled_at
        assert sent == limit


async def check_tap_records_the_wire(open_endpoints: OpenEndpoints, wire: WireView) -> None:
    """A :class:`Tap` records what ``wire`` says the transport puts on the wire, as the one
    transcript type, which saves and loads (so a run can be attacked offline)."""
    tap = Tap()
    secret = b"attack at dawn " * 10
    async with open_endpoints(3, tap=tap) as eps:
        await eps[1].send(2, secret)
        assert await eps[2].receive() == (1, secret)
    assert isinstance(tap, Transcript) and all(isinstance(e, WireEvent) for e in tap.events)
    assert tap.events and all(e.size == len(e.data) for e in tap.events)
    if wire.relay is None:  # payloads as handed to the network
        assert tap.observer == wire.observer
        assert [(e.src, e.dst, e.data) for e in tap.events] == [(1, 2, secret)]
    else:  # framed bytes on the hops 1 -> relay -> 2
        hub = wire.relay
        assert tap.observer.startswith(wire.observer)
        if wire.encrypted:  # ciphertext beneath TLS
            assert not any(secret[:15] in e.data for e in tap.events)
        else:
            assert any(secret in e.data for e in tap.between(1, hub))
        hops = {(e.src, e.dst) for e in tap.events}
        assert {(1, hub), (hub, 2)} <= hops
        assert sum(e.size for e in tap.events if (e.src, e.dst) == (hub, 2)) > len(secret)
    with tempfile.TemporaryDirectory() as folder:
        back = Transcript.load(tap.save(Path(folder) / "tap.mpcrr"))
    assert back.observer == tap.observer and back.events == tap.events


async def check_tap_without_data(open_endpoints: OpenEndpoints) -> None:
    """``Tap(keep_data=False)`` keeps sizes only."""
    tap = Tap(keep_data=False)
    async with open_endpoints(3, tap=tap) as eps:
        await eps[1].send(2, bytes(100_000))
        assert await eps[2].receive() == (1, bytes(100_000))
    assert tap.events and all(e.data == b"" for e in tap.events)
    assert tap.total_bytes >= 100_000


# -- endpoints of this package's transports --------------------------------------------------


@asynccontextmanager
async def open_memory_endpoints(
    n: int, *, buffer: int = 64, tap: Tap | None = None
) -> AsyncIterator[Mapping[int, Endpoint]]:
    """Endpoints ``0..n-1`` of one :class:`~transports.memory.MemoryNetwork` (no link model)."""
    from transports.memory import MemoryNetwork

    async with MemoryNetwork(n, buffer=buffer, tap=tap) as net:
        yield dict(net.endpoints())


def tcp_endpoints(rosters: Callable[[int], Roster], *, tls: bool = True) -> OpenEndpoints:
    """A factory of TCP endpoints on the loopback: the hub (party 0) on a free port and
    clients ``1..n-1`` connected to it.

    ``rosters(n)`` returns the roster of a deployment of ``n`` parties, e.g.
    ``generate_deployment(n, folder, hub_port=0)`` (cache it: key generation is the
    slow part).  ``tls=False``: plaintext, on both sides.
    """
    from transports.tcp import connect_client, open_hub

    @asynccontextmanager
    async def open_tcp_endpoints(
        n: int, *, buffer: int = 64, tap: Tap | None = None
    ) -> AsyncIterator[Mapping[int, Endpoint]]:
        roster = rosters(n)
        async with open_hub(roster, port=0, buffer=buffer, tap=tap, tls=tls) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            eps: dict[int, Endpoint] = {0: hub}

            async def conn(i: int) -> None:
                eps[i] = await connect_client(r, i, tap=tap, tls=tls)

            async with trio.open_nursery() as nursery:
                for i in range(1, n):
                    nursery.start_soon(conn, i)
            try:
                yield eps
            finally:
                for i in range(1, n):
                    await eps[i].aclose()

    return open_tcp_endpoints


_IDLE_CUSHION = 0.3
"""Seconds of global quiescence the shard driver waits, after a superstep that moved
nothing, before it looks again: longer than any ``wait_all_tasks_blocked`` cushion of
the checks, so a check waiting for quiescence is woken before the driver."""


@asynccontextmanager
async def open_shard_endpoints(
    n: int, *, buffer: int = 64, tap: Tap | None = None, shards: int = 2
) -> AsyncIterator[Mapping[int, Endpoint]]:
    """Endpoints ``0..n-1`` on ``shards`` :class:`~transports.shards.ShardNetwork` s
    (contiguous ranges of parties), in this trio run, with a driver task that moves
    their outboxes at every quiescence (see the module docstring)."""
    from transports.shards import ShardNetwork

    k = max(1, min(shards, n))
    owner = [pid * k // n for pid in range(n)]
    nets = [
        ShardNetwork(s, owner, [p for p in range(n) if owner[p] == s], buffer=buffer, tap=tap)
        for s in range(k)
    ]
    eps: dict[int, Endpoint] = {pid: nets[owner[pid]].endpoint(pid) for pid in range(n)}
    # the body's exception is kept out of the nursery (as in transports.tcp.open_hub), so
    # that it propagates unchanged rather than inside an ExceptionGroup
    body_error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_drive_shards, nets)
        try:
            yield eps
        except BaseException as exc:
            body_error = exc
        finally:
            for net in nets:
                net.close()
            nursery.cancel_scope.cancel()
    if body_error is not None:
        raise body_error


async def _drive_shards(nets: Sequence[ShardNetwork]) -> None:
    """Supersteps at quiescence: deliver every outbox, cross-shard ones as encoded batches."""
    from transports.shards import decode_batch, encode_batch

    while True:
        await trio.testing.wait_all_tasks_blocked()
        moved = False
        outboxes = [net.take_outboxes() for net in nets]
        for src, out in enumerate(outboxes):
            for dst, items in enumerate(out):
                if items:
                    moved = True
                    if dst != src:
                        items = decode_batch(encode_batch(items))
                    await nets[dst].deliver(items)
        if not moved:
            await trio.testing.wait_all_tasks_blocked(_IDLE_CUSHION)
