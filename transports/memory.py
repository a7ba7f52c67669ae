"""In-memory transport: trio memory channels, for fast deterministic simulation.

Each party's endpoint owns one bounded inbound channel (``buffer`` payloads).
``send`` blocks while the receiver's buffer is full (back-pressure).  Without
a link model a payload goes straight into the receiver's channel: one
channel operation per message, no extra tasks, so tens of thousands of
parties fit in one process.  A send that fits in the receiver's buffer, and a
``poll`` that finds a payload waiting, complete without yielding to the
scheduler (a task switch per message is most of the cost of a small message);
a full buffer blocks as usual.

With a :class:`LinkModel` the network simulates latency, jitter, loss,
reordering and access-link bandwidth: a single *wire* task (started by ``async with network``) keeps a
heap of in-flight payloads ordered by delivery time and hands each to its
receiver when due.  Per-link FIFO order is kept (delivery times on a link are
clamped to be non-decreasing) except for payloads picked for reordering,
which get an extra delay and may be overtaken.  Bandwidth is a FIFO queue per
party and direction: a payload of ``B`` bytes occupies its sender's uplink for
``B / uplink`` seconds after the payloads the sender queued before it, then
travels ``latency`` (+ jitter), then occupies the receiver's downlink for
``B / downlink`` seconds after the payloads already arriving there (the
store-and-forward model of an access link; the core of the network is
assumed not to be the bottleneck).  All draws come from
per-link generators derived from the caller's seeded ``numpy`` Generator, so
the fate of the k-th payload on a link does not depend on how trio happens to
schedule tasks.  Time is ``trio.current_time()``: under
``trio.testing.MockClock(autojump_threshold=0)`` a simulated minute takes
milliseconds.

Payloads are immutable ``bytes``; ``bytearray``/``memoryview`` arguments are
copied, so no receiver ever shares a mutable buffer with anyone.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import trio

from mpc_rr.core import UsageError
from transports.base import ChannelEndpoint
from transports.tap import PAYLOAD_TAP, Tap

__all__ = ["DEFAULT_BUFFER", "LinkModel", "MemoryEndpoint", "MemoryNetwork"]

DEFAULT_BUFFER = 1024
"""Default inbound buffer per endpoint, in payloads."""


@dataclass(frozen=True, slots=True)
class LinkModel:
    """Behaviour of one simulated link (seconds and probabilities).

    Parameters
    ----------
    latency:
        Fixed one-way delay.
    jitter:
        Extra delay drawn uniformly from ``[0, jitter)``.
    loss:
        Probability a payload is lost.
    reorder:
        Probability a payload is held back by an extra uniform delay in
        ``[0, reorder_delay)`` outside the per-link FIFO order, so later
        payloads may overtake it.
    reorder_delay:
        Upper bound of that extra delay.
    uplink:
        The sender's access-link rate in bytes per second (``inf``: no
        serialization delay).  With a per-link callable, the model of a link
        ``(src, dst)`` gives ``src``'s uplink and ``dst``'s downlink; a
        party's rate should not depend on the other end.
    downlink:
        The receiver's access-link rate in bytes per second (``inf``: none).
    """

    latency: float = 0.0
    jitter: float = 0.0
    loss: float = 0.0
    reorder: float = 0.0
    reorder_delay: float = 0.1
    uplink: float = math.inf
    downlink: float = math.inf

    def __post_init__(self) -> None:
        for name in ("latency", "jitter", "reorder_delay"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise UsageError(f"LinkModel: {name} must be finite and >= 0, got {v!r}")
        for name in ("uplink", "downlink"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and v > 0 and not math.isnan(v)):
                raise UsageError(f"LinkModel: {name} must be > 0 bytes/s (inf: unlimited), got {v!r}")
        for name in ("loss", "reorder"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise UsageError(f"LinkModel: {name} must be a probability in [0, 1], got {v!r}")


class MemoryEndpoint(ChannelEndpoint):
    """A party's endpoint on a :class:`MemoryNetwork` (see :class:`transports.base.Endpoint`)."""

    def __init__(
        self,
        network: MemoryNetwork,
        party_id: int,
        recv: trio.MemoryReceiveChannel[tuple[int, bytes]],
    ) -> None:
        super().__init__(party_id, network.parties, recv)
        self._net = network

    async def send(self, dst: int, payload: bytes) -> None:
        net = self._net
        target = net._inboxes.get(dst)
        payload = self._send_preamble(dst, payload, target is not None, net.tap)
        if net._link is not None:
            await net._schedule(self, dst, payload)
        elif target is not None:  # always: the preamble raised for an unknown destination
            try:
                try:
                    target.send_nowait((self.party_id, payload))
                except trio.WouldBlock:  # the receiver's buffer is full: wait (back-pressure)
                    await target.send((self.party_id, payload))
            except trio.BrokenResourceError:  # receiver closed: the network drops it
                self.dropped += 1


