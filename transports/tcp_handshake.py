"""How a TCP connection becomes an authenticated party: TLS, hello / welcome, roster checks.

Both sides of the handshake, after the TCP connection is open:

1. TLS 1.3 with client certificates (``tls=True``, the default): the hub
   checks that the client certificate's fingerprint is in the roster and
   that its CN names the same party; the client checks the hub's
   fingerprint against the roster (an impostor hub is detected).
2. The client sends a hello control frame naming its party id; the hub
   answers ``welcome`` or ``refused`` with the reason.  Whether the claimed
   id may join (it matches the certificate, it is not connected, it has not
   left this run) is decided by the hub (:class:`~transports.tcp_hub.TcpHub`),
   which reserves the id in the same step as the check.

Control frames are JSON objects in frames addressed to
:data:`~transports.framing.CONTROL`, at most :data:`MAX_CONTROL` bytes during
the handshake.  Refusals are logged on the ``transports.tcp`` logger and
recorded in ``hub.refused`` (a :class:`RefusalLog`) and ``hub.peer_errors``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import trio

from mpc_rr.core import PeerError
from mpc_rr.core._errors import ErrorLog
from transports.errors import HandshakeDropped, TransportError
from transports.framing import (
    BROKEN,
    CONTROL,
    FrameError,
    FrameReader,
    TappedStream,
    pack_frame,
    quiet_close,
)
from transports.pki import Roster, cert_party_id, client_context, fingerprint
from transports.tap import Tap

__all__ = [
    "MAX_CONTROL",
    "Hello",
    "RefusalLog",
    "client_handshake",
    "control",
    "hub_handshake",
    "log",
    "parse_control",
    "send_control",
]

log = logging.getLogger("transports.tcp")
"""The logger of the TCP transport (refusals, evictions, malformed frames)."""

MAX_CONTROL = 4096
"""Largest control frame accepted during the handshake, in bytes."""


def control(**fields: Any) -> bytes:
    """A control frame's payload: ``fields`` as a JSON object."""
    return msgspec.json.encode(fields)


def parse_control(payload: bytes) -> dict[str, Any]:
    """The JSON object in a control payload; ``{}`` if it is not one."""
    try:
        d = msgspec.json.decode(payload)
    except msgspec.DecodeError:
        return {}
    return d if isinstance(d, dict) else {}


async def send_control(stream: trio.abc.Stream, **fields: Any) -> None:
    """Write one control frame; a broken stream is no error."""
    try:
        for piece in pack_frame(CONTROL, control(**fields)):
            await stream.send_all(piece)
    except BROKEN:
        pass


class RefusalLog:
    """``hub.refused``: one line (``str``) per refused connection, bounded.

    Backed by an :class:`~mpc_rr.core.ErrorLog` (``.log``): every refusal
    is counted (``len``), the first few per claimed party (or per unknown
    peer) are kept; iterating and indexing give the kept lines.
    """

    def __init__(self) -> None:
        self.log = ErrorLog()

    def append(self, err: PeerError) -> None:
        self.log.append(err)

    def __len__(self) -> int:
        return len(self.log)

    def __bool__(self) -> bool:
        return bool(self.log)

    def __iter__(self) -> Iterator[str]:
        return (str(e) for e in self.log)

    def __getitem__(self, i: int) -> str:
        return str(self.log[i])

    def summary(self) -> list[str]:
        return self.log.summary()


def _peer_addr(sock: trio.abc.Stream) -> str:
    try:
        host, port = sock.socket.getpeername()[:2]  # type: ignore[attr-defined]
        return f"{host}:{port}"
    except (OSError, AttributeError):
        return "?"


@dataclass(frozen=True, slots=True)
class Hello:
    """A connection whose certificate (if TLS) and hello passed :func:`hub_handshake`."""

    stream: trio.abc.Stream
    reader: FrameReader  # still bounded by MAX_CONTROL; bytes behind the hello are kept
    party: int  # the id the hello claims (a non-hub roster party)
    cert_id: int | None  # the party the certificate names (None without TLS)
    tapped: TappedStream | None  # the tap's stream, labelled dst = -1 until relabelled
    addr: str  # host:port of the peer, for messages


