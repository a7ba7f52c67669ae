"""TCP transport through a hub, mutually authenticated with TLS 1.3 by default.

Topology: party 0 (the hub / coordinator) listens; every other party opens
exactly one connection to it.  A frame from party ``i`` addressed to ``j``
is relayed by the hub, so ``n`` parties need ``n - 1`` connections instead of
a full mesh of ``n (n - 1) / 2`` (MPyC's full mesh runs out of ports near 180
parties).  The hub is also a party: frames addressed to 0 are delivered to its
own :meth:`TcpHub.receive`.  Relaying preserves per-link order (one reader per
connection, one writer per destination).

Authentication (``tls=True``, the default): the TLS handshake verifies the
peer certificate against the deployment CA (:mod:`transports.pki`); then the
client sends a hello naming its party id and the hub checks that the
certificate's fingerprint is in the roster *for that id* and that the
certificate's CN says the same id.  Anything else is refused, logged on the
``transports.tcp`` logger and recorded in ``hub.peer_errors`` / ``hub.refused``.
The client checks the hub's certificate fingerprint against the roster.
``tls=False`` (explicit, for classroom traces) trusts the hello.

Memory and misbehaving parties: the hub's queues (one outbox per destination
and its own inbox, :class:`~transports.queues.ByteQueue`) are bounded in
bytes (``queue_bytes``) and frames (``buffer``).  A party sending to a full
queue is throttled: the hub stops reading its connection, so TCP
back-pressure reaches it.  A connected destination that accepts nothing for
``stall_timeout`` seconds while a sender waits for room is named in
``hub.peer_errors`` and disconnected, so one party that stops reading cannot
hold the hub's memory or stall everyone who talks to it.  Error records are
bounded (:class:`~mpc_rr.core.ErrorLog`).

Taps sit beneath TLS (a :class:`~transports.framing.TappedStream` wraps the
raw socket stream), so they record ciphertext; hops are labelled
``(i, 0)`` / ``(0, i)``; hub-side bytes sent before the peer is
authenticated are labelled with ``dst = -1``.
"""

from __future__ import annotations

import logging
import math
import operator
import socket
from collections import deque
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import trio

from mpc_rr.core import DEFAULT_MAX_FRAME, ErrorLog, PeerError, UsageError
from transports.base import Endpoint
from transports.errors import EndpointClosed, TransportError, UnknownDestination
from transports.framing import CONTROL, FrameError, FrameReader, TappedStream, pack_frame
from transports.memory import DEFAULT_BUFFER
from transports.pki import Roster, cert_party_id, client_context, fingerprint, server_context
from transports.queues import ByteQueue, QueueStalled
from transports.tap import Tap

__all__ = [
    "DEFAULT_QUEUE_BYTES",
    "DEFAULT_STALL_TIMEOUT",
    "RefusalLog",
    "TcpClient",
    "TcpHub",
    "connect_client",
    "open_hub",
]

log = logging.getLogger("transports.tcp")

DEFAULT_QUEUE_BYTES = 32 << 20
"""Default bound of each hub queue (per destination, and the hub's inbox), in bytes."""
DEFAULT_STALL_TIMEOUT = 60.0
"""Default seconds a connected destination may accept nothing while a sender waits for room."""

_MAX_CONTROL = 4096
_BATCH = 1 << 16  # coalesce queued small frames up to this many bytes per write
_CHUNK = 1 << 20  # write big payloads in pieces this size (progress marks, bounded TLS buffers)
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError)


def _control(**fields: Any) -> bytes:
    return msgspec.json.encode(fields)


def _parse_control(payload: bytes) -> dict[str, Any]:
    try:
        d = msgspec.json.decode(payload)
    except msgspec.DecodeError:
        return {}
    return d if isinstance(d, dict) else {}


async def _quiet_close(stream: trio.abc.AsyncResource) -> None:
    with trio.move_on_after(1) as scope:
        scope.shield = True
        try:
            await stream.aclose()
        except (*_BROKEN, OSError):
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


def _count(name: str, value: object) -> int:
    """``value`` as an int >= 1, else UsageError naming ``name``."""
    try:
        n = operator.index(value)  # type: ignore[call-overload]
    except TypeError:
        n = 0
    if isinstance(value, bool) or n < 1:
        raise UsageError(f"open_hub: {name} must be an int >= 1, got {value!r}")
    return n


