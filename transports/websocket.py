"""HTTP pages and WebSocket connections on trio, as one small ASGI app (hypercorn's trio worker).

The classroom's transport (``mpc-rr classroom serve``): browsers fetch a few
static pages and then speak over one WebSocket each.  Like every transport
here it moves bytes only: a :class:`WebConn` carries binary frames (the
protocol's own wire bytes, opaque here) and text frames (a lobby's control
messages, opaque here too) between one browser and a :class:`WebHandler`
that the layer above supplies.

Binary frames follow :mod:`transports.framing`'s header without its length
(the WebSocket frame has one)::

    u32 peer (big-endian) | payload

``peer`` is the destination on a browser -> server frame and the source on
a server -> browser frame (:func:`pack_ws`, :func:`unpack_ws`).

Bounds, so that a room of flaky or hostile browsers cannot grow the server
nor shut it for the others: a socket that has not identified itself
(:meth:`WebConn.identify`: the layer above accepted its hello, or checked the
teacher's key when it opened) is bounded per source address and in all
(:mod:`transports.web_admission`: a flood from one device evicts its own) and
closed after ``hello_timeout`` seconds; identified sockets are the layer
above's to bound (a class size) and never count against the unidentified;
frames larger than ``max_frame`` close the socket (hypercorn enforces
``websocket_max_message_size``), and each connection's outbound queue holds at
most ``queue`` frames -- a browser that does not read is disconnected rather
than buffered without end.
"""

from __future__ import annotations

import importlib
import itertools
import math
import struct
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from transports.base import ChannelEndpoint
from transports.web_admission import (
    DEFAULT_HELLO_TIMEOUT,
    DEFAULT_PER_ADDRESS,
    DEFAULT_UNIDENTIFIED,
    Unidentified,
)

__all__ = [
    "LocalEndpoint",
    "Page",
    "WebConn",
    "WebHandler",
    "WebServer",
    "pack_ws",
    "self_signed",
    "serve_web",
    "unpack_ws",
]

_PEER = struct.Struct(">I")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def pack_ws(peer: int, payload: bytes) -> bytes:
    """One binary WebSocket frame: the 4-byte peer id, then ``payload``."""
    return _PEER.pack(peer) + payload


def unpack_ws(frame: bytes) -> tuple[int, bytes]:
    """``(peer, payload)`` of a binary frame; ``ValueError`` when it is shorter than the header."""
    if len(frame) < _PEER.size:
        raise ValueError(f"binary frame of {len(frame)} bytes is shorter than its 4-byte peer id")
    return _PEER.unpack_from(frame)[0], frame[_PEER.size :]


@dataclass(frozen=True)
class Page:
    """A static resource: its bytes and content type."""

    body: bytes
    content_type: str = "text/html; charset=utf-8"


class WebHandler(Protocol):
    """What the layer above does with connections (every method is called from the conn's task)."""

    async def on_open(self, conn: WebConn) -> bool:
        """A socket opened on ``conn.path``; False refuses it (closed at once)."""

    async def on_text(self, conn: WebConn, text: str) -> None: ...

    async def on_bytes(self, conn: WebConn, data: bytes) -> None: ...

    async def on_close(self, conn: WebConn) -> None: ...


_ids = itertools.count(1)