async def hub_handshake(
    sock: trio.abc.Stream,
    *,
    ctx: Any,
    fingerprints: Mapping[str, int],
    parties: Mapping[int, object],
    tap: Tap | None,
    hub: int,
    refuse: Callable[[str, int | None, str], None],
    verified: Callable[[], None] | None = None,
) -> Hello | None:
    """The hub's side: TLS handshake and certificate checks (``ctx`` not ``None``), then the hello.

    ``fingerprints`` maps certificate fingerprints to roster ids and
    ``parties`` holds the ids a hello may claim.  A connection that fails a
    check is reported with ``refuse(why, party or None, reason)``, closed, and
    ``None`` returned; the caller closes ``sock``.  ``verified()`` is called once the
    certificate is known to be a roster party's (the peer is no outsider).
    """
    tapped = TappedStream(sock, tap, hub, -1) if tap is not None else None
    raw: trio.abc.Stream = tapped if tapped is not None else sock
    addr = _peer_addr(sock)
    cert_id: int | None = None
    if ctx is not None:
        stream: trio.abc.Stream = trio.SSLStream(raw, ctx, server_side=True)
        try:
            await stream.do_handshake()  # type: ignore[attr-defined]
        except BROKEN as exc:
            cause = exc.__cause__ or exc
            refuse(f"{addr}: TLS handshake failed ({cause})", None, "TLS handshake failed")
            return None
        der = stream.getpeercert(binary_form=True)  # type: ignore[attr-defined]
        fp = fingerprint(der)
        roster_id = fingerprints.get(fp)
        if roster_id is None:
            refuse(f"{addr}: certificate {fp[:23]}... is not in the roster", None, "not in the roster")
            await quiet_close(stream)
            return None
        cert_id = cert_party_id(der)
        if cert_id != roster_id:
            refuse(f"{addr}: certificate CN is {cert_id}, roster says {roster_id}", None, "CN mismatch")
            await quiet_close(stream)
            return None
        if verified is not None:
            verified()
    else:
        stream = raw
    reader = FrameReader(stream, MAX_CONTROL)
    try:
        first = await reader.read()
    except (FrameError, *BROKEN) as exc:
        refuse(f"{addr}: bad hello ({exc})", cert_id, "bad hello")
        await quiet_close(stream)
        return None
    hello = parse_control(first[1]) if first is not None and first[0] == CONTROL else {}
    claimed = hello.get("hello")
    if not isinstance(claimed, int) or claimed not in parties:
        refuse(f"{addr}: hello without a valid party id ({str(hello)[:200]})", cert_id, "bad hello")
        await quiet_close(stream)
        return None
    return Hello(stream, reader, claimed, cert_id, tapped, addr)


async def client_handshake(
    raw: trio.abc.Stream, roster: Roster, party_id: int, *, tls: bool, ssl_context: Any
) -> tuple[trio.abc.Stream, FrameReader, dict[str, Any]]:
    """The client's side: TLS and the hub's fingerprint (``tls``), hello, then the welcome.

    Returns the stream (TLS over ``raw``, or ``raw``), a reader bounded by
    :data:`MAX_CONTROL` holding whatever followed the welcome, and the welcome
    (its ``run`` is the hub's nonce for this run).  Raises
    :class:`TransportError` if the hub refuses us or is not who the roster
    says; the stream is closed on any failure.
    """
    entry = roster.parties[roster.hub]
    stream = raw
    try:
        if tls:
            ctx = ssl_context if ssl_context is not None else client_context(roster, party_id)
            stream = trio.SSLStream(raw, ctx, server_side=False)
            try:
                await stream.do_handshake()  # type: ignore[attr-defined]
            except BROKEN as exc:
                raise HandshakeDropped(
                    f"party {party_id}: TLS handshake with the hub failed "
                    f"({exc.__cause__ or exc})"
                ) from None
            fp = fingerprint(stream.getpeercert(binary_form=True))  # type: ignore[attr-defined]
            if fp != entry.fingerprint:
                raise TransportError(
                    f"party {party_id}: hub certificate {fp[:23]}... does not match the roster"
                )
        for piece in pack_frame(CONTROL, control(hello=int(party_id))):
            await stream.send_all(piece)
        reader = FrameReader(stream, MAX_CONTROL)
        try:
            first = await reader.read()
        except (FrameError, *BROKEN):
            first = None
        reply = parse_control(first[1]) if first is not None and first[0] == CONTROL else {}
        if reply.get("welcome") != party_id:
            # the hub sheds handshakes under a flood (closing them without a word) and
            # marks a refusal that may pass later ("retry"): both are worth another try
            error = HandshakeDropped if "refused" not in reply or reply.get("retry") else TransportError
            raise error(
                f"party {party_id}: hub refused the connection: "
                f"{reply.get('refused', 'no welcome (connection closed)')}"
            )
    except BaseException:
        await quiet_close(stream)
        raise
    return stream, reader, reply
