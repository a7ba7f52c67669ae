"""The client endpoint of the TCP transport: one connection to the hub, and how it is opened.

A non-hub party sends every payload to the hub as a frame addressed to its
destination and reads the frames the hub relays to it (``u32 length | u32
peer | payload``, :mod:`transports.framing`).  :func:`connect_client` opens
the connection and runs the client's side of the handshake
(:func:`~transports.tcp_handshake.client_handshake`: TLS, the hub's
fingerprint, hello / welcome).  A send cancelled part-way may leave half a
frame on the wire: the endpoint then closes itself.  Control frames from the
hub (the start signal of :meth:`~transports.tcp_hub.TcpHub.start_all`) are
handled here; payloads that overtake the start signal are kept; the hub's notice
that it cut a party off for its budget (``{"cut": pid, "why": ...}``) is kept in
``cut_off`` / ``gone`` (:mod:`transports.budgets`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

import trio

from mpc_rr.core import PeerError, UsageError
from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from transports.base import Endpoint
from transports.errors import EndpointClosed
from transports.framing import (
    BROKEN,
    CONTROL,
    FrameError,
    FrameReader,
    TappedStream,
    pack_frame,
    quiet_close,
    tap_place,
)
from transports.pki import Roster
from transports.tap import Tap
from transports.tcp_handshake import client_handshake, control, parse_control

__all__ = ["TcpClient", "connect_client"]


class TcpClient(Endpoint):
    """A non-hub party's endpoint: one connection to the hub; create with :func:`connect_client`."""

    def __init__(
        self,
        roster: Roster,
        party_id: int,
        stream: trio.abc.Stream,
        reader: FrameReader,
    ) -> None:
        self._init_endpoint(party_id, roster.ids)
        self.roster = roster
        self._stream = stream
        self._reader = reader
        self._send_lock = trio.StrictFIFOLock()
        self._pending: deque[tuple[int, bytes]] = deque()
        #: the hub's nonce for this run (from its welcome; ``""`` if it sent none):
        #: deployments put it in every message's run label (see ``TcpHub.run_nonce``)
        self.run_nonce = ""
        #: parties the hub cut off for their budget, and why (its notices)
        self.cut_off: dict[int, str] = {}
        self.gone: set[int] = set()

    async def send(self, dst: int, payload: bytes) -> None:
        """Send ``payload`` to ``dst`` through the hub (blocks under back-pressure).

        Raises :class:`EndpointClosed` if the endpoint is closed or the
        connection is lost, :class:`UnknownDestination` for an id not in the
        roster.  A send cancelled part-way may have written part of a frame,
        after which the stream cannot be resynchronised: the endpoint is then
        closed, and later calls raise :class:`EndpointClosed`.
        """
        payload = self._send_preamble(dst, payload, dst in self.peers)
        async with self._send_lock:
            if self._closed:  # closed while this call waited for the lock
                raise self._closed_for_send()
            written = False
            try:
                for piece in pack_frame(dst, payload):
                    await self._stream.send_all(piece)
                written = True
            except BROKEN:
                raise EndpointClosed(
                    f"party {self.party_id}: "
                    + ("endpoint closed" if self._closed else "connection to the hub lost")
                ) from None
            finally:
                if not written and not self._closed:
                    self._closed = True
                    await quiet_close(self._stream)

    async def _next_frame(self) -> tuple[int, bytes]:
        """Next frame from the hub, translating stream errors into EndpointClosed."""
        hub = self.roster.hub
        if self._closed:
            raise EndpointClosed(f"party {self.party_id}: endpoint closed")
        try:
            frame = await self._reader.read()
        except FrameError as exc:
            self.peer_errors.append(
                PeerError(f"party {self.party_id}: hub sent a malformed frame ({exc})", hub)
            )
            await self.aclose()
            raise EndpointClosed(
                f"party {self.party_id}: connection dropped after a malformed frame"
            ) from None
        except BROKEN:
            raise EndpointClosed(
                f"party {self.party_id}: "
                + ("endpoint closed" if self._closed else "connection to the hub lost")
            ) from None
        if frame is None:
            self._closed = True
            raise EndpointClosed(f"party {self.party_id}: the hub closed the connection")
        return frame

    def _control(self, payload: bytes) -> dict[str, Any]:
        """A control frame from the hub; a cut-off notice is recorded here."""
        fields = parse_control(payload)
        pid, why = fields.get("cut"), fields.get("why")
        if isinstance(pid, int) and not isinstance(pid, bool) and pid in self.peers and pid != self.party_id:
            self.cut_off.setdefault(pid, str(why)[:500])
            self.gone.add(pid)
        return fields

    async def refuse(self, peer: int, why: str) -> None:
        """Ask the hub to relay nothing more from ``peer`` (found over its error budget)."""
        if peer == self.roster.hub or peer not in self.peers or self._closed:
            await trio.lowlevel.checkpoint()
            return
        async with self._send_lock:
            if self._closed:
                return
            try:
                for piece in pack_frame(CONTROL, control(refuse=int(peer))):
                    await self._stream.send_all(piece)
            except BROKEN:
                pass

    async def receive(self) -> tuple[int, bytes]:
        if self._pending:
            return self._pending.popleft()
        while True:
            src, payload = await self._next_frame()
            if src == CONTROL:
                self._control(payload)
                continue
            if src not in self.peers:
                self.peer_errors.append(
                    PeerError(
                        f"party {self.party_id}: hub relayed a frame from unknown {src}",
                        self.roster.hub,
                    )
                )
                continue
            return src, payload

    async def wait_start(self) -> None:
        """Wait for the hub's start signal (see :meth:`TcpHub.start_all`).

        Payloads arriving before it are kept for :meth:`receive`.
        """
        while True:
            src, payload = await self._next_frame()
            if src == CONTROL:
                if self._control(payload).get("go") is True:
                    return
            elif src in self.peers:
                self._pending.append((src, payload))

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await quiet_close(self._stream)
        await trio.lowlevel.checkpoint()