@dataclass(eq=False)
class WebConn:
    """One open WebSocket: a number, the path and query it was opened on, the source address,
    a bounded outbox, and whether it has identified itself (:meth:`identify`)."""

    path: str
    query: str
    queue: int
    address: str = "?"
    number: int = field(default_factory=lambda: next(_ids))
    closed: bool = False
    close_reason: str = ""
    identified: bool = False
    _out: trio.MemorySendChannel[dict[str, Any]] = field(init=False, repr=False)
    _in: trio.MemoryReceiveChannel[dict[str, Any]] = field(init=False, repr=False)
    _on_identify: Callable[[WebConn], None] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._out, self._in = trio.open_memory_channel(self.queue)

    def identify(self) -> None:
        """The layer above knows who this is (a student's accepted hello, the teacher's key):
        it no longer counts against the unidentified sockets, and its hello deadline is off."""
        if not self.identified:
            self.identified = True
            if self._on_identify is not None:
                self._on_identify(self)

    def _put(self, event: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self._out.send_nowait(event)
        except trio.WouldBlock:  # a browser that does not read: drop it, do not buffer
            self.close(1008, f"outbox full ({self.queue} frames unread)")
        except trio.ClosedResourceError:
            self.closed = True

    def send_bytes(self, data: bytes) -> None:
        """Queue one binary frame (never blocks; see the module's bounds)."""
        self._put({"type": "websocket.send", "bytes": data})

    def send_text(self, text: str) -> None:
        """Queue one text frame."""
        self._put({"type": "websocket.send", "text": text})

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close after the frames already queued (idempotent)."""
        if self.closed:
            return
        self.close_reason = reason
        try:
            self._out.send_nowait({"type": "websocket.close", "code": code, "reason": reason[:120]})
        except (trio.WouldBlock, trio.ClosedResourceError):
            pass
        self.closed = True
        self._out.close()


class WebServer:
    """The ASGI app: GET of a known path serves its :class:`Page`, a WebSocket goes to ``handler``.

    ``max_unidentified`` / ``per_address``: bounds on the sockets that have not identified
    themselves (:mod:`transports.web_admission`); ``hello_timeout``: seconds such a socket
    may stay open.  ``open_conns`` counts every open socket, ``refused`` those refused or
    closed by these bounds.
    """

    def __init__(
        self, pages: Mapping[str, Page], handler: WebHandler, *, max_unidentified: int = DEFAULT_UNIDENTIFIED,
        per_address: int = DEFAULT_PER_ADDRESS, hello_timeout: float = DEFAULT_HELLO_TIMEOUT, queue: int = 512,
    ) -> None:  # fmt: skip
        self.pages = dict(pages)
        self.handler = handler
        self.unidentified = Unidentified(max_unidentified, per_address)
        self.hello_timeout = float(hello_timeout)
        self.queue = int(queue)
        self.open_conns = 0
        self.refused = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        elif kind == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})

    async def _http(self, scope: Scope, send: Send) -> None:
        page = self.pages.get(scope["path"]) if scope["method"] in ("GET", "HEAD") else None
        status, body, ctype = (200, page.body, page.content_type) if page else (404, b"not found\n", "text/plain")
        headers = [(b"content-type", ctype.encode()), (b"content-length", str(len(body)).encode()),
                   (b"cache-control", b"no-store")]  # fmt: skip
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body if scope["method"] == "GET" else b""})

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        client = scope.get("client") or ("?",)
        conn = WebConn(scope["path"], scope.get("query_string", b"").decode("latin-1"), self.queue,
                       address=str(client[0]))  # fmt: skip
        conn._on_identify = self.unidentified.release
        self.open_conns += 1
        try:
            # the handler identifies the teacher here, before any bound applies to it
            if not await self.handler.on_open(conn):
                await send({"type": "websocket.close", "code": 1008})
                return
            if not conn.identified and not self.unidentified.admit(conn):
                self.refused += 1
                await send({"type": "websocket.close", "code": 1013})
                return
            await send({"type": "websocket.accept"})
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._writer, conn, send, nursery.cancel_scope)
                if not conn.identified:
                    nursery.start_soon(self._hello_deadline, conn, nursery.cancel_scope)
                await self._reader(conn, receive)
                conn.close()
        finally:
            self.open_conns -= 1
            self.unidentified.release(conn)
            if conn.close_reason.startswith(("per-address limit", "unidentified limit", "no hello")):
                self.refused += 1
            conn.closed = True
            await self.handler.on_close(conn)

    async def _hello_deadline(self, conn: WebConn, scope: trio.CancelScope) -> None:
        """Close ``conn`` if it has not identified itself within ``hello_timeout`` seconds."""
        await trio.sleep(self.hello_timeout)
        if not conn.identified:
            self.unidentified.closed["no hello"] += 1
            conn.close(1008, f"no hello within {self.hello_timeout:g} s")
            await trio.sleep(1.0)  # time to send the close frame; then drop it regardless
            scope.cancel()

    async def _reader(self, conn: WebConn, receive: Receive) -> None:
        while not conn.closed:
            event = await receive()
            if event["type"] == "websocket.disconnect":
                conn.close_reason = conn.close_reason or f"socket closed (code {event.get('code')})"
                return
            if event.get("bytes") is not None:
                await self.handler.on_bytes(conn, event["bytes"])
            elif event.get("text") is not None:
                await self.handler.on_text(conn, event["text"])

    async def _writer(self, conn: WebConn, send: Send, scope: trio.CancelScope) -> None:
        try:
            async for event in conn._in:
                await send(event)
                if event["type"] == "websocket.close":
                    break
        except Exception:  # the socket went away under us: the reader sees the disconnect
            pass
        scope.cancel()


def self_signed(hosts: Iterable[str], folder: str) -> tuple[str, str, str]:
    """A fresh self-signed ECDSA P-256 certificate for ``hosts`` (IP addresses or names),
    valid 2 days, written to ``folder``: ``(certfile, keyfile, SHA-256 fingerprint)``.

    For ``--https``: browsers expose WebCrypto only in a secure context, which
    ``http://`` on a LAN address is not; students accept the certificate once
    (the teacher can read its fingerprint to them).
    """
    import datetime
    import hashlib
    import ipaddress
    import os

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    names: list[x509.GeneralName] = []
    for h in dict.fromkeys(hosts):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mpc-rr classroom")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    certfile, keyfile = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
    with open(certfile, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    fd = os.open(keyfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))  # fmt: skip
    digest = hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest()
    return certfile, keyfile, ":".join(digest[i : i + 2] for i in range(0, 16, 2))


def _decline_deflate() -> None:
    """Serve WebSocket frames uncompressed: hypercorn accepts permessage-deflate whenever the
    browser offers it (every browser does) and has no setting to refuse it, but the frames here
    are ciphertexts, keys and signatures, which do not compress -- deflating each one in both
    directions only costs CPU (a tenth of the server's in a class of 200).  Its handshake is
    given an extension that declines every offer."""
    from wsproto.extensions import PerMessageDeflate

    ws_stream = importlib.import_module("hypercorn.protocol.ws_stream")

    class _Declined(PerMessageDeflate):
        def accept(self, offer: str) -> None:
            return None

    ws_stream.PerMessageDeflate = _Declined  # type: ignore[attr-defined]


async def serve_web(
    app: WebServer, host: str, port: int, *, max_frame: int = 1 << 16,
    tls: tuple[str, str] | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:  # fmt: skip
    """Serve ``app`` on ``host:port`` until cancelled; ``task_status`` gets the bound port
    (``port=0`` picks a free one).  ``tls``: ``(certfile, keyfile)`` for HTTPS/WSS."""
    from functools import partial

    from mpc_rr.core import require_extra

    Config = require_extra("hypercorn.config", "classroom", needed_for="serve_web").Config
    serve = require_extra("hypercorn.trio", "classroom", needed_for="serve_web").serve

    _decline_deflate()
    config = Config()
    config.bind = [f"{host}:{port}"]
    config.websocket_max_message_size = int(max_frame)
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.5
    if tls is not None:
        config.certfile, config.keyfile = tls
    async with trio.open_nursery() as nursery:
        binds = await nursery.start(partial(serve, app, config, mode="asgi"))
        task_status.started(int(str(binds[0]).rsplit(":", 1)[1]))


class LocalEndpoint(ChannelEndpoint):
    """A party that runs on the server (an aggregator, a simulated student): its inbox is a
    channel, its sends go to ``route(src, dst, payload)`` (the room's relay)."""

    def __init__(
        self, party_id: int, peers: Iterable[int], route: Callable[[int, int, bytes], None]
    ) -> None:
        send, recv = trio.open_memory_channel[tuple[int, bytes]](math.inf)
        super().__init__(party_id, peers, recv)
        self._inbox = send
        self._route = route

    def deliver(self, src: int, payload: bytes) -> None:
        """Hand ``payload`` from ``src`` to this party (dropped once it is closed)."""
        try:
            self._inbox.send_nowait((src, payload))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            self.dropped += 1

    async def send(self, dst: int, payload: bytes) -> None:
        payload = self._send_preamble(dst, payload, dst in self.peers)
        self._route(self.party_id, dst, payload)
        await trio.lowlevel.checkpoint()

    def close(self) -> None:
        super().close()
        self._inbox.close()
