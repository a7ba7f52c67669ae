"""Length-prefixed frames on a byte stream, and a stream wrapper that taps sends.

Frame layout (big-endian)::

    u32 body_length | u32 peer | payload (body_length - 4 bytes)

``peer`` is the destination on a client -> hub frame and the source on a
hub -> client frame; :data:`CONTROL` marks a control frame (hello / welcome /
refusal).  A body longer than ``max_frame + 4`` is a :class:`FrameError`:
the stream cannot be resynchronised, so the connection is dropped.

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
    """

    def __init__(
        self, stream: trio.abc.ReceiveStream, max_frame: int, idle: float | None = None
    ) -> None:
        self._stream = stream
        self._max_body = int(max_frame) + 4
        self._buf = bytearray()
        self.idle = idle  # seconds without a byte tolerated inside a frame (None: forever)

    def with_max_frame(self, max_frame: int, idle: float | None = None) -> FrameReader:
        """A reader of the same stream with another ``max_frame`` (and inside-frame ``idle``
        deadline), taking over the bytes buffered here."""
        other = FrameReader(self._stream, max_frame, idle)
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

    async def _fill(self, n: int) -> bool:
        buf = self._buf
        while len(buf) < n:
            # inside a frame (bytes of it buffered) a silent peer holds them: bounded by `idle`
            idle = self.idle if buf and self.idle is not None else math.inf
            try:
                with trio.move_on_after(idle) as waited:
                    chunk = await self._stream.receive_some(max(65536, min(n - len(buf), 1 << 22)))
                if waited.cancelled_caught:
                    raise FrameError(f"no byte for {self.idle} s {self._where()}")
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

        Raises :class:`FrameError` for an oversize length or a truncated frame,
        ``trio.BrokenResourceError`` if the stream broke between frames and
        ``trio.ClosedResourceError`` if it was closed locally.
        """
        if not await self._fill(_HEAD.size):
            return None
        body, peer = _HEAD.unpack_from(self._buf)
        if body < 4 or body > self._max_body:
            raise FrameError(
                f"frame length {body - 4} outside [0, {self._max_body - 4}] (max_frame)"
            )
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