async def connect_client(
    roster: Roster,
    party_id: int,
    *,
    host: str | None = None,
    port: int | None = None,
    tls: bool = True,
    max_frame: int = DEFAULT_MAX_FRAME,
    tap: Tap | None = None,
    handshake_timeout: float = 10.0,
    ssl_context: Any = None,
) -> TcpClient:
    """Connect party ``party_id`` to the hub and authenticate; return its endpoint.

    Raises :class:`TransportError` if the hub refuses us or is not who the
    roster says -- :class:`HandshakeDropped` if it closed the connection without a
    reason or says the refusal may pass (worth retrying); ``trio.TooSlowError`` if
    there is no welcome within ``handshake_timeout`` seconds; :class:`UsageError`
    for a party id not in the roster.
    """
    if party_id not in roster.parties or party_id == roster.hub:
        raise UsageError(f"connect_client: party_id {party_id!r} is not a non-hub roster party")
    entry = roster.parties[roster.hub]
    if tap is not None:
        tap.attach(tap_place(tls))
    with trio.fail_after(handshake_timeout):  # the stream is closed if this fails
        # inside the deadline: a hub whose accept queue overflows drops our SYN, and the
        # kernel's own retries back off for minutes
        sock = await trio.open_tcp_stream(
            entry.host if host is None else host, entry.port if port is None else port
        )
        raw: trio.abc.Stream = sock if tap is None else TappedStream(sock, tap, party_id, roster.hub)
        stream, reader, welcome = await client_handshake(
            raw, roster, party_id, tls=tls, ssl_context=ssl_context
        )
    # keep what the hello reader already buffered: frames may follow the welcome at once
    client = TcpClient(roster, party_id, stream, reader.with_max_frame(max_frame))
    nonce = welcome.get("run")
    client.run_nonce = nonce if isinstance(nonce, str) and nonce.isalnum() and len(nonce) <= 64 else ""
    return client