def _stall(value: float | None) -> float | None:
    if value is None:
        return None
    try:
        t = float(value)
    except (TypeError, ValueError):
        t = math.nan
    if not (math.isfinite(t) and t > 0):
        raise UsageError(
            f"open_hub: stall_timeout must be None or finite seconds > 0, got {value!r}"
        )
    return t


class TcpHub(Endpoint):
    """The hub's endpoint (party ``roster.hub``); create with :func:`open_hub`.

    Attributes
    ----------
    port:
        The port actually listened on (useful with port 0).
    connected:
        Party ids currently connected and authenticated (an id is reserved
        here, atomically, the moment its hello is accepted).
    refused:
        One line per refused connection (also logged); a :class:`RefusalLog`.
    handshakes:
        Number of authenticated connections so far.
    peer_errors:
        :class:`~mpc_rr.core.ErrorLog` of what parties did wrong (refusals,
        malformed or truncated frames, frames for unknown parties, a
        destination that stopped reading).
    """

    def __init__(
        self,
        roster: Roster,
        *,
        tls: bool = True,
        max_frame: int = DEFAULT_MAX_FRAME,
        buffer: int = DEFAULT_BUFFER,
        queue_bytes: int = DEFAULT_QUEUE_BYTES,
        stall_timeout: float | None = DEFAULT_STALL_TIMEOUT,
        tap: Tap | None = None,
        handshake_timeout: float = 10.0,
    ) -> None:
        buffer = _count("buffer (frames per queue)", buffer)
        self.queue_bytes = _count("queue_bytes (bytes per queue)", queue_bytes)
        self.stall_timeout = _stall(stall_timeout)
        self._init_endpoint(roster.hub, roster.ids)
        self.roster = roster
        self.tls = bool(tls)
        self.max_frame = int(max_frame)
        self.tap = tap
        if tap is not None:
            tap.attach(_tap_place(self.tls))
        self.handshake_timeout = float(handshake_timeout)
        self._ctx = server_context(roster) if self.tls else None
        self._fingerprints = roster.by_fingerprint()
        self._inbox = ByteQueue(self.queue_bytes, buffer)
        self._out: dict[int, ByteQueue] = {
            pid: ByteQueue(self.queue_bytes, buffer) for pid in roster.ids - {roster.hub}
        }
        self._conns: dict[int, trio.CancelScope] = {}
        self.connected: set[int] = set()
        self._ever: set[int] = set()
        self.refused = RefusalLog()
        self.handshakes = 0
        self._changed = trio.Event()
        self._serving = trio.CancelScope()
        self._closed = False
        self.port = 0

    @property
    def queued_bytes(self) -> int:
        """Bytes held in the hub's queues now (payloads plus a per-frame overhead)."""
        return self._inbox.nbytes + sum(q.nbytes for q in self._out.values())

    # -- Endpoint interface --------------------------------------------------

    async def send(self, dst: int, payload: bytes) -> None:
        """Queue ``payload`` for party ``dst`` (blocks while its outbox is full).

        Raises :class:`EndpointClosed` after close and :class:`UnknownDestination`
        for an id not in the roster.  A payload for a party that left (or was
        disconnected for not reading) is dropped and counted in ``dropped``.
        """
        if self._closed:
            raise EndpointClosed(f"hub {self.party_id}: send on a closed endpoint")
        if type(payload) is not bytes:
            payload = bytes(payload)
        if dst == self.party_id:
            try:
                await self._inbox.put((self.party_id, payload))
            except trio.BrokenResourceError:
                raise EndpointClosed(f"hub {self.party_id}: endpoint closed") from None
            return
        if dst not in self._out:
            raise UnknownDestination(
                f"hub {self.party_id}: unknown destination {dst!r} (not in the roster)"
            )
        await self._relay(self.party_id, dst, payload)

    async def receive(self) -> tuple[int, bytes]:
        """The next ``(src, payload)`` for the hub; raises :class:`EndpointClosed` once closed."""
        try:
            return await self._inbox.get()
        except trio.ClosedResourceError:
            raise EndpointClosed(f"hub {self.party_id}: endpoint closed") from None

    def close(self) -> None:
        """Stop serving: close every connection and queue (synchronous, idempotent)."""
        if not self._closed:
            self._closed = True
            self._inbox.close()
            for q in self._out.values():
                q.close()
            self._serving.cancel()
            self._notify()

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()

    # -- waiting helpers -----------------------------------------------------

    def _notify(self) -> None:
        ev, self._changed = self._changed, trio.Event()
        ev.set()

    async def _wait(self, pred: Any, timeout: float | None, what: Any) -> None:
        """Wait until ``pred()``; on timeout raise TransportError naming ``what()`` *then*."""
        with trio.move_on_after(math.inf if timeout is None else timeout):
            while not pred():
                await self._changed.wait()
            return
        raise TransportError(f"hub: timed out after {timeout} s waiting for {what()}")

    async def wait_connected(
        self, parties: Iterable[int] | None = None, timeout: float | None = None
    ) -> None:
        """Wait until all ``parties`` (default: every non-hub party) have connected.

        Raises :class:`TransportError` on timeout, naming the parties still missing then.
        """
        want = set(self._out) if parties is None else {int(p) for p in parties}
        await self._wait(
            lambda: want <= self._ever,
            timeout,
            lambda: f"parties {_ids(want - self._ever)} to connect",
        )

    async def wait_disconnected(self, timeout: float | None = None) -> None:
        """Wait until every party that connected has disconnected again.

        Raises :class:`TransportError` on timeout, naming the parties still connected then.
        """
        await self._wait(
            lambda: not self.connected,
            timeout,
            lambda: f"parties {_ids(self.connected)} to leave",
        )

    async def start_all(self, timeout: float | None = None) -> None:
        """Start barrier: wait until every roster party is connected, then signal each.

        Parties started by hand on several hosts come up at different times;
        clients that call :meth:`TcpClient.wait_start` begin their protocol
        (and their step timeouts) only once everybody is there.  Raises
        :class:`TransportError` on timeout (see :meth:`wait_connected`).
        """
        await self.wait_connected(timeout=timeout)
        go = _control(go=True)
        for pid in sorted(self._out):
            await self._relay(CONTROL, pid, go)

    # -- relaying --------------------------------------------------------------

    async def _relay(self, src: int, dst: int, payload: bytes) -> None:
        """Queue one frame for ``dst``; throttles the caller while the outbox is full."""
        q = self._out[dst]
        try:
            await q.put((src, payload), self.stall_timeout)
        except trio.BrokenResourceError:
            self.dropped += 1  # that party has left (or was disconnected)
        except QueueStalled as exc:
            self._evict(dst, f"{exc}; limit {q.max_bytes} bytes")
            self.dropped += 1

    def _evict(self, pid: int, why: str) -> None:
        """Disconnect ``pid``, which stopped reading while others wait to send to it."""
        scope = self._conns.get(pid)
        if scope is None or scope.cancel_called:
            return  # already gone or being evicted
        err = PeerError(f"hub: party {pid} stopped reading ({why}); disconnected it", pid)
        self.peer_errors.append(err)
        log.warning("%s", err)
        self._out[pid].close()
        scope.cancel()

    # -- connection handling -------------------------------------------------

    async def _serve(
        self,
        listeners: list[trio.SocketListener],
        *,
        task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """Accept and serve connections until :meth:`close` (started by :func:`open_hub`)."""
        self.port = listeners[0].socket.getsockname()[1]
        with self._serving:
            await trio.serve_listeners(self._handle, listeners, task_status=task_status)

    def _refuse(self, why: str, peer: int | None) -> None:
        err = PeerError(f"hub refused a connection: {why}", peer)
        self.refused.append(PeerError(why, peer))
        self.peer_errors.append(err)
        log.warning("%s", err)
        self._notify()

    async def _authenticate(
        self, sock: trio.SocketStream
    ) -> tuple[trio.abc.Stream, FrameReader, int, TappedStream | None] | None:
        """TLS handshake, roster and hello checks; on success the party id is reserved."""
        tapped = TappedStream(sock, self.tap, self.party_id, -1) if self.tap is not None else None
        raw: trio.abc.Stream = tapped if tapped is not None else sock
        addr = _peer_addr(sock)
        cert_id: int | None = None
        if self._ctx is not None:
            stream: trio.abc.Stream = trio.SSLStream(raw, self._ctx, server_side=True)
            try:
                await stream.do_handshake()  # type: ignore[attr-defined]
            except _BROKEN as exc:
                cause = exc.__cause__ or exc
                self._refuse(f"{addr}: TLS handshake failed ({cause})", None)
                return None
            der = stream.getpeercert(binary_form=True)  # type: ignore[attr-defined]
            fp = fingerprint(der)
            roster_id = self._fingerprints.get(fp)
            if roster_id is None:
                self._refuse(f"{addr}: certificate {fp[:23]}... is not in the roster", None)
                await _quiet_close(stream)
                return None
            cert_id = cert_party_id(der)
            if cert_id != roster_id:
                self._refuse(f"{addr}: certificate CN is {cert_id}, roster says {roster_id}", None)
                await _quiet_close(stream)
                return None
        else:
            stream = raw
        reader = FrameReader(stream, _MAX_CONTROL)
        try:
            first = await reader.read()
        except (FrameError, *_BROKEN) as exc:
            self._refuse(f"{addr}: bad hello ({exc})", cert_id)
            await _quiet_close(stream)
            return None
        hello = _parse_control(first[1]) if first is not None and first[0] == CONTROL else {}
        claimed = hello.get("hello")
        if not isinstance(claimed, int) or claimed not in self._out:
            self._refuse(f"{addr}: hello without a valid party id ({hello!r})", cert_id)
            await _quiet_close(stream)
            return None
        why = None
        if cert_id is not None and claimed != cert_id:
            why = f"{addr}: claims party {claimed} but its certificate is party {cert_id}"
            who = cert_id
        elif claimed in self.connected:
            why, who = f"{addr}: party {claimed} is already connected", claimed
        elif claimed in self._ever or self._closed:
            why = f"{addr}: party {claimed} already left this run (reconnecting is not supported)"
            who = claimed
        if why is not None:
            self._refuse(why, who)
            await _send_control(stream, refused=why)
            await _quiet_close(stream)
            return None
        # Reserve the identity in the same step as the check above (no await in
        # between), so two simultaneous hellos for one id cannot both pass.
        self.connected.add(claimed)
        self._ever.add(claimed)
        self.handshakes += 1
        return stream, reader.with_max_frame(self.max_frame), claimed, tapped

    async def _handle(self, sock: trio.SocketStream) -> None:
        auth = None
        with trio.move_on_after(self.handshake_timeout):
            auth = await self._authenticate(sock)
        if auth is None:
            await _quiet_close(sock)
            return
        stream, reader, pid, tapped = auth  # pid is reserved: release it in `finally`
        try:
            with trio.CancelScope() as scope:
                self._conns[pid] = scope
                if tapped is not None:
                    tapped.relabel(pid)
                self._notify()
                with trio.move_on_after(self.handshake_timeout):
                    await _send_control(stream, welcome=pid)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, stream, pid, nursery.cancel_scope)
                    await self._reader(reader, pid)
                    nursery.cancel_scope.cancel()
        finally:
            self._conns.pop(pid, None)
            self.connected.discard(pid)
            self._out[pid].close()  # later frames for pid are dropped
            self._notify()
            await _quiet_close(stream)

    async def _reader(self, reader: FrameReader, pid: int) -> None:
        hub = self.party_id
        while True:
            try:
                frame = await reader.read()
            except FrameError as exc:
                err = PeerError(
                    f"hub: party {pid} sent a malformed frame ({exc}); connection dropped", pid
                )
                self.peer_errors.append(err)
                log.warning("%s", err)
                return
            except _BROKEN:
                return
            if frame is None:
                return
            dst, payload = frame
            if dst == hub:
                try:
                    await self._inbox.put((pid, payload))
                except trio.BrokenResourceError:
                    self.dropped += 1
            elif dst in self._out:
                await self._relay(pid, dst, payload)
            elif dst != CONTROL:
                self.peer_errors.append(
                    PeerError(f"hub: party {pid} sent a frame to unknown party {dst}", pid)
                )

    async def _writer(self, stream: trio.abc.Stream, pid: int, scope: trio.CancelScope) -> None:
        """Write ``pid``'s outbox to its connection, coalescing queued small frames.

        Frames already waiting are joined into one ``send_all`` (up to
        :data:`_BATCH` bytes): fewer TLS records and system calls when the hub
        relays many small messages to one party; order is unchanged.  Big
        payloads go out in :data:`_CHUNK` pieces, each one marking progress
        for the stall detection of the outbox.
        """
        out = self._out[pid]
        out.attach()
        try:
            while True:
                src, payload = await out.get()
                pieces = pack_frame(src, payload)
                if len(pieces) == 1:
                    small, size, big = pieces, len(pieces[0]), None
                    while size < _BATCH:
                        try:
                            src, payload = out.get_nowait()
                        except trio.WouldBlock:
                            break
                        more = pack_frame(src, payload)
                        if len(more) > 1:  # a big frame: write it after the small ones
                            big = more
                            break
                        small.append(more[0])
                        size += len(more[0])
                    await stream.send_all(small[0] if len(small) == 1 else b"".join(small))
                    out.progress()
                    pieces = big or []
                for piece in pieces:
                    view = memoryview(piece)
                    for at in range(0, len(view), _CHUNK):
                        await stream.send_all(view[at : at + _CHUNK])
                        out.progress()
        except _BROKEN:
            pass
        scope.cancel()


