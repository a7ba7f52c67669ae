"""Wire taps: what an observer of the network would record.

A :class:`Tap` is a plain recorder: transports call :meth:`Tap.record` for
every transmission they put on a wire (for TCP: every chunk written to the
socket *beneath* TLS, i.e. ciphertext; for the memory transport: every
payload handed to the simulated network).  The adversary module reads
``tap.records``; it never looks inside parties.

Taps cost nothing when off: transports hold ``tap = None`` and guard the
call with a single ``is not None`` check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Tap", "TapRecord"]


@dataclass(frozen=True, slots=True)
class TapRecord:
    """One observed transmission.

    Attributes
    ----------
    time:
        ``trio.current_time()`` when it was put on the wire (virtual time
        under a ``MockClock``).
    src, dst:
        Ends of the *wire hop*.  On the memory transport these are the
        logical sender and receiver; on TCP through a hub, one end is the
        hub (party 0): an eavesdropper sees hops, not end-to-end routes.
    size:
        Number of bytes observed (``len(data)``).
    data:
        The bytes as sent (ciphertext for TLS).
    """

    time: float
    src: int
    dst: int
    size: int
    data: bytes


@dataclass
class Tap:
    """Append-only list of :class:`TapRecord` (optionally without the bytes).

    Parameters
    ----------
    keep_data:
        If ``False`` only metadata (time, src, dst, size) is kept and ``data``
        is ``b""`` -- enough for traffic analysis, and cheap on 64 MiB frames.
    """

    keep_data: bool = True
    records: list[TapRecord] = field(default_factory=list)

    def record(self, time: float, src: int, dst: int, data: bytes | bytearray | memoryview) -> None:
        """Append one observation (copies ``data`` into an immutable ``bytes``)."""
        blob = bytes(data) if self.keep_data else b""
        self.records.append(TapRecord(float(time), int(src), int(dst), len(data), blob))

    def __len__(self) -> int:
        return len(self.records)

    @property
    def total_bytes(self) -> int:
        return sum(r.size for r in self.records)

    def between(self, src: int, dst: int) -> list[TapRecord]:
        """Records on the hop ``src -> dst`` in the order they were sent."""
        return [r for r in self.records if r.src == src and r.dst == dst]
