"""Issue 21: the hub under hostile load -- outsiders that never start TLS, authenticated
parties that stall inside a frame or send past their budget, and the run's nonce."""

from __future__ import annotations

import contextlib
import logging
import os
import struct

import pytest
import trio

from transports.budgets import PartyBudget
from transports.errors import EndpointClosed
from transports.tcp import connect_client, open_hub

MiB = 1 << 20


async def _outsiders(port: int, count: int) -> list[trio.SocketStream]:
    """``count`` TCP connections that never send a byte (the hub may close them)."""
    return [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(count)]


async def test_outsiders_holding_the_cap_do_not_keep_honest_parties_out(roster_for, caplog) -> None:
    """Before: no bound on pending handshakes (each held until a 10 s timeout) and one log
    line per refusal; 19,000 silent connections exhausted the hub and every honest party failed."""
    roster = roster_for(4)
    with caplog.at_level(logging.WARNING, logger="transports.tcp"):
        async with open_hub(roster, port=0, max_pending=16, per_source=8, handshake_timeout=30) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            silent = await _outsiders(hub.port, 60)
            await trio.sleep(0.2)
            assert hub.admission.pending <= 8 and hub.admission.peak <= 8  # one source: 8 at most
            clients = []
            for pid in (1, 2, 3):  # each completes, though outsiders keep arriving around it
                silent += await _outsiders(hub.port, 10)
                clients.append(await connect_client(r, pid))
            for c in clients:
                await c.send(0, b"honest")
            got = [await hub.receive() for _ in clients]
            assert sorted(got) == [(1, b"honest"), (2, b"honest"), (3, b"honest")]
            assert hub.admission.pending <= 8
            closed = hub.admission.summary()
            assert closed["per-source limit"] >= 80 - 8, closed
            for c in clients:
                await c.aclose()
            for s in silent:
                await s.aclose()
    lines = [m for m in caplog.messages if "hub" in m]
    assert len(lines) <= 5 + 3, lines  # the first few in full, then summaries with counts
    assert any("more unauthenticated connections closed" in m and "per-source limit" in m for m in lines)


async def _noisy_outsider(port: int, source: str) -> trio.SocketStream:
    """A TCP connection from ``source`` (a loopback address) that sends one junk byte, so
    it does not look silent to the hub."""
    sock = trio.socket.socket()
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    stream = trio.SocketStream(sock)
    await stream.send_all(b"\x16")
    return stream


async def test_outsiders_from_another_address_evict_only_their_own(roster_for) -> None:
    """Before: past ``max_pending`` the oldest non-silent handshake was closed, whoever's it
    was, so outsiders that send a byte each (from 127.0.0.2) evicted honest parties in the
    middle of their TLS handshake; now the busiest source loses one of its own."""
    roster = roster_for(3)
    async with open_hub(roster, port=0, max_pending=8, per_source=8, handshake_timeout=30) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        noisy = [await _noisy_outsider(hub.port, "127.0.0.2") for _ in range(8)]
        clients = []
        async with trio.open_nursery() as nursery:

            async def flood() -> None:
                while True:  # outsiders keep arriving during the honest handshakes
                    noisy.append(await _noisy_outsider(hub.port, "127.0.0.2"))

            nursery.start_soon(flood)
            with trio.fail_after(20):
                for pid in (1, 2):
                    clients.append(await connect_client(r, pid))
            nursery.cancel_scope.cancel()
        assert hub.admission.summary()["pending limit"] >= 8
        for c in clients:
            await c.send(0, b"in")
        assert sorted([await hub.receive() for _ in clients]) == [(1, b"in"), (2, b"in")]
        for s in (*clients, *noisy):
            await s.aclose()


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
async def test_a_silent_outsider_costs_the_hub_no_tls_state(roster_for) -> None:
    """Before: each pending connection held a TLS object from its accept on, about 52 KB
    (OpenSSL's buffers, outside Python's heap): 400 silent outsiders cost about 20 MB.
    Now the TLS state is made when the first byte arrives."""
    roster = roster_for(2)
    async with open_hub(roster, port=0, max_pending=512, per_source=512, handshake_timeout=60) as hub:
        await trio.sleep(0.1)
        before = _rss()
        silent = await _outsiders(hub.port, 400)
        with trio.fail_after(20):
            while hub.admission.pending < 400:
                await trio.sleep(0.05)
        grew = _rss() - before
        assert grew < 400 * 20_000, f"{grew / 400:.0f} bytes per silent connection"
        for s in silent:
            await s.aclose()


async def test_a_silent_handshake_is_closed_at_the_deadline_and_counted(roster_for) -> None:
    roster = roster_for(2)
    async with open_hub(roster, port=0, handshake_timeout=0.3) as hub:
        (s,) = await _outsiders(hub.port, 1)
        with trio.fail_after(5):
            assert await s.receive_some(10) == b""  # closed by the hub
        assert hub.admission.summary()["handshake timed out"] == 1
        assert hub.admission.pending == 0
        await s.aclose()