def _tap_place(tls: bool) -> str:
    return f"tcp wire {'beneath TLS' if tls else 'plaintext'} (hops i -> hub, hub -> j)"


def _ids(ids: Iterable[int], limit: int = 10) -> str:
    """``[1, 2, 3]``, or the first ``limit`` ids and how many there are in all."""
    s = sorted(ids)
    if len(s) <= limit:
        return str(s)
    return f"{str(s[:limit])[:-1]}, ...] ({len(s)} in all)"


def _peer_addr(sock: trio.SocketStream) -> str:
    try:
        host, port = sock.socket.getpeername()[:2]
        return f"{host}:{port}"
    except OSError:
        return "?"


async def _send_control(stream: trio.abc.Stream, **fields: Any) -> None:
    try:
        for piece in pack_frame(CONTROL, _control(**fields)):
            await stream.send_all(piece)
    except _BROKEN:
        pass


@asynccontextmanager
async def open_hub(
    roster: Roster,
    *,
    host: str | None = None,
    port: int | None = None,
    tls: bool = True,
    max_frame: int = DEFAULT_MAX_FRAME,
    buffer: int = DEFAULT_BUFFER,
    queue_bytes: int = DEFAULT_QUEUE_BYTES,
    stall_timeout: float | None = DEFAULT_STALL_TIMEOUT,
    tap: Tap | None = None,
    handshake_timeout: float = 10.0,
    sock: socket.socket | None = None,
) -> AsyncIterator[TcpHub]:
    """Listen as the hub; ``host``/``port`` default to the roster entry (port 0 = any).

    ``sock``: an already bound and listening TCP socket to serve instead (e.g.
    inherited from a parent that started every party at once; ``host`` and
    ``port`` are then ignored).  The hub takes ownership and closes it.

    ``buffer`` (frames) and ``queue_bytes`` (bytes) bound each of the hub's
    queues -- one per destination and its own inbox; an empty queue always
    admits one frame.  ``stall_timeout`` (seconds, ``None`` = never): a
    connected party that accepts nothing for that long while a sender waits
    to queue a frame for it is recorded in ``hub.peer_errors`` and
    disconnected.

    Leaving the block closes the hub and every connection.  An exception
    raised in the block propagates unchanged (with its cause).  Raises
    :class:`UsageError` for invalid parameters and ``OSError`` if the
    address cannot be listened on.
    """
    entry = roster.parties[roster.hub]
    hub = TcpHub(
        roster,
        tls=tls,
        max_frame=max_frame,
        buffer=buffer,
        queue_bytes=queue_bytes,
        stall_timeout=stall_timeout,
        tap=tap,
        handshake_timeout=handshake_timeout,
    )
    if sock is not None:
        listeners = [trio.SocketListener(trio.socket.from_stdlib_socket(sock))]
    else:
        listeners = await trio.open_tcp_listeners(
            entry.port if port is None else port, host=entry.host if host is None else host
        )
    # The body's exception is kept out of the nursery: a strict nursery would
    # wrap it in an ExceptionGroup, and awaiting inside the cancelled nursery
    # would replace it with Cancelled.  It is re-raised, unchanged, once the
    # hub's tasks have stopped.
    body_error: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(hub._serve, listeners)
            try:
                yield hub
            except BaseException as exc:
                body_error = exc
            finally:
                hub.close()
    finally:
        for listener in listeners:
            listener.socket.close()
    if body_error is not None:
        raise body_error


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
        self._closed = False

    async def send(self, dst: int, payload: bytes) -> None:
        """Send ``payload`` to ``dst`` through the hub (blocks under back-pressure).

        Raises :class:`EndpointClosed` if the endpoint is closed or the
        connection is lost, :class:`UnknownDestination` for an id not in the
        roster.  A send cancelled part-way may have written part of a frame,
        after which the stream cannot be resynchronised: the endpoint is then
        closed, and later calls raise :class:`EndpointClosed`.
        """
        if self._closed:
            raise EndpointClosed(f"party {self.party_id}: send on a closed endpoint")
        if dst not in self.peers:
            raise UnknownDestination(
                f"party {self.party_id}: unknown destination {dst!r} (not in the roster)"
            )
        if type(payload) is not bytes:
            payload = bytes(payload)
        async with self._send_lock:
            if self._closed:  # closed while this call waited for the lock
                raise EndpointClosed(f"party {self.party_id}: send on a closed endpoint")
            written = False
            try:
                for piece in pack_frame(dst, payload):
                    await self._stream.send_all(piece)
                written = True
            except _BROKEN:
                raise EndpointClosed(
                    f"party {self.party_id}: "
                    + ("endpoint closed" if self._closed else "connection to the hub lost")
                ) from None
            finally:
                if not written and not self._closed:
                    self._closed = True
                    await _quiet_close(self._stream)

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
        except _BROKEN:
            raise EndpointClosed(
                f"party {self.party_id}: "
                + ("endpoint closed" if self._closed else "connection to the hub lost")
            ) from None
        if frame is None:
            self._closed = True
            raise EndpointClosed(f"party {self.party_id}: the hub closed the connection")
        return frame

    async def receive(self) -> tuple[int, bytes]:
        if self._pending:
            return self._pending.popleft()
        while True:
            src, payload = await self._next_frame()
            if src == CONTROL:
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
                if _parse_control(payload).get("go") is True:
                    return
            elif src in self.peers:
                self._pending.append((src, payload))

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await _quiet_close(self._stream)
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
    roster says; :class:`UsageError` for a party id not in the roster.
    """
    if party_id not in roster.parties or party_id == roster.hub:
        raise UsageError(f"connect_client: party_id {party_id!r} is not a non-hub roster party")
    entry = roster.parties[roster.hub]
    if tap is not None:
        tap.attach(_tap_place(tls))
    sock = await trio.open_tcp_stream(
        entry.host if host is None else host, entry.port if port is None else port
    )
    raw: trio.abc.Stream = sock if tap is None else TappedStream(sock, tap, party_id, roster.hub)
    stream: trio.abc.Stream = raw
    try:
        with trio.fail_after(handshake_timeout):
            if tls:
                ctx = ssl_context if ssl_context is not None else client_context(roster, party_id)
                stream = trio.SSLStream(raw, ctx, server_side=False)
                try:
                    await stream.do_handshake()  # type: ignore[attr-defined]
                except _BROKEN as exc:
                    raise TransportError(
                        f"party {party_id}: TLS handshake with the hub failed "
                        f"({exc.__cause__ or exc})"
                    ) from None
                fp = fingerprint(stream.getpeercert(binary_form=True))  # type: ignore[attr-defined]
                if fp != entry.fingerprint:
                    raise TransportError(
                        f"party {party_id}: hub certificate {fp[:23]}... does not match the roster"
                    )
            for piece in pack_frame(CONTROL, _control(hello=int(party_id))):
                await stream.send_all(piece)
            reader = FrameReader(stream, _MAX_CONTROL)
            try:
                first = await reader.read()
            except (FrameError, *_BROKEN):
                first = None
            reply = _parse_control(first[1]) if first is not None and first[0] == CONTROL else {}
            if reply.get("welcome") != party_id:
                raise TransportError(
                    f"party {party_id}: hub refused the connection: "
                    f"{reply.get('refused', 'no welcome (connection closed)')}"
                )
    except BaseException:
        await _quiet_close(stream)
        raise
    # keep what the hello reader already buffered: frames may follow the welcome at once
    return TcpClient(roster, party_id, stream, reader.with_max_frame(max_frame))
