"""The TCP hub against hostile parties and crashes: errors in the body of ``open_hub``, one
identity claimed twice at once, endings (truncated frames, abrupt disconnects, silent waits),
memory bounded in bytes, a party that stops reading, bounded retention."""

from __future__ import annotations

import functools
import socket
import struct
import time
import tracemalloc

import pytest
import trio
import trio.testing

from mpc_rr.core import PeerError, UsageError
from mpc_rr.core._errors import ErrorLog
from transports.errors import EndpointClosed, HandshakeDropped, TransportError
from transports.framing import CONTROL, pack_frame
from transports.tcp import RefusalLog, TcpClient, connect_client, open_hub

MiB = 1 << 20


def deadline(seconds: float):
    """Fail a test that hangs instead of blocking the suite (a hub bug can look like a hang)."""

    def wrap(fn):
        @functools.wraps(fn)
        async def inner(*args, **kwargs):
            with trio.fail_after(seconds):
                return await fn(*args, **kwargs)

        return inner

    return wrap


async def _until(pred, what: str, timeout: float = 10) -> None:
    with trio.fail_after(timeout):
        while not pred():
            await trio.sleep(0.01)


# -- errors raised in the body of `async with open_hub` ---------------------------------


@deadline(60)
async def test_an_error_in_the_hub_body_propagates_with_its_cause(roster_for) -> None:
    roster = roster_for(3)
    with pytest.raises(ValueError, match="raised in the body") as info:
        async with open_hub(roster, port=0) as hub:
            r = roster.with_hub_address("127.0.0.1", hub.port)
            c = await connect_client(r, 1)  # with a live connection, whose handler is cancelled
            try:
                raise KeyError("inner")
            except KeyError as exc:
                raise ValueError("raised in the body") from exc
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(EndpointClosed):  # the hub did close
        await c.receive()
    await c.aclose()


@deadline(60)
async def test_an_error_after_closing_the_hub_in_the_body_still_propagates(roster_for) -> None:
    roster = roster_for(3)
    with pytest.raises(RuntimeError, match="after aclose"):
        async with open_hub(roster, port=0) as hub:
            await hub.aclose()
            raise RuntimeError("after aclose")


@deadline(60)
async def test_outer_cancellation_of_the_hub_body_is_clean(roster_for) -> None:
    roster = roster_for(3)
    with trio.move_on_after(0.2) as scope:
        async with open_hub(roster, port=0):
            await trio.sleep_forever()
    assert scope.cancelled_caught


@deadline(60)
async def test_open_hub_validates_its_limits(roster_for) -> None:
    roster = roster_for(3)
    with pytest.raises(UsageError, match=r"queue_bytes \(bytes per queue\) must be an int >= 1, got 0"):
        async with open_hub(roster, port=0, queue_bytes=0):
            pass
    with pytest.raises(UsageError, match="stall_timeout must be None or finite seconds > 0"):
        async with open_hub(roster, port=0, stall_timeout=float("nan")):
            pass


# -- one identity claimed by two connections at once ------------------------------------


