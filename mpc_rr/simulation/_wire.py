"""What the wire does to each message of a schedule: drops, duplicates and Byzantine rewrites.

:class:`WireFaults` is the one place a schedule's message faults are applied, by every
driver (the simulator and the memory transport's runner call :meth:`WireFaults.send` with
the bytes a party sends and put on the wire what it returns), so both see the same faults.
A Byzantine party's message is rewritten by its :class:`~mpc_rr.simulation.Mutate` fault:

* ``flip`` -- one bit of the encoded bytes (``param`` picks it);
* ``field-flip`` -- one bit inside one field of the decoded message (bytes, an array's
  data, an integer), re-encoded: a well-formed message that lies (a survivor set with one
  party more or less, a key off by a bit);
* ``truncate`` -- the first ``param mod len`` bytes only;
* ``replay`` -- an earlier message of the same link (a replay from an earlier round), or
  of another run when there is none;
* ``other-run`` -- a message the same party sent in another run of the same size;
* ``wrong-type`` -- a message of another type (from this run or another);
* ``misaddress`` -- the message goes to another party than the one it was for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from mpc_rr.core import Codec, DecodeError, Message, WireArray
from mpc_rr.simulation._schedule import Drop, Duplicate, Mutate, Schedule

__all__ = ["Reference", "WireFaults", "mutate"]

Reference = Mapping[tuple[int, int], Sequence[bytes]]
"""Another run's payloads per link ``(src, dst)``, in send order (replays from another run)."""


def _flip(data: bytes, bit: int) -> bytes:
    if not data:
        return data
    bit %= 8 * len(data)
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def _flip_field(msg: Message, param: int) -> Message | None:
    """``msg`` with one bit flipped in one of its fields (``None``: no field to flip)."""
    fields = []
    for name in msg.__struct_fields__:
        value = getattr(msg, name)
        if (isinstance(value, bytes) and value) or (isinstance(value, WireArray) and value.data):
            fields.append(name)
        elif isinstance(value, int) and not isinstance(value, bool):
            fields.append(name)
    if not fields:
        return None
    name = fields[param % len(fields)]
    value, bit = getattr(msg, name), param // len(fields)
    if isinstance(value, WireArray):
        new: Any = msgspec.structs.replace(value, data=_flip(value.data, bit))
    elif isinstance(value, bytes):
        new = _flip(value, bit)
    else:
        new = value ^ (1 << (bit % 8))
    return msgspec.structs.replace(msg, **{name: new})


def _type_of(codec: Codec, payload: bytes, sender: int) -> type[Message] | None:
    try:
        return type(codec.decode(payload, sender=sender))
    except DecodeError:
        return None


def mutate(
    kind: str,
    param: int,
    payload: bytes,
    *,
    src: int,
    dst: int,
    codec: Codec,
    earlier: Sequence[bytes],
    sent: Sequence[bytes],
    other_run: Reference,
    parties: Sequence[int],
) -> tuple[int, bytes]:
    """``(recipient, bytes)`` of ``payload`` (from ``src`` to ``dst``) rewritten by ``kind``
    (module docstring); ``earlier``: what ``src`` sent ``dst`` before, ``sent``: everything
    ``src`` sent before, ``other_run``: another run's payloads."""
    theirs = [p for (s, _), ps in sorted(other_run.items()) if s == src for p in ps]
    if kind == "flip":
        return dst, _flip(payload, param)
    if kind == "field-flip":
        try:
            msg = codec.decode(payload, sender=src)
        except DecodeError:
            return dst, _flip(payload, param)
        lie = _flip_field(msg, param)
        return dst, _flip(payload, param) if lie is None else codec.encode(lie)
    if kind == "truncate":
        return dst, payload[: param % max(1, len(payload))]
    if kind == "replay":
        pool = list(earlier) or list(other_run.get((src, dst), ())) or theirs
        return dst, pool[param % len(pool)] if pool else payload
    if kind == "other-run":
        pool = list(other_run.get((src, dst), ())) or theirs
        return dst, pool[param % len(pool)] if pool else payload
    if kind == "wrong-type":
        mine = _type_of(codec, payload, src)
        pool = [p for p in [*sent, *theirs] if _type_of(codec, p, src) not in (mine, None)]
        return dst, pool[param % len(pool)] if pool else payload[:-1]
    if kind == "misaddress":
        others = [p for p in parties if p not in (src, dst)]
        return (others[param % len(others)] if others else dst), payload
    raise ValueError(f"unknown mutation {kind!r}")


class WireFaults:
    """A schedule's message faults, applied to each message as it is sent (module docstring).

    Counts messages per link, so the ``index`` of a fault is the position of the message on
    its link whatever order the driver runs the parties in.
    """

    def __init__(self, schedule: Schedule, codec: Codec, other_run: Reference, parties: Sequence[int]) -> None:
        self.codec = codec
        self.other_run = other_run
        self.parties = tuple(parties)
        self.drops = {(f.src, f.dst, f.index) for f in schedule.of(Drop)}
        self.dups = {(f.src, f.dst, f.index) for f in schedule.of(Duplicate)}
        byz = set(schedule.byzantine)
        self.mutations = {(f.src, f.dst, f.index): f for f in schedule.of(Mutate) if f.src in byz}
        self.history: dict[tuple[int, int], list[bytes]] = {}
        self.sent: dict[int, list[bytes]] = {}
        self.applied: list[tuple[str, int, int, int]] = []  # (what, src, dst, index)

    def send(self, src: int, dst: int, payload: bytes) -> list[tuple[int, bytes]]:
        """What reaches the wire when ``src`` sends ``payload`` to ``dst``: ``(recipient, bytes)``
        pairs (none: lost; two: duplicated)."""
        earlier = self.history.setdefault((src, dst), [])
        k = len(earlier)
        mine = self.sent.setdefault(src, [])
        key = (src, dst, k)
        out_dst, out = dst, payload
        m = self.mutations.get(key)
        if m is not None:
            out_dst, out = mutate(m.kind, m.param, payload, src=src, dst=dst, codec=self.codec,
                                  earlier=earlier, sent=mine, other_run=self.other_run,
                                  parties=self.parties)  # fmt: skip
            self.applied.append((m.kind, src, dst, k))
        earlier.append(payload)
        mine.append(payload)
        if key in self.drops:
            self.applied.append(("drop", src, dst, k))
            return []
        if key in self.dups:
            self.applied.append(("duplicate", src, dst, k))
            return [(out_dst, out), (out_dst, out)]
        return [(out_dst, out)]
