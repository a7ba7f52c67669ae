"""Length-prefixed frames on a byte stream, and a stream wrapper that taps sends.

Frame layout (big-endian)::

    u32 body_length | u32 peer | payload (body_length - 4 bytes)

``peer`` is the destination on a client -> hub frame and the source on a
hub -> client frame; :data:`CONTROL` marks a control frame (hello / welcome /
refusal).  A body longer than ``max_frame + 4`` is a :class:`FrameError`:
the stream cannot be resynchronised, so the connection is dropped.  With a
``timeout``, a frame must be complete within ``timeout`` seconds of its first
byte, plus ``length / FRAME_MIN_RATE`` seconds once its header declares its
length: one total deadline per frame, which a peer sending a byte now and then
cannot push back.

Also the stream helpers the TCP hub and client share: :data:`BROKEN` (the
errors that mean a stream is gone), :func:`quiet_close` and
:func:`tap_place` (where a tap of the TCP wire sits).
"""

from __future__ import annotations

import math
import struct

import trio

from transports.tap import Tap

__all__ = [
    "BROKEN",
    "CONTROL",
    "FRAME_MIN_RATE",
    "FrameError",
    "FrameReader",
    "TappedStream",
    "pack_frame",
    "quiet_close",
    "tap_place",
]

CONTROL = 0xFFFFFFFF
_HEAD = struct.Struct(">II")
_BIG = 1 << 16

FRAME_MIN_RATE = 256 * 1024
"""Bytes per second a frame's deadline allows for its declared length (on top of the timeout):
a 64 MiB frame gets 256 s more, a 1 KiB frame 4 ms."""

BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError)
"""What a stream raises once it is gone (broken by the peer, or closed here)."""


class FrameError(Exception):
    """The byte stream does not follow the framing (oversize, truncated)."""


def pack_frame(peer: int, payload: bytes) -> list[bytes]:
    """Frame pieces to write in order (one piece for small payloads, no big copy otherwise)."""
    head = _HEAD.pack(len(payload) + 4, peer)
    if len(payload) < _BIG:
        return [head + payload]
    return [head, payload]


class FrameReader:
    """Reads frames from ``stream``; ``max_frame`` bounds the payload size.

    A stream that ends inside a frame -- cleanly, or abruptly
    (``trio.BrokenResourceError``: a reset, or a TLS peer that closed the
    socket without ``close_notify``) -- raises :class:`FrameError`: the peer
    sent a truncated frame.  An abrupt end *between* frames propagates as
    ``trio.BrokenResourceError`` (a disconnect, not a malformed frame).
    ``timeout`` (seconds, ``None`` = none): a frame not complete within
    ``timeout`` of its first byte plus its length's allowance
    (:data:`FRAME_MIN_RATE`) raises :class:`FrameError` (module docstring).
    """

    def __init__(
        self, stream: trio.abc.ReceiveStream, max_frame: int, timeout: float | None = None
    ) -> None:
        self._stream = stream
        self._max_body = int(max_frame) + 4
        self._buf = bytearray()
        self.timeout = timeout
        self._deadline: float | None = None  # of the frame being read (set at its first byte)
        self._allowed = 0.0  # seconds the frame being read is allowed in all

    def with_max_frame(self, max_frame: int, timeout: float | None = None) -> FrameReader:
        """A reader of the same stream with another ``max_frame`` (and per-frame ``timeout``),
        taking over the bytes buffered here."""
        other = FrameReader(self._stream, max_frame, timeout)
        other._buf, self._buf = self._buf, bytearray()
        return other

    def _where(self) -> str:
        got = len(self._buf)
        if got < _HEAD.size:
            return f"inside a frame header ({got} of {_HEAD.size} bytes)"
        body = _HEAD.unpack_from(self._buf)[0]
        return f"inside a frame ({got - _HEAD.size} of {body - 4} payload bytes)"

    def _truncated(self) -> str:
        return f"connection ended {self._where()}"

    def _start(self) -> None:
        """The frame being read has its first byte: its deadline starts now."""
        if self._deadline is None and self.timeout is not None:
            self._deadline = trio.current_time() + self.timeout
            self._allowed = self.timeout

    async def _fill(self, n: int) -> bool:
        buf = self._buf
        while len(buf) < n:
            if buf:
                self._start()
            # inside a frame (bytes of it buffered) a slow peer holds them: bounded by the deadline
            at = self._deadline if buf and self._deadline is not None else math.inf
            try:
                with trio.move_on_at(at) as waited:
                    chunk = await self._stream.receive_some(max(65536, min(n - len(buf), 1 << 22)))
                if waited.cancelled_caught:
                    raise FrameError(f"frame not complete {self._allowed:.6g} s after its first byte, {self._where()}")
            except trio.BrokenResourceError as exc:
                if buf:
                    raise FrameError(self._truncated()) from exc
                raise
            if not chunk:
                if buf:
                    raise FrameError(self._truncated())
                return False
            buf += chunk
        return True

    async def read(self) -> tuple[int, bytes] | None:
        """The next ``(peer, payload)``, or ``None`` on a clean end of stream.

        Raises :class:`FrameError` for an oversize length, a truncated frame or one
        past its deadline, ``trio.BrokenResourceError`` if the stream broke between
        frames and ``trio.ClosedResourceError`` if it was closed locally.
        """
        self._deadline = None
        if not await self._fill(_HEAD.size):
            return None
        body, peer = _HEAD.unpack_from(self._buf)
        if body < 4 or body > self._max_body:
            raise FrameError(
                f"frame length {body - 4} outside [0, {self._max_body - 4}] (max_frame)"
            )
        if self.timeout is not None:
            self._start()
            assert self._deadline is not None
            extra = (body - 4) / FRAME_MIN_RATE
            self._deadline += extra
            self._allowed += extra
        await self._fill(4 + body)  # a frame header is buffered: this returns or raises
        payload = bytes(self._buf[8 : 4 + body])
        del self._buf[: 4 + body]
        return peer, payload


class TappedStream(trio.abc.Stream):
    """Wraps the raw socket stream (beneath TLS) and records every chunk sent.

    ``src``/``dst`` label the hop; the hub calls :meth:`relabel` once the peer
    is authenticated (handshake bytes before that carry ``dst = -1``).
    """

    def __init__(self, inner: trio.abc.Stream, tap: Tap, src: int, dst: int) -> None:
        self.inner = inner
        self.tap = tap
        self.src = src
        self.dst = dst

    def relabel(self, dst: int) -> None:
        """Label the bytes sent from now on as going to ``dst``."""
        self.dst = dst

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.tap.record(trio.current_time(), self.src, self.dst, data)
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def quiet_close(stream: trio.abc.AsyncResource) -> None:
    """Close ``stream`` within a second, shielded from cancellation; a broken stream is no error."""
    with trio.move_on_after(1) as scope:
        scope.shield = True
        try:
            await stream.aclose()
        except (*BROKEN, OSError):
            pass


def tap_place(tls: bool) -> str:
    """Where a tap of the TCP wire sits (its ``observer``)."""
    return f"tcp wire {'beneath TLS' if tls else 'plaintext'} (hops i -> hub, hub -> j)"
