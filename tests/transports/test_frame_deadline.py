"""A frame must be complete within one total deadline from its first byte, in virtual time:
a peer trickling a byte now and then cannot hold a partial frame open."""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing

from transports.framing import FRAME_MIN_RATE, FrameError, FrameReader


def _pair() -> tuple[trio.abc.SendStream, FrameReader]:
    send, recv = trio.testing.memory_stream_one_way_pair()
    return send, FrameReader(recv, 1 << 20, timeout=30.0)


async def test_a_byte_every_29_seconds_does_not_keep_a_frame_open(autojump_clock) -> None:
    """Before: the deadline was "no byte for 30 s", so a byte every 29 s held a frame forever."""
    send, reader = _pair()
    size = 1000
    head = struct.pack(">II", 4 + size, 2)

    async def trickle() -> None:
        await send.send_all(head)
        for b in bytes(size):
            await send.send_all(bytes([b]))
            await trio.sleep(29)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        t0 = trio.current_time()
        with pytest.raises(FrameError, match=r"frame not complete 30\.\d+ s after its first byte"):
            await reader.read()
        elapsed = trio.current_time() - t0
        nursery.cancel_scope.cancel()
    assert elapsed == pytest.approx(30 + size / FRAME_MIN_RATE, abs=1e-6)


async def test_a_header_trickled_a_byte_at_a_time_is_cut_at_the_timeout(autojump_clock) -> None:
    send, reader = _pair()

    async def trickle() -> None:
        for b in struct.pack(">II", 4 + 10, 2):
            await send.send_all(bytes([b]))
            await trio.sleep(29)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        t0 = trio.current_time()
        with pytest.raises(FrameError, match=r"not complete 30 s after its first byte, inside a frame header \(2 of 8"):
            await reader.read()
        assert trio.current_time() - t0 == pytest.approx(30)
        nursery.cancel_scope.cancel()


async def test_a_frame_that_arrives_in_pieces_within_its_deadline_is_read(autojump_clock) -> None:
    send, reader = _pair()
    payload = bytes(range(256)) * 4
    data = struct.pack(">II", 4 + len(payload), 7) + payload

    async def pieces() -> None:
        for i in range(0, len(data), 100):  # 11 pieces, 2 s apart: 20 s in all
            await send.send_all(data[i : i + 100])
            await trio.sleep(2)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pieces)
        assert await reader.read() == (7, payload)


async def test_silence_between_frames_is_not_limited(autojump_clock) -> None:
    """The deadline runs from a frame's first byte: a party may say nothing between frames."""
    send, reader = _pair()
    await send.send_all(struct.pack(">II", 4 + 2, 1) + b"hi")
    assert await reader.read() == (1, b"hi")

    async def later() -> None:
        await trio.sleep(3600)
        await send.send_all(struct.pack(">II", 4 + 2, 1) + b"yo")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(later)
        assert await reader.read() == (1, b"yo")


async def test_a_large_frame_gets_time_for_its_length(autojump_clock) -> None:
    send, reader = _pair()
    size = 1 << 20  # 4 s at FRAME_MIN_RATE: 34 s in all
    data = struct.pack(">II", 4 + size, 3) + bytes(size)

    async def slow() -> None:
        step = len(data) // 32
        for i in range(0, len(data), step):  # 33 pieces, 1 s apart
            await send.send_all(data[i : i + step])
            await trio.sleep(1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow)
        src, payload = await reader.read()
    assert (src, len(payload)) == (3, size)