class MemoryNetwork:
    """A simulated network of memory endpoints, one per party id.

    Parameters
    ----------
    parties:
        Party ids, or an int ``n`` meaning ids ``0..n-1``.
    buffer:
        Inbound buffer of every endpoint, in payloads (>= 1).
    link:
        ``None`` (instant, lossless delivery), a :class:`LinkModel` for every
        link, or a callable ``(src, dst) -> LinkModel``.  Needs ``rng`` and
        the network must be entered with ``async with`` (it runs a wire task).
    rng:
        Seeded generator the link randomness is derived from.
    tap:
        Optional :class:`Tap` recording every payload put on the network.

    Examples
    --------
    >>> async def demo():
    ...     async with MemoryNetwork(2) as net:
    ...         await net.endpoint(0).send(1, b"hi")
    ...         return await net.endpoint(1).receive()
    >>> trio.run(demo)
    (0, b'hi')
    """

    def __init__(
        self,
        parties: Iterable[int] | int,
        *,
        buffer: int = DEFAULT_BUFFER,
        link: LinkModel | Callable[[int, int], LinkModel] | None = None,
        rng: np.random.Generator | None = None,
        tap: Tap | None = None,
    ) -> None:
        ids = range(parties) if isinstance(parties, int) else parties
        ids = [int(p) for p in ids]
        if not ids:
            raise UsageError("MemoryNetwork: parties must not be empty")
        if len(set(ids)) != len(ids):
            raise UsageError("MemoryNetwork: duplicate party ids")
        if int(buffer) < 1:
            raise UsageError(f"MemoryNetwork: buffer must be >= 1, got {buffer!r}")
        if link is not None and rng is None:
            raise UsageError("MemoryNetwork: a link model needs a seeded rng (numpy Generator)")
        self.parties = frozenset(ids)
        self.buffer = int(buffer)
        self.tap = tap
        if tap is not None:
            tap.attach(PAYLOAD_TAP)
        self._link = link
        self._inboxes: dict[int, trio.MemorySendChannel[tuple[int, bytes]]] = {}
        self._endpoints: dict[int, MemoryEndpoint] = {}
        for pid in ids:
            s, r = trio.open_memory_channel[tuple[int, bytes]](self.buffer)
            self._inboxes[pid] = s
            self._endpoints[pid] = MemoryEndpoint(self, pid, r)
        # link simulation state
        self._base_seed = int(rng.integers(2**63)) if rng is not None else 0
        self._link_rng: dict[tuple[int, int], np.random.Generator] = {}
        self._last: dict[tuple[int, int], float] = {}
        self._up_free: dict[int, float] = {}  # when each party's uplink is next idle
        self._down_free: dict[int, float] = {}  # when each party's downlink is next idle
        # (due time, sequence, dst, src, payload, downlink rate still to cross or inf)
        self._heap: list[tuple[float, int, int, int, bytes, float]] = []
        self._seq = 0
        self._wake = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._inflight: dict[int, trio.Semaphore] = {}
        self._backlog: dict[int, deque[tuple[int, bytes]]] = {}
        self.lost = 0

    def endpoint(self, party_id: int) -> MemoryEndpoint:
        """The endpoint of ``party_id``."""
        try:
            return self._endpoints[party_id]
        except KeyError:
            raise UsageError(f"MemoryNetwork: no party {party_id!r}") from None

    def endpoints(self) -> dict[int, MemoryEndpoint]:
        return dict(self._endpoints)

    def close(self) -> None:
        for ep in self._endpoints.values():
            ep.close()

    async def __aenter__(self) -> MemoryNetwork:
        if self._link is not None:
            self._cm = trio.open_nursery()
            self._nursery = await self._cm.__aenter__()
            self._nursery.start_soon(self._wire)
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        self.close()
        if self._nursery is not None:
            self._nursery.cancel_scope.cancel()
            nursery, self._nursery = self._nursery, None
            del nursery
            return await self._cm.__aexit__(*exc)
        return None

    # -- link simulation ---------------------------------------------------

    def _model(self, src: int, dst: int) -> LinkModel:
        link = self._link
        return link if isinstance(link, LinkModel) else link(src, dst)  # type: ignore[misc,operator]

    async def _schedule(self, ep: MemoryEndpoint, dst: int, payload: bytes) -> None:
        if self._nursery is None:
            raise UsageError("MemoryNetwork: with a link model, use `async with network:`")
        src = ep.party_id
        key = (src, dst)
        g = self._link_rng.get(key)
        if g is None:
            g = self._link_rng[key] = np.random.default_rng([self._base_seed, src, dst])
        m = self._model(src, dst)
        u = g.random(3)  # fixed number of draws per payload: reproducible per link
        if u[0] < m.loss:
            self.lost += 1
            return
        now = trio.current_time()
        if m.uplink != math.inf:  # queued behind what src sent before, then serialized
            now = max(now, self._up_free.get(src, now)) + len(payload) / m.uplink
            self._up_free[src] = now
        t = now + m.latency + u[1] * m.jitter
        if u[2] < m.reorder:
            t += float(g.random()) * m.reorder_delay
        else:
            t = max(t, self._last.get(key, -math.inf))
            self._last[key] = t
        # back-pressure: at most `buffer` payloads in flight towards one destination
        sem = self._inflight.get(dst)
        if sem is None:
            sem = self._inflight[dst] = trio.Semaphore(self.buffer)
        await sem.acquire()
        self._seq += 1
        # t: arrival at dst's downlink, which the wire task serializes in arrival order
        heapq.heappush(self._heap, (t, self._seq, dst, src, payload, m.downlink))
        self._wake.set()

    async def _wire(self) -> None:
        heap = self._heap
        while True:
            if not heap:
                self._wake = trio.Event()
                await self._wake.wait()
                continue
            t = heap[0][0]
            if trio.current_time() < t:
                self._wake = trio.Event()
                with trio.move_on_at(t):
                    await self._wake.wait()
                continue
            _, _, dst, src, payload, rate = heapq.heappop(heap)
            if rate != math.inf:  # arrived at dst's downlink: queue behind earlier arrivals
                t = max(t, self._down_free.get(dst, t)) + len(payload) / rate
                self._down_free[dst] = t
                self._seq += 1
                heapq.heappush(heap, (t, self._seq, dst, src, payload, math.inf))
                continue
            self._deliver(dst, src, payload)

    def _deliver(self, dst: int, src: int, payload: bytes) -> None:
        """Hand one due payload to ``dst`` without ever blocking the wire task."""
        backlog = self._backlog.get(dst)
        if backlog is not None:  # a drainer is already waiting: keep FIFO behind it
            backlog.append((src, payload))
            return
        try:
            self._inboxes[dst].send_nowait((src, payload))
        except trio.WouldBlock:
            self._backlog[dst] = deque([(src, payload)])
            if self._nursery is not None:
                self._nursery.start_soon(self._drain, dst)
            return
        except trio.BrokenResourceError:
            pass
        self._inflight[dst].release()

    async def _drain(self, dst: int) -> None:
        backlog = self._backlog[dst]
        inbox = self._inboxes[dst]
        sem = self._inflight[dst]
        while backlog:
            item = backlog[0]
            try:
                await inbox.send(item)
            except trio.BrokenResourceError:
                pass
            backlog.popleft()
            sem.release()
        del self._backlog[dst]