async def test_a_party_stalling_inside_a_frame_is_disconnected_and_named(roster_for) -> None:
    """Before: a party that declared a 64 MiB frame, sent most of it and stalled held that
    memory for as long as it liked (no deadline on authenticated connections)."""
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False, frame_timeout=0.3) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=False)
        await c._stream.send_all(struct.pack(">II", 4 + MiB // 4, 2) + bytes(MiB // 8))
        with trio.fail_after(10):
            while 1 in hub.connected:
                await trio.sleep(0.05)
        errs = [str(e) for e in hub.peer_errors if e.peer == 1]
        # 0.3 s, plus 1 s for the declared 256 KiB at FRAME_MIN_RATE
        assert errs and "frame not complete 1.3 s after its first byte" in errs[0], errs
        assert "connection dropped" in errs[0]
        await c.aclose()


async def test_a_party_over_its_byte_budget_is_cut_off_and_everyone_is_told(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False, budget=PartyBudget(bytes=100_000)) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        flooder, honest = await connect_client(r, 1, tls=False), await connect_client(r, 2, tls=False)
        with trio.fail_after(10):
            try:
                for _ in range(1000):
                    await flooder.send(0, bytes(10_000))
                    await trio.sleep(0)
            except EndpointClosed:
                pass
            while 1 in hub.connected:
                await trio.sleep(0.05)
        errs = [str(e) for e in hub.peer_errors if e.peer == 1]
        assert any("over its budget of 100000 bytes" in e and "disconnected" in e for e in errs)
        assert list(hub.cut_off) == [1] and hub.gone == {1}
        await honest.send(0, b"still served")
        while (got := await hub.receive())[0] != 2:
            pass
        assert got == (2, b"still served")
        # the honest party learns who was cut off, and why, before its next frame
        await hub.send(2, b"after")
        with trio.fail_after(5):
            assert await honest.receive() == (0, b"after")
        assert honest.gone == {1} and "over its budget of 100000 bytes" in honest.cut_off[1]
        await flooder.aclose()
        await honest.aclose()


async def test_a_party_over_its_message_budget_is_cut_off(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False, budget=PartyBudget(messages=50)) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        flooder, sink = await connect_client(r, 1, tls=False), await connect_client(r, 2, tls=False)
        with trio.fail_after(10):
            try:
                for _ in range(200):
                    await flooder.send(2, b"x")  # tiny, well under any byte budget
            except EndpointClosed:
                pass
            while 1 in hub.connected:
                await trio.sleep(0.05)
        assert "sent 51 messages, over its budget of 50 messages per run" in hub.cut_off[1]
        await hub.send(2, b"after")  # behind what came before the cut, and behind the notice
        got = []
        with trio.fail_after(30):  # a hang guard: the claim is the order, not a time
            while (frame := await sink.receive()) != (0, b"after"):
                got.append(frame)
        assert got == [(1, b"x")] * 50 and sink.gone == {1}  # what came before the cut, then the notice
        await flooder.aclose()
        await sink.aclose()


async def test_a_receiver_that_refuses_a_sender_gets_nothing_more_from_it(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        a, b = await connect_client(r, 1, tls=False), await connect_client(r, 2, tls=False)
        await b.refuse(1, "caused too many errors")
        await b.refuse(0, "ignored: the hub is not refused through itself")
        with trio.fail_after(5):
            while hub.refusing.get(2) != {1}:
                await trio.sleep(0.01)
        await a.send(2, b"dropped")
        await hub.send(2, b"from the hub")
        with trio.fail_after(5):
            assert await b.receive() == (0, b"from the hub")
        assert hub.dropped == 1 and 1 in hub.connected  # refused by one party, not cut off
        await a.aclose()
        await b.aclose()


async def test_the_default_budget_cuts_off_a_party_sending_to_unknown_parties(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False) as hub:
        assert hub.budget == PartyBudget.default(3)
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=False)
        blob = struct.pack(">II", 4 + 3, 77) + b"abc"
        with contextlib.suppress(trio.BrokenResourceError):
            await c._stream.send_all(blob * 5000)
        with trio.fail_after(10):
            while 1 in hub.connected:
                await trio.sleep(0.05)
        assert "sent 101 bad frames, over its budget of 100 errors" in hub.cut_off[1]
        assert len(hub.peer_errors) == 102  # 101 frame errors, then the cut
        await c.aclose()


async def test_one_flooder_holds_at_most_its_share_of_the_hub(roster_for) -> None:
    """Before: one party could fill every destination's queue (n - 1 queues of 32 MiB)."""
    roster = roster_for(6)
    async with open_hub(roster, port=0, tls=False, queue_bytes=MiB, party_bytes=MiB) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        flooder = await connect_client(r, 1, tls=False)
        sinks = [await connect_client(r, i, tls=False) for i in (2, 3, 4, 5)]  # none reads
        async with trio.open_nursery() as nursery:

            async def flood() -> None:
                for k in range(200):
                    await flooder.send(2 + k % 4, bytes(64 * 1024))

            nursery.start_soon(flood)
            await trio.sleep(1.0)
            # the sinks' sockets hold some; the hub's queues hold at most party_bytes of it
            assert hub.queued_bytes <= MiB + 64 * 1024 + 200 * 128, hub.queued_bytes
            nursery.cancel_scope.cancel()
        for c in (flooder, *sinks):
            await c.aclose()
        with trio.fail_after(10):
            while hub.connected:
                await trio.sleep(0.02)
        assert set(hub.budgets.held.values()) <= {0}  # every frame held was released


async def test_every_welcome_carries_the_runs_nonce_and_each_run_has_its_own(roster_for) -> None:
    roster = roster_for(3)
    nonces = []
    for _ in range(2):
        async with open_hub(roster, port=0, tls=False) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            a, b = await connect_client(r, 1, tls=False), await connect_client(r, 2, tls=False)
            assert a.run_nonce == b.run_nonce == hub.run_nonce and len(hub.run_nonce) == 16
            nonces.append(hub.run_nonce)
            await a.aclose()
            await b.aclose()
    assert nonces[0] != nonces[1]
