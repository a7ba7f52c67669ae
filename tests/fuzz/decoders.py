"""Fuzz targets of the wire decoders: each protocol's codec, the transport's frames and control
payloads, the roster file.

``codec-<protocol>`` (every registered protocol, named from the registry): a frame decoded by
the protocol's strict codec raises only :class:`~mpc_rr.core.DecodeError`; a frame it accepts
re-encodes to a frame that decodes to the same message, and every array in it either converts
to numpy or raises ``DecodeError``.  Seeds: every message of a run and of its dropout runs.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import trio

from mpc_rr.core import Codec, DecodeError, UsageError, WireArray
from tests.fuzz._runs import Run, deliveries, runs
from tests.fuzz._targets import Fuzzed, register
from transports.framing import CONTROL, FrameError, FrameReader, pack_frame
from transports.pki import Roster
from transports.tcp_handshake import MAX_CONTROL, control, parse_control


def _arrays(obj: Any) -> Iterator[WireArray]:
    if isinstance(obj, WireArray):
        yield obj
    elif isinstance(obj, msgspec.Struct):
        for f in obj.__struct_fields__:
            yield from _arrays(getattr(obj, f))
    elif isinstance(obj, list | tuple):
        for v in obj:
            yield from _arrays(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _arrays(v)


def _codec_target(run: Run) -> Fuzzed:
    codec = Codec(run.message_types)

    def one(data: bytes) -> None:
        try:
            msg = codec.decode(data, sender=1)
        except DecodeError:
            return
        again = codec.decode(codec.encode(msg), sender=1)
        assert again == msg, f"{type(msg).__name__} does not survive a second round trip"
        for arr in _arrays(msg):
            try:
                arr.to_numpy(sender=1)
            except DecodeError:
                pass

    def seeds() -> Iterable[bytes]:
        seen: dict[bytes, None] = {}
        for roles in [run.build(), *run.faulty()]:
            seen.update(dict.fromkeys(d.data for d in deliveries(roles)))
        return seen

    return Fuzzed(one, seeds)


for _name, _run in runs().items():
    register(f"codec-{_name}", "decoders", lambda run=_run: _codec_target(run))


class _Chunks(trio.abc.ReceiveStream):
    """A stream that hands out ``data`` in pieces of at most ``size`` bytes, then ends."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.at, self.size = data, 0, max(1, size)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        n = self.size if max_bytes is None else min(self.size, max_bytes)
        piece = self.data[self.at : self.at + n]
        self.at += len(piece)
        return piece

    async def aclose(self) -> None:
        pass


def _frames_target() -> Fuzzed:
    """The first byte picks the chunk size the bytes arrive in; the rest is the stream."""

    def one(data: bytes) -> None:
        if not data:
            return
        stream = _Chunks(data[1:], 1 + data[0] * 7)

        async def read_all() -> None:
            reader = FrameReader(stream, MAX_CONTROL)
            while True:
                try:
                    frame = await reader.read()
                except FrameError:
                    return
                if frame is None:
                    return
                peer, payload = frame
                assert len(payload) <= MAX_CONTROL, f"a {len(payload)}-byte frame passed max_frame"
                if peer == CONTROL:
                    assert isinstance(parse_control(payload), dict)

        trio.run(read_all)

    def seeds() -> Iterable[bytes]:
        hello = b"".join(pack_frame(CONTROL, control(hello=3)))
        welcome = b"".join(pack_frame(CONTROL, control(welcome=True, parties=[0, 1, 2])))
        data = b"".join(pack_frame(2, b"\x81\xa4type\xa3Foo"))
        return [bytes([0]) + hello, bytes([3]) + hello + data, bytes([200]) + welcome + data + hello]

    return Fuzzed(one, seeds)


register("frames", "decoders", _frames_target)


def _roster_target() -> Fuzzed:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-roster-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    path = folder / "roster.json"

    def one(data: bytes) -> None:
        path.write_bytes(data)
        try:
            roster = Roster.load(path)
        except UsageError:
            return
        assert roster.hub in roster.parties
        assert Roster.load(roster.save(folder / "again.json")).to_json() == roster.to_json()

    def seeds() -> Iterable[bytes]:
        parties = [{"id": i, "host": "127.0.0.1", "port": 9000 + i, "fingerprint": f"sha256:{i:064x}"}
                   for i in range(3)]  # fmt: skip
        doc = {"version": 1, "hub": 0, "ca": "ca.pem", "parties": parties}
        return [json.dumps(doc).encode(), json.dumps({**doc, "hub": 2}, indent=1).encode()]

    return Fuzzed(one, seeds)


register("roster", "decoders", _roster_target)
