"""Wire taps: what an observer of the network would record.

A :class:`Tap` is a :class:`mpc_rr.core.Transcript` -- the project's
one transcript type -- that a transport fills: transports call
:meth:`Tap.record` for every transmission they put on a wire (for TCP: every
chunk written to the socket *beneath* TLS, i.e. ciphertext; for the memory
transport: every payload handed to the simulated network).  Each entry is a
:class:`~mpc_rr.core.WireEvent` in ``tap.events``; the transport names
where the tap sits in ``tap.observer``.  The adversary module reads taps (or
their saved files); it never looks inside parties.

Taps cost nothing when off: transports hold ``tap = None`` and guard the
call with a single ``is not None`` check.  ``Tap(keep_data=False)`` keeps
metadata only (time, src, dst, size), cheap on 64 MiB frames.
"""

from __future__ import annotations

from mpc_rr.core import Transcript

__all__ = ["PAYLOAD_TAP", "Tap", "WireCounter"]

PAYLOAD_TAP = "memory network (payloads as handed to the network)"
"""The place a tap of the memory or shard transport observes (its ``observer``)."""


class Tap(Transcript):
    """A :class:`~mpc_rr.core.Transcript` recorded by a transport.

    Create it empty (``Tap()`` or ``Tap(keep_data=False)``) and hand it to a
    transport; the transport calls :meth:`attach` with a description of the
    place it observes, which becomes ``observer``.
    """

    def attach(self, place: str) -> None:
        """Name the place this tap observes (called by the transport it is handed to).

        A tap handed to several transports of different kinds lists each
        place once, separated by ``"; "``.
        """
        if not self.observer:
            self.observer = place
        elif place not in self.observer.split("; "):
            self.observer = f"{self.observer}; {place}"


class WireCounter(Tap):
    """A tap that only adds up the bytes written (no events kept).

    TCP runs hand one to their endpoints when the caller gave no tap, so every
    run can report its wire bytes (TLS records, framing, handshakes) next to
    the payload bytes; a hub in its own process counts its own.
    """

    def __init__(self) -> None:
        super().__init__(keep_data=False)
        self.bytes = 0

    def record(self, time: float, src: int, dst: int, data: bytes | bytearray | memoryview, **_: object) -> None:
        self.bytes += len(data)

    @property
    def total_bytes(self) -> int:
        return self.bytes