@deadline(60)
async def test_simultaneous_hellos_for_one_identity_welcome_exactly_one(roster_for) -> None:
    roster = roster_for(3)
    k = 20
    async with open_hub(roster, port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        welcomed: list[TcpClient] = []
        refused: list[str] = []

        async def attempt() -> None:
            try:
                welcomed.append(await connect_client(r, 1))
            except TransportError as exc:
                refused.append(str(exc))

        async with trio.open_nursery() as nursery:
            for _ in range(k):
                nursery.start_soon(attempt)
        assert len(welcomed) == 1, f"{len(welcomed)} connections welcomed as party 1"
        assert len(refused) == k - 1 and all("already connected" in m for m in refused)
        assert hub.handshakes == 1 and hub.connected == {1}
        assert len(hub.refused) == k - 1  # all counted (a few kept: see the ErrorLog)
        assert all(e.peer == 1 for e in hub.peer_errors)
        await welcomed[0].send(0, b"the one")
        assert await hub.receive() == (1, b"the one")
        await welcomed[0].aclose()


@deadline(60)
async def test_reconnecting_after_leaving_is_refused_with_a_reason(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1)
        await c.send(0, b"took part")  # something of the run passed: its state is gone with it
        assert await hub.receive() == (1, b"took part")
        await c.aclose()
        await _until(lambda: not hub.connected, "party 1 gone")
        with pytest.raises(TransportError, match="already left this run") as refused:
            await connect_client(r, 1)
        assert not isinstance(refused.value, HandshakeDropped)  # final: not worth retrying


@deadline(60)
async def test_a_party_that_left_before_anything_passed_may_connect_again(roster_for) -> None:
    """Issue 21: a client that gave up waiting for its welcome (a hub slowed by a flood)
    was locked out for good ("already left this run") and the whole run failed."""
    roster = roster_for(3)
    async with open_hub(roster, port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1)
        await c.aclose()  # nothing of the run passed on this connection
        await _until(lambda: not hub.connected, "party 1 gone")
        await hub.send(1, b"queued while away")
        again = await connect_client(r, 1)
        assert await again.receive() == (0, b"queued while away")  # kept for it, not dropped
        await again.aclose()


@deadline(60)
async def test_a_second_hello_while_connected_is_refused_as_worth_retrying(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1)
        with pytest.raises(HandshakeDropped, match="already connected"):
            await connect_client(r, 1)
        await c.aclose()


# -- endings ------------------------------------------------------------------------------


def _abort(client: TcpClient, how: str, tls: bool) -> None:
    """Close the client's socket beneath TLS: a FIN without close_notify, or a reset."""
    stream = client._stream
    sock = (stream.transport_stream if tls else stream).socket  # type: ignore[attr-defined]
    if how == "reset":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@deadline(60)
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
@pytest.mark.parametrize("how", ["close", "fin", "reset"])
async def test_a_truncated_frame_then_a_close_is_recorded(roster_for, tls: bool, how: str) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=tls) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=tls)
        await c._stream.send_all(struct.pack(">II", 4 + 1000, 0) + b"x" * 10)  # 10 of 1000
        # the hub has read the 10 bytes once every task waits (a reset may discard unread
        # bytes: a fixed delay lost that race under load)
        await trio.testing.wait_all_tasks_blocked(cushion=0.02)
        if how == "close":
            await c.aclose()
        else:
            _abort(c, how, tls)
        await _until(lambda: not hub.connected, "party 1 gone")
        errs = list(hub.peer_errors)
        assert [e.peer for e in errs] == [1], errs
        assert "connection ended inside a frame (10 of 1000 payload bytes)" in str(errs[0])


@deadline(60)
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
async def test_an_abrupt_disconnect_between_frames_is_not_an_error(roster_for, tls: bool) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=tls) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=tls)
        await c.send(0, b"complete")
        assert await hub.receive() == (1, b"complete")
        _abort(c, "reset", tls)
        await _until(lambda: not hub.connected, "party 1 gone")
        assert not hub.peer_errors


@deadline(60)
async def test_the_client_records_a_truncated_frame_from_the_hub(roster_for) -> None:
    roster = roster_for(3)

    async def fake_hub(stream: trio.SocketStream) -> None:
        await stream.receive_some()  # the hello
        for piece in pack_frame(CONTROL, b'{"welcome":1}'):
            await stream.send_all(piece)
        await stream.send_all(struct.pack(">II", 4 + 100, 2) + b"y" * 7)
        await trio.testing.wait_all_tasks_blocked(cushion=0.02)  # the client has read the 7 bytes
        stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        stream.socket.close()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, fake_hub, 0)
        port = listeners[0].socket.getsockname()[1]
        r = roster.with_hub_address("127.0.0.1", port)
        c = await connect_client(r, 1, tls=False)
        with pytest.raises(EndpointClosed, match="malformed frame"):
            await c.receive()
        nursery.cancel_scope.cancel()
    assert [e.peer for e in c.peer_errors] == [0]
    assert "connection ended inside a frame (7 of 100 payload bytes)" in str(c.peer_errors[0])


