"""The hub endpoint of the TCP transport: it accepts every party's connection and relays.

Party ``roster.hub`` listens (:func:`open_hub`); every other party opens one connection to it.
Per connection, after the handshake (:func:`~transports.tcp_handshake.hub_handshake`, then the
identity checks and the reservation of the id here), one reader task takes the party's frames --
for the hub itself into its inbox, for another party into its outbox (through ``relay_filter``
if set: a hostile hub in tests changes or drops what it relays) -- and one writer task drains the
outbox to its connection, coalescing small frames: per-link order is kept.

Memory: the inbox and every outbox are :class:`~transports.queues.ByteQueue` s bounded in bytes
and frames (:mod:`transports.tcp_limits`).  A sender to a full outbox is throttled (its reader
stops: TCP back-pressure reaches it); a destination that accepts nothing for ``stall_timeout`` s
while a sender waits is named in ``hub.peer_errors`` and disconnected (:meth:`TcpHub._evict`).
Frames for a party that left are dropped (``dropped``).  A party may reconnect only if nothing of
the run passed on its connection.

Budgets (:mod:`transports.budgets`): a party that sends more frames or bytes in the run than its
``budget`` allows, causes more frame errors than it allows (frames for unknown parties), or that
the driver of the hub's own role found over its error budget (:meth:`TcpHub.refuse`),
is cut off (:meth:`TcpHub.cut`): disconnected, named in ``hub.peer_errors`` and ``hub.cut_off``,
and every connected party is told in a control frame ``{"cut": pid, "why": ...}``.  A client
whose driver found a sender over its error budget asks the hub (``{"refuse": pid}``) to relay
it nothing more from that sender.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterable
from typing import Any

import trio

from mpc_rr.core import PeerError, UsageError
from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from transports.base import Endpoint
from transports.budgets import PartyBudget
from transports.errors import EndpointClosed, TransportError
from transports.framing import (
    BROKEN,
    CONTROL,
    FrameError,
    FrameReader,
    TappedStream,
    quiet_close,
    tap_place,
)
from transports.memory import DEFAULT_BUFFER
from transports.pki import Roster, server_context
from transports.queues import ByteQueue, QueueStalled, drain_to
from transports.tap import Tap
from transports.tcp_admission import (
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_MAX_PENDING,
    DEFAULT_PER_SOURCE,
    Admission,
    Pending,
)
from transports.tcp_handshake import (
    RefusalLog,
    control,
    hub_handshake,
    log,
    parse_control,
    send_control,
)
from transports.tcp_limits import (
    DEFAULT_FRAME_TIMEOUT,
    DEFAULT_QUEUE_BYTES,
    DEFAULT_STALL_TIMEOUT,
    PartyBudgets,
    count_limit,
    stall_limit,
)

__all__ = ["TcpHub"]


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
    admission:
        The bounded set of unauthenticated handshakes
        (:class:`~transports.tcp_admission.Admission`); ``admission.summary()``
        counts the outsiders closed, by reason.
    run_nonce:
        A random nonce for this run (16 hex digits), sent in every welcome:
        deployments bind it into every message's run label, so a message of
        another run is rejected.
    peer_errors:
        :class:`~mpc_rr.core.ErrorLog` of what parties did wrong (refusals,
        malformed or truncated frames, frames for unknown parties, a
        destination that stopped reading, a party over its budget).
    cut_off:
        ``{pid: why}``: the parties cut off for going over their budget
        (module docstring); also ``gone``, the ids alone.
    refusing:
        ``{pid: {src, ...}}``: the senders each party asked the hub to relay
        it nothing more from (its driver found them over their error budget).
    """

    _who = "hub"

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
        handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
        max_pending: int = DEFAULT_MAX_PENDING,
        per_source: int = DEFAULT_PER_SOURCE,
        frame_timeout: float | None = DEFAULT_FRAME_TIMEOUT,
        party_bytes: int | None = None,
        budget: PartyBudget | str | None = "default",
        run_nonce: str | None = None,
    ) -> None:
        buffer = count_limit("buffer (frames per queue)", buffer)
        self.queue_bytes = count_limit("queue_bytes (bytes per queue)", queue_bytes)
        self.stall_timeout = stall_limit(stall_timeout)
        self._init_endpoint(roster.hub, roster.ids)
        self.roster = roster
        self.tls = bool(tls)
        self.max_frame = int(max_frame)
        self.tap = tap
        if tap is not None:
            tap.attach(tap_place(self.tls))
        self.handshake_timeout = float(handshake_timeout)
        self.admission = Admission(
            log,
            max_pending=count_limit("max_pending", max_pending),
            per_source=count_limit("per_source", per_source),
        )
        self.frame_timeout = stall_limit(frame_timeout, "frame_timeout")
        if budget == "default":
            budget = PartyBudget.default(len(roster.ids))
        elif budget is not None and not isinstance(budget, PartyBudget):
            raise UsageError(f"open_hub: budget must be a PartyBudget, None or 'default', got {budget!r}")
        self.budget: PartyBudget | None = budget
        self.budgets = PartyBudgets(
            2 * self.queue_bytes if party_bytes is None else count_limit("party_bytes", party_bytes),
            budget,
            roster.hub,
            self.stall_timeout,
        )
        self._max_errors = None if budget is None else budget.errors
        self._frame_errors: dict[int, int] = {}  # frames for unknown parties, per sender
        self.cut_off: dict[int, str] = {}
        self.gone: set[int] = set()  # the ids of cut_off
        self.refusing: dict[int, set[int]] = {}
        if run_nonce is not None and not (run_nonce.isalnum() and 0 < len(run_nonce) <= 64):
            raise UsageError(f"open_hub: run_nonce must be 1-64 letters or digits, got {run_nonce!r}")
        self.run_nonce = secrets.token_hex(8) if run_nonce is None else run_nonce
        self._ctx = server_context(roster) if self.tls else None
        self._fingerprints = roster.by_fingerprint()
        self._inbox = ByteQueue(self.queue_bytes, buffer)  # bounded alone: the hub reads it
        self._out: dict[int, ByteQueue] = {
            pid: ByteQueue(self.queue_bytes, buffer, self.budgets.release) for pid in roster.ids - {roster.hub}
        }
        self._conns: dict[int, trio.CancelScope] = {}
        self.connected: set[int] = set()
        self._ever: set[int] = set()
        self._carried: set[int] = set()  # parties whose connection carried a frame of the run
        self.refused = RefusalLog()
        self.handshakes = 0
        self._changed = trio.Event()
        self._serving = trio.CancelScope()
        self.port = 0
        self.relay_filter: Callable[[int, int, bytes], bytes | None] | None = None  # module docstring

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
        payload = self._send_preamble(dst, payload, dst in self.peers)
        if dst == self.party_id:
            try:
                await self._inbox.put((self.party_id, payload))
            except trio.BrokenResourceError:
                raise EndpointClosed(f"hub {self.party_id}: endpoint closed") from None
            return
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
            self.admission.flush()
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
        go = control(go=True)
        for pid in sorted(self._out):
            await self._relay(CONTROL, pid, go)

    # -- relaying --------------------------------------------------------------

    async def _relay(self, src: int, dst: int, payload: bytes) -> None:
        """Queue one frame for ``dst``; throttles the caller while the outbox is full."""
        q = self._out[dst]
        self.budgets.hold(src, payload)  # before: the writer may take it before put returns
        queued = False
        try:
            await q.put((src, payload), self.stall_timeout)
            queued = True
        except trio.BrokenResourceError:
            self.dropped += 1  # that party has left (or was disconnected)
        except QueueStalled as exc:
            self._evict(dst, f"{exc}; limit {q.max_bytes} bytes")
            self.dropped += 1
        finally:
            if not queued:
                self.budgets.release((src, payload))

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

    def cut(self, err: PeerError) -> None:
        """Cut off ``err.peer`` for going over its budget: record ``err`` (in ``peer_errors``
        and ``cut_off``), disconnect it, and tell every other connected party (a control
        frame ``{"cut": pid, "why": str(err)}``, after what the party already relayed)."""
        pid = err.peer
        if pid is None or pid == self.party_id or pid in self.cut_off or pid not in self._out:
            return
        self.cut_off[pid] = str(err)
        self.gone.add(pid)
        self.peer_errors.append(err)
        log.warning("%s", err)
        self._out[pid].close()
        scope = self._conns.get(pid)
        if scope is not None:
            scope.cancel()
        notice = control(cut=pid, why=str(err))
        for q, out in self._out.items():
            if q != pid:
                out.push((CONTROL, notice))
        self._notify()

    async def refuse(self, peer: int, why: str) -> None:
        """The driver of the hub's own role found ``peer`` over its error budget: cut it off (:meth:`cut`)."""
        self.cut(PeerError(f"hub: party {peer} {why}; disconnected it", peer))
        await trio.lowlevel.checkpoint()

    def _frame_error(self, pid: int, err: PeerError) -> bool:
        """Record a frame error of ``pid``; True (and ``pid`` cut off) once over its budget."""
        self.peer_errors.append(err)
        n = self._frame_errors[pid] = self._frame_errors.get(pid, 0) + 1
        if self._max_errors is not None and n > self._max_errors:
            self.cut(PeerError(
                f"hub: party {pid} sent {n} bad frames, over its budget of {self._max_errors} "
                "errors per run; disconnected it", pid,
            ))  # fmt: skip
            return True
        return False

    def _control_from(self, pid: int, payload: bytes) -> None:
        """A control frame from party ``pid``: ``{"refuse": src}`` (module docstring)."""
        src = parse_control(payload).get("refuse")
        if isinstance(src, int) and not isinstance(src, bool) and src in self._out and src != pid:
            self.refusing.setdefault(pid, set()).add(src)

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

    def _refuse(self, why: str, peer: int | None, reason: str = "refused") -> None:
        """Record a refusal; log it in full only among the first few (per party), else count it."""
        err = PeerError(f"hub refused a connection: {why}", peer)
        self.refused.append(PeerError(why, peer))
        self.peer_errors.append(err)
        if peer is not None and self.refused.log.counts.get(peer, 0) <= self.refused.log.keep_per_peer:
            log.warning("%s", err)
        else:
            self.admission.refused(reason, why)
        self._notify()

    async def _authenticate(
        self, pending: Pending
    ) -> tuple[trio.abc.Stream, FrameReader, int, TappedStream | None] | None:
        """TLS handshake, roster and hello checks; on success the party id is reserved."""
        hello = await hub_handshake(
            pending.stream, ctx=self._ctx, fingerprints=self._fingerprints, parties=self._out,
            tap=self.tap, hub=self.party_id, refuse=self._refuse,
            verified=lambda: self.admission.verify(pending),
        )  # fmt: skip
        if hello is None:
            return None
        stream, claimed, cert_id, addr = hello.stream, hello.party, hello.cert_id, hello.addr
        why, retry = None, False
        if cert_id is not None and claimed != cert_id:
            why = f"{addr}: claims party {claimed} but its certificate is party {cert_id}"
            who = cert_id
        elif claimed in self.connected:
            # e.g. it gave up waiting for its welcome and we have not seen that connection end
            why, who, retry = f"{addr}: party {claimed} is already connected", claimed, True
        elif claimed in self._ever or self._closed:
            why = f"{addr}: party {claimed} already left this run (reconnecting is not supported)"
            who = claimed
        if why is not None:
            self._refuse(why, who, "identity refused")
            await send_control(stream, refused=why, retry=retry)
            await quiet_close(stream)
            return None
        # Reserve the identity in the same step as the check above (no await in
        # between), so two simultaneous hellos for one id cannot both pass.
        self.connected.add(claimed)
        self._ever.add(claimed)
        self.handshakes += 1
        reader = hello.reader.with_max_frame(self.max_frame, timeout=self.frame_timeout)
        return stream, reader, claimed, hello.tapped

    async def _handle(self, sock: trio.SocketStream) -> None:
        """Serve one connection: a bounded, deadlined handshake (:class:`Admission`), then relay."""
        auth, pending = None, self.admission.admit(sock)
        try:
            with pending.scope:
                pending.scope.deadline = trio.current_time() + self.handshake_timeout
                await trio.lowlevel.wait_readable(sock.socket)  # no TLS state for the silent
                auth = await self._authenticate(pending)
            if auth is None and pending.evicted is not None:
                self.admission.refused(pending.evicted, f"{pending.source}: evicted ({pending.evicted})")
            elif auth is None and pending.scope.cancelled_caught:
                self.admission.refused("handshake timed out", f"{pending.source}: no hello within "
                                       f"{self.handshake_timeout} s")  # fmt: skip
        finally:
            self.admission.release(pending)
        if auth is None:
            await quiet_close(sock)
            return
        stream, reader, pid, tapped = auth  # pid is reserved: release it in `finally`
        out, taken = self._out[pid], self._out[pid].taken
        try:
            with trio.CancelScope() as scope:
                self._conns[pid] = scope
                if tapped is not None:
                    tapped.relabel(pid)
                self._notify()
                with trio.move_on_after(self.handshake_timeout):
                    await send_control(stream, welcome=pid, run=self.run_nonce)
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, stream, pid, nursery.cancel_scope)
                    await self._reader(reader, pid)
                    nursery.cancel_scope.cancel()
        finally:
            self._conns.pop(pid, None)
            self.connected.discard(pid)
            if pid in self._carried or out.taken > taken or out.closed or self._closed:
                out.close()  # it took part and left: later frames for pid are dropped
            else:  # nothing of the run passed (it gave up waiting for its welcome): it may
                self._ever.discard(pid)  # connect again, and finds its queued frames
            self._notify()
            await quiet_close(stream)

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
            except BROKEN:
                return
            if frame is None:
                return
            self._carried.add(pid)
            dst, payload = frame
            over = await self.budgets.admit(pid, len(payload))
            if over is not None:
                self.cut(over)
                return
            if dst == hub:
                try:
                    await self._inbox.put((pid, payload))
                except trio.BrokenResourceError:
                    self.dropped += 1
            elif dst in self._out:
                refusing = self.refusing.get(dst)
                if refusing is not None and pid in refusing:
                    self.dropped += 1  # dst asked for nothing more from pid
                    continue
                kept = payload if self.relay_filter is None else self.relay_filter(pid, dst, payload)
                if kept is not None:
                    await self._relay(pid, dst, kept)
            elif dst == CONTROL:
                self._control_from(pid, payload)
            elif self._frame_error(pid, PeerError(f"hub: party {pid} sent a frame to unknown party {dst}", pid)):
                return

    async def _writer(self, stream: trio.abc.Stream, pid: int, scope: trio.CancelScope) -> None:
        """Write ``pid``'s outbox to its connection (:func:`~transports.queues.drain_to`)."""
        out = self._out[pid]
        out.attach()
        try:
            await drain_to(out, stream)
        except BROKEN:
            pass
        scope.cancel()


def _ids(ids: Iterable[int], limit: int = 10) -> str:
    """``[1, 2, 3]``, or the first ``limit`` ids and how many there are in all."""
    s = sorted(ids)
    if len(s) <= limit:
        return str(s)
    return f"{str(s[:limit])[:-1]}, ...] ({len(s)} in all)"
