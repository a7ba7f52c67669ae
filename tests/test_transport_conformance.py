"""One conformance suite, run against every transport (memory and TCP with TLS)."""

from __future__ import annotations

import numpy as np
import pytest
import trio
import trio.testing

from mpc_rr.core import DecodeError, Transcript, WireEvent
from mpc_rr.secure_sum.plainsum import expected_total, make_role
from parties import Party
from tests.deploy import KINDS, deployment
from transports import EndpointClosed, Tap, UnknownDestination

pytestmark = pytest.mark.parametrize("kind", KINDS)


async def test_per_link_order_and_many_peers(kind: str, tmp_path) -> None:
    n, k = 12, 30  # every party sends k numbered messages to every other party
    async with deployment(kind, n, tmp_path) as eps:
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


@pytest.mark.parametrize("size", [0, 1, 65535, 65536 + 7, 3 << 20])
async def test_payload_sizes_arrive_intact(kind: str, size: int, tmp_path) -> None:
    payload = np.random.default_rng(size).bytes(size)
    async with deployment(kind, 3, tmp_path) as eps:
        await eps[1].send(2, payload)  # relayed by the hub on TCP
        await eps[2].send(0, payload)
        assert await eps[2].receive() == (1, payload)
        assert await eps[0].receive() == (2, payload)


async def test_64_mib_payload(kind: str, tmp_path) -> None:
    payload = np.random.default_rng(1).bytes(64 << 20)
    async with deployment(kind, 3, tmp_path) as eps:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(eps[1].send, 2, payload)
            src, got = await eps[2].receive()
        assert src == 1 and got == payload


async def test_receivers_never_share_a_mutable_buffer(kind: str, tmp_path) -> None:
    payload = bytearray(b"abc" * 1000)
    async with deployment(kind, 4, tmp_path) as eps:
        await eps[1].send(2, payload)
        await eps[1].send(3, payload)
        payload[0] = ord("X")  # the sender reusing its buffer must not change what was sent
        (_, a), (_, b) = await eps[2].receive(), await eps[3].receive()
    assert a == b == b"abc" * 1000 and type(a) is bytes and type(b) is bytes


async def test_unknown_destination(kind: str, tmp_path) -> None:
    async with deployment(kind, 3, tmp_path) as eps:
        for i in (0, 1):
            with pytest.raises(UnknownDestination, match="unknown destination 99"):
                await eps[i].send(99, b"x")


async def test_close_semantics(kind: str, tmp_path) -> None:
    async with deployment(kind, 4, tmp_path) as eps:
        ep = eps[1]
        async with trio.open_nursery() as nursery:

            async def blocked_receive() -> None:
                with pytest.raises(EndpointClosed, match="party 1"):
                    await ep.receive()

            nursery.start_soon(blocked_receive)
            await trio.testing.wait_all_tasks_blocked(0.05)
            await ep.aclose()
        await ep.aclose()  # idempotent
        with pytest.raises(EndpointClosed, match="closed"):
            await ep.send(2, b"x")
        with pytest.raises(EndpointClosed, match="closed"):
            await ep.receive()
        # a payload for a party that left is dropped, not an error, and others still work
        with trio.fail_after(5):
            while 1 in getattr(eps[0], "connected", ()):
                await trio.sleep(0.01)
        await eps[2].send(1, b"lost")
        await eps[2].send(3, b"kept")
        assert await eps[3].receive() == (2, b"kept")


async def test_back_pressure_blocks_then_drains(kind: str, tmp_path) -> None:
    size, limit = 1 << 16, 1600  # 100 MiB: more than socket + hub buffers on 2 hops
    async with deployment(kind, 3, tmp_path, buffer=4) as eps:
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
            assert 0 < stalled_at < limit, stalled_at
            for i in range(limit):
                src, data = await eps[2].receive()
                assert src == 1 and int.from_bytes(data[:4], "big") == i
        assert sent == limit


async def test_garbage_from_a_peer_is_reported_and_others_are_served(kind, tmp_path) -> None:
    n = 5  # hub 0, clients 1..3, party 4 sends garbage
    roles = {i: make_role(i, n - 1, 3, {"cells": 2}) for i in range(n - 1)}
    async with deployment(kind, n, tmp_path) as eps:
        parties = {i: Party(r, eps[i]) for i, r in roles.items()}
        async with trio.open_nursery() as nursery:
            await eps[4].send(0, b"\x92\x01not a message")
            for p in parties.values():
                nursery.start_soon(p.run)
    np.testing.assert_array_equal(roles[0].result.total, expected_total(n - 2, 3, 2))
    assert [type(e) for e in parties[0].peer_errors] == [DecodeError]
    assert parties[0].peer_errors[0].peer == 4


async def test_tap_records_what_the_wire_carries(kind: str, tmp_path) -> None:
    tap = Tap()
    secret = b"attack at dawn " * 10
    async with deployment(kind, 3, tmp_path, tap=tap) as eps:
        await eps[1].send(2, secret)
        assert await eps[2].receive() == (1, secret)
    assert isinstance(tap, Transcript) and all(isinstance(e, WireEvent) for e in tap.events)
    assert tap.events and all(e.size == len(e.data) for e in tap.events)
    if kind == "memory":
        assert tap.observer == "memory network (payloads as handed to the network)"
        assert [(e.src, e.dst, e.data) for e in tap.events] == [(1, 2, secret)]
    else:  # ciphertext beneath TLS, on the hops 1 -> hub -> 2
        assert tap.observer.startswith("tcp wire beneath TLS")
        assert not any(secret[:15] in e.data for e in tap.events)
        hops = {(e.src, e.dst) for e in tap.events}
        assert {(1, 0), (0, 2)} <= hops
        assert sum(e.size for e in tap.events if (e.src, e.dst) == (0, 2)) > len(secret)
    # the one transcript type: it saves and loads, so the run can be attacked offline
    back = Transcript.load(tap.save(tmp_path / "tap.mpcrr"))
    assert back.observer == tap.observer and back.events == tap.events


async def test_tap_without_data_keeps_sizes_only(kind: str, tmp_path) -> None:
    tap = Tap(keep_data=False)
    async with deployment(kind, 3, tmp_path, tap=tap) as eps:
        await eps[1].send(2, bytes(100_000))
        assert await eps[2].receive() == (1, bytes(100_000))
    assert tap.events and all(e.data == b"" for e in tap.events)
    assert tap.total_bytes >= 100_000