async def test_wait_errors_name_the_parties_missing_when_the_wait_ends(
    roster_for, mock_clock
) -> None:
    roster = roster_for(4)  # time stands still unless the test jumps it
    async with open_hub(roster, port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        errors: list[str] = []

        async def wait(fn) -> None:
            try:
                await fn(timeout=30)
            except TransportError as exc:
                errors.append(str(exc))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait, hub.wait_connected)
            c1, c2 = await connect_client(r, 1), await connect_client(r, 2)
            mock_clock.jump(31)
        assert errors == ["hub: timed out after 30 s waiting for parties [3] to connect"]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait, hub.wait_disconnected)
            await c1.aclose()
            await _until_mock(lambda: 1 not in hub.connected)
            mock_clock.jump(31)
        assert errors[1] == "hub: timed out after 30 s waiting for parties [2] to leave"
        await c2.aclose()


async def _until_mock(pred) -> None:
    """Wait for ``pred()`` while the mock clock stands still (trio still polls I/O)."""
    for _ in range(100_000):
        if pred():
            return
        await trio.sleep(0)
    raise AssertionError("condition never became true")


@deadline(60)
async def test_frames_pipelined_behind_the_hello_are_kept(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False) as hub:
        raw = await trio.open_tcp_stream("127.0.0.1", hub.port)
        hello = pack_frame(CONTROL, b'{"hello":1}')[0]
        await raw.send_all(hello + b"".join(pack_frame(0, b"m%d" % i)[0] for i in range(3)))
        with trio.fail_after(5):
            got = [await hub.receive() for _ in range(3)]
        assert got == [(1, b"m0"), (1, b"m1"), (1, b"m2")]
        await raw.aclose()


@deadline(60)
async def test_frames_arriving_with_the_welcome_are_kept(roster_for) -> None:
    roster = roster_for(3)

    async def fake_hub(stream: trio.SocketStream) -> None:
        await stream.receive_some()  # the hello
        welcome = pack_frame(CONTROL, b'{"welcome":1}')[0]
        await stream.send_all(welcome + b"".join(pack_frame(2, b"m%d" % i)[0] for i in range(3)))
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, fake_hub, 0)
        r = roster.with_hub_address("127.0.0.1", listeners[0].socket.getsockname()[1])
        c = await connect_client(r, 1, tls=False)
        with trio.fail_after(5):
            got = [await c.receive() for _ in range(3)]
        assert got == [(2, b"m0"), (2, b"m1"), (2, b"m2")]
        await c.aclose()
        nursery.cancel_scope.cancel()


# -- hub memory is bounded in bytes; a party that stops reading is named -----------------


@deadline(60)
async def test_hub_queues_are_bounded_in_bytes_and_the_sender_is_throttled(roster_for) -> None:
    """A party relays 3 MiB frames to itself and never reads."""
    roster = roster_for(3)
    frames, payload = 60, bytes(3 * MiB)
    async with open_hub(roster, port=0, tls=False) as hub:  # default limits
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=False)
        sent = 0

        async def flood() -> None:
            nonlocal sent
            for _ in range(frames):
                await c.send(1, payload)
                sent += 1

        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(flood)
                last, still = -1, time.monotonic()
                while sent < frames and time.monotonic() - still < 0.5:
                    await trio.sleep(0.05)
                    if sent != last:
                        last, still = sent, time.monotonic()
                grown = tracemalloc.get_traced_memory()[0] - base
                nursery.cancel_scope.cancel()
        finally:
            tracemalloc.stop()
        # 180 MiB sent; the hub holds one queue's worth (32 MiB) plus the frame in hand
        assert grown < 48 * MiB, f"hub memory grew by {grown / MiB:.0f} MiB"
        assert sent < frames, "the sender was never throttled"
        assert hub.queued_bytes <= hub.queue_bytes
        await c.aclose()


@deadline(60)
@pytest.mark.parametrize("target", ["itself", "a silent party"])
async def test_a_party_that_stops_reading_is_named_and_disconnected(
    roster_for, target: str
) -> None:
    roster = roster_for(4)
    async with open_hub(roster, port=0, tls=False, queue_bytes=4 * MiB, stall_timeout=0.5) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        flooder, silent, other = [await connect_client(r, i, tls=False) for i in (1, 2, 3)]
        victim = 1 if target == "itself" else 2
        outcome: list[str] = []

        async def flood() -> None:  # far more than the queue and the socket buffers hold
            try:
                for _ in range(64):
                    await flooder.send(victim, bytes(MiB))
                outcome.append("all sent")
            except EndpointClosed:
                outcome.append("disconnected")

        with trio.fail_after(20):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(flood)
        # the one that stopped reading is disconnected; a sender to it is released
        assert outcome == ["disconnected" if victim == 1 else "all sent"]
        assert victim not in hub.connected and hub.queued_bytes == 0
        errs = [e for e in hub.peer_errors if "stopped reading" in str(e)]
        assert [e.peer for e in errs] == [victim]
        assert "limit 4194304 bytes" in str(errs[0]) and "disconnected it" in str(errs[0])
        await other.send(0, b"still served")
        assert await hub.receive() == (3, b"still served")
        if victim == 2:
            await flooder.send(0, b"me too")
            assert await hub.receive() == (1, b"me too")
        for c in (flooder, silent, other):
            await c.aclose()


