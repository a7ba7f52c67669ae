"""One transcript type: wire events as an observer at one place sees them.

Every recorder in the framework emits :class:`WireEvent` into a
:class:`Transcript`:

* a transport **tap** (``transports.tap.Tap`` *is* a ``Transcript``): the
  memory network records each payload handed to the simulated network; TCP
  records every chunk written to the socket *beneath* TLS, i.e. ciphertext,
  hop by hop (``i -> hub``, ``hub -> j``);
* the synchronous **harness** (:mod:`mpc_rr.core._harness`): each message as
  encoded by the protocol's codec, with its delivery fate;
* a **Party** (``parties.party.Party(transcript=True)``): what that party sent,
  with the run/step label it knows.

Fields an observer cannot see are ``None`` (a tap beneath TLS sees no
run/step label); :meth:`Transcript.with_labels` fills labels from plaintext
payloads, exactly what an eavesdropper of a plaintext channel could do.

A transcript saves to and loads from a file (MessagePack via msgspec, the same
strict codec family as the wire), so a recorded run -- even one recorded on
real hosts -- can be attacked offline by :mod:`mpc_rr.adversary`.
Times are seconds on the recorder's clock (``trio.current_time()``, virtual
under a ``MockClock``; the harness uses the delivery step index).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from mpc_rr.core._errors import DecodeError, UsageError

__all__ = ["TRANSCRIPT_FORMAT", "Transcript", "WireEvent"]

TRANSCRIPT_FORMAT = "mpc-rr-transcript/1"


class WireEvent(msgspec.Struct, frozen=True, forbid_unknown_fields=True, array_like=True):
    """One transmission as seen by the observer that recorded it.

    Attributes
    ----------
    time:
        Seconds on the recorder's clock (harness: delivery step index).
    src, dst:
        Ends of the observed hop (TCP: one end is the hub; ``dst = -1`` for
        bytes a hub sent before the peer authenticated).
    size:
        Bytes observed (``len`` of the payload or chunk as sent).
    data:
        The bytes as sent (ciphertext beneath TLS); ``b""`` when the recorder
        keeps metadata only.
    run, step:
        The protocol run id and step label where the observer can see them,
        else ``None``.
    delivered:
        ``False`` for a message the harness dropped on purpose; ``True`` otherwise.
    """

    time: float
    src: int
    dst: int
    size: int
    data: bytes = b""
    run: str | None = None
    step: int | None = None
    delivered: bool = True


class _File(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    format: str
    observer: str
    keep_data: bool
    meta: dict[str, Any]
    events: list[WireEvent]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_File)


class Transcript:
    """An append-only sequence of :class:`WireEvent` recorded at one place.

    Parameters
    ----------
    observer:
        Where the recorder sits, in words (``"memory network"``, ``"tcp wire
        beneath TLS"``, ``"party 3 (sent)"``, ``"harness"``); saved with the events.
    keep_data:
        If ``False`` only metadata is kept (``data = b""``) -- enough for
        traffic analysis and cheap on 64 MiB frames.
    meta:
        JSON-able facts about the run (protocol, parties, seed, transport).
    """

    def __init__(
        self,
        observer: str = "",
        *,
        keep_data: bool = True,
        meta: dict[str, Any] | None = None,
        events: Iterable[WireEvent] = (),
    ) -> None:
        self.observer = str(observer)
        self.keep_data = bool(keep_data)
        self.meta: dict[str, Any] = dict(meta or {})
        self.events: list[WireEvent] = list(events)

    def record(
        self,
        time: float,
        src: int,
        dst: int,
        data: bytes | bytearray | memoryview,
        *,
        run: str | None = None,
        step: int | None = None,
        delivered: bool = True,
    ) -> None:
        """Append one observation (copies ``data`` into immutable ``bytes`` if kept)."""
        blob = bytes(data) if self.keep_data else b""
        self.events.append(
            WireEvent(float(time), int(src), int(dst), len(data), blob, run, step, delivered)
        )

    def append(self, event: WireEvent) -> None:
        self.events.append(event)

    def extend(self, events: Iterable[WireEvent]) -> None:
        self.events.extend(events)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[WireEvent]:
        return iter(self.events)

    def __getitem__(self, i: int) -> WireEvent:
        return self.events[i]

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.events)

    def between(self, src: int, dst: int) -> list[WireEvent]:
        """Events on the hop ``src -> dst`` in recording order."""
        return [e for e in self.events if e.src == src and e.dst == dst]

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Payloads per hop ``(src, dst)`` in recording order (delivered events only)."""
        out: dict[tuple[int, int], list[bytes]] = {}
        for e in self.events:
            if e.delivered:
                out.setdefault((e.src, e.dst), []).append(e.data)
        return out

    def with_labels(self, decode: Any) -> Transcript:
        """A copy whose plaintext events carry run/step labels.

        ``decode(data) -> object with .run and .step`` (e.g. a
        :class:`~mpc_rr.core.Codec`'s ``decode``); events it cannot decode
        (ciphertext, control frames) keep ``None`` labels.
        """
        out = Transcript(self.observer, keep_data=self.keep_data, meta=self.meta)
        for e in self.events:
            run, step = e.run, e.step
            if run is None and e.data:
                try:
                    msg = decode(e.data)
                    run, step = str(msg.run), int(msg.step)
                except Exception:  # not a plaintext message: the observer learns no label
                    pass
            out.events.append(msgspec.structs.replace(e, run=run, step=step))
        return out

    # -- files -----------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the transcript to ``path`` (MessagePack); returns the path."""
        p = Path(path)
        blob = _ENCODER.encode(
            _File(TRANSCRIPT_FORMAT, self.observer, self.keep_data, self.meta, self.events)
        )
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(blob)
        except OSError as exc:
            raise UsageError(f"cannot write transcript {p}: {exc.strerror or exc}") from None
        return p

    @classmethod
    def load(cls, path: str | Path) -> Transcript:
        """Read a transcript written by :meth:`save`; a malformed file raises DecodeError."""
        p = Path(path)
        try:
            blob = p.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read transcript {p}: {exc.strerror or exc}") from None
        try:
            f = _DECODER.decode(blob)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise DecodeError(f"transcript {p}: not an mpc-rr transcript ({exc})") from None
        if f.format != TRANSCRIPT_FORMAT:
            raise DecodeError(f"transcript {p}: format {f.format!r}, expected {TRANSCRIPT_FORMAT!r}")
        return cls(f.observer, keep_data=f.keep_data, meta=f.meta, events=f.events)

    def __repr__(self) -> str:
        return f"Transcript({self.observer!r}, {len(self.events)} events)"