@deadline(60)
async def test_a_send_cancelled_mid_frame_closes_the_endpoint(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0, tls=False, queue_bytes=MiB) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        a, b = await connect_client(r, 1, tls=False), await connect_client(r, 2, tls=False)
        sent: list[int] = []

        async def flood() -> None:
            for i in range(100):  # b does not read: a send soon blocks part-way
                await a.send(2, bytes(8 * MiB))
                sent.append(i)

        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(flood)
                # cancel once every task waits: a is stuck inside a frame (the hub, holding
                # its queue's worth for b, reads no more of a's bytes), whatever the load;
                # a wall-clock delay could cancel before the first byte under load
                await trio.testing.wait_all_tasks_blocked(cushion=0.05)
                assert len(sent) < 100
                scope.cancel()
        assert scope.cancelled_caught
        # the rest of that frame will never come: sending more would corrupt the stream
        with pytest.raises(EndpointClosed, match="closed"):
            await a.send(0, b"after")
        await b.send(0, b"others unaffected")
        assert await hub.receive() == (2, b"others unaffected")  # the test's deadline bounds it
        await a.aclose()
        await b.aclose()


@deadline(60)
async def test_a_frame_larger_than_the_queue_bound_still_passes(roster_for) -> None:
    roster = roster_for(3)
    payload = bytes(range(256)) * (20 * MiB // 256)
    async with open_hub(roster, port=0, queue_bytes=MiB) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        a, b = await connect_client(r, 1), await connect_client(r, 2)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(a.send, 2, payload)
            nursery.start_soon(a.send, 0, payload)
            assert await b.receive() == (1, payload)
            assert await hub.receive() == (1, payload)
        await a.aclose()
        await b.aclose()


# -- bounded retention ---------------------------------------------------------------------


@deadline(600)  # a hang guard only: 11 s alone, over 60 s under tracemalloc at load 20
async def test_100k_frames_to_unknown_parties_keep_memory_bounded(roster_for) -> None:
    roster = roster_for(3)
    k = 100_000
    async with open_hub(roster, port=0, tls=False, budget=None) as hub:  # the bound without a budget
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=False)
        blob = struct.pack(">II", 4 + 3, 77) + b"abc"
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            await c._stream.send_all(blob * k)
            await c.send(0, b"end")
            assert await hub.receive() == (1, b"end")  # after the 100k refused frames, in order
            grown = tracemalloc.get_traced_memory()[0] - base
        finally:
            tracemalloc.stop()
        assert grown < 2 * MiB, f"hub memory grew by {grown / MiB:.1f} MiB"
        assert isinstance(hub.peer_errors, ErrorLog)
        assert len(hub.peer_errors) == k  # every one counted ...
        kept = list(hub.peer_errors)
        assert 1 <= len(kept) <= hub.peer_errors.keep_per_peer  # ... a few kept
        assert all(isinstance(e, PeerError) and e.peer == 1 for e in kept)
        assert "sent a frame to unknown party 77" in str(kept[0])
        assert hub.peer_errors.summary()[-1] == f"... and {k - len(kept)} more errors from party 1"
        await c.aclose()


def test_refusals_read_as_lines_and_are_bounded() -> None:
    log = RefusalLog()
    for i in range(1000):
        log.append(PeerError(f"1.2.3.4:{i}: TLS handshake failed", None))
    assert len(log) == 1000 and list(log) == [f"1.2.3.4:{i}: TLS handshake failed" for i in range(5)]
    assert log[0] == "1.2.3.4:0: TLS handshake failed"
