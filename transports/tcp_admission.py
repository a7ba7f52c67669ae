"""Admission of unauthenticated connections to the hub: bounded, per source, summarized.

Anyone who can reach the hub's port can open TCP connections; until the TLS
handshake and the hello have named a roster party, a connection is an
*outsider*.  Without a bound, outsiders that never start TLS hold a file
descriptor, a task and the TLS state each for the whole handshake timeout:
about 19,000 of them exhausted the hub's descriptors and every honest party
failed (issue 21).  :class:`Admission` keeps, for the hub:

* at most ``max_pending`` handshakes at once, and at most ``per_source``
  from one source address;
* a new connection is always *admitted*; when a bound is reached the oldest
  pending handshake is closed instead -- preferring one that has not sent a
  single byte (an honest client sends its TLS ClientHello at once, so a
  flood of silent connections evicts only itself).  An honest party thus
  completes while an outsider holds the cap, as long as it can finish its
  handshake before ``per_source`` (or ``max_pending``) newer connections
  arrive;
* summarized logging: refusals of outsiders are counted by reason and
  logged as one line per ``summary_every`` seconds (plus the first few
  lines in full), never one line per attempt.

Each pending handshake runs in a cancel scope :meth:`Admission.admit` hands
out; eviction cancels it.  Nothing here knows TLS or the roster.
"""

from __future__ import annotations

import logging
import select
from collections import Counter
from dataclasses import dataclass, field

import trio

__all__ = [
    "DEFAULT_HANDSHAKE_TIMEOUT",
    "DEFAULT_MAX_PENDING",
    "DEFAULT_PER_SOURCE",
    "Admission",
    "Pending",
    "WatchedStream",
]

DEFAULT_MAX_PENDING = 512
"""Default bound on unauthenticated handshakes the hub holds at once."""
DEFAULT_PER_SOURCE = 128
"""Default bound on unauthenticated handshakes from one source address."""
DEFAULT_HANDSHAKE_TIMEOUT = 5.0
"""Default seconds a connection may take from accept to a validated hello."""


class WatchedStream(trio.abc.Stream):
    """The raw socket stream of a pending connection, noting whether the peer sent anything."""

    def __init__(self, inner: trio.SocketStream) -> None:
        self.inner = inner
        self.socket = inner.socket
        self.received = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self.received += len(data)
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(eq=False)
class Pending:
    """One admitted, not yet authenticated connection."""

    source: str
    stream: WatchedStream
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    evicted: str | None = None  # why it was closed by the admission, if it was


def _oldest_silent(pending: list[Pending]) -> Pending | None:
    """The oldest of ``pending`` that has sent nothing: no byte read by the hub and none
    waiting in its socket (one ``poll`` for all: a loaded hub may not have read an honest
    ClientHello yet, and must not take it for silence)."""
    candidates = {q.stream.socket.fileno(): q for q in pending if q.stream.received == 0}
    if not candidates:
        return None
    poller = select.poll()
    for fd in candidates:
        poller.register(fd, select.POLLIN)
    sent = {fd for fd, _ in poller.poll(0)}
    return next((q for fd, q in candidates.items() if fd not in sent), None)


def source_of(sock: trio.SocketStream) -> str:
    """The source address (host only) of a connection, ``"?"`` if unknown."""
    try:
        return str(sock.socket.getpeername()[0])
    except (OSError, IndexError):
        return "?"


class Admission:
    """The hub's bounded set of pending handshakes (module docstring)."""

    def __init__(
        self,
        log: logging.Logger,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        per_source: int = DEFAULT_PER_SOURCE,
        summary_every: float = 10.0,
        full_lines: int = 5,
    ) -> None:
        self.log = log
        self.max_pending = int(max_pending)
        self.per_source = min(int(per_source), self.max_pending)
        self.summary_every = float(summary_every)
        self.full_lines = int(full_lines)
        self._pending: dict[Pending, None] = {}  # insertion-ordered: oldest first
        self._by_source: Counter[str] = Counter()
        self.closed: Counter[str] = Counter()  # outsiders closed, by reason (whole run)
        self.peak = 0  # most handshakes pending at once
        self._unlogged: Counter[str] = Counter()
        self._logged_lines = 0
        self._last_summary = -float("inf")

    @property
    def pending(self) -> int:
        """Handshakes pending now."""
        return len(self._pending)

    def admit(self, sock: trio.SocketStream) -> Pending:
        """Register ``sock`` as pending, evicting the oldest handshake if a bound is reached."""
        p = Pending(source_of(sock), WatchedStream(sock))
        if self._by_source[p.source] >= self.per_source:
            self._evict([q for q in self._pending if q.source == p.source], "per-source limit")
        if len(self._pending) >= self.max_pending:
            self._evict(list(self._pending), "pending limit")
        self._pending[p] = None
        self._by_source[p.source] += 1
        self.peak = max(self.peak, len(self._pending))
        return p

    def _evict(self, candidates: list[Pending], why: str) -> None:
        live = [q for q in candidates if q.evicted is None]
        if not live:
            return
        victim = _oldest_silent(live) or live[0]  # the oldest, preferring one that sent nothing
        victim.evicted = why
        victim.scope.cancel()
        self.release(victim)

    def release(self, p: Pending) -> None:
        """``p`` is no longer pending (authenticated, refused, timed out or evicted)."""
        if p in self._pending:
            del self._pending[p]
            self._by_source[p.source] -= 1
            if self._by_source[p.source] <= 0:
                del self._by_source[p.source]

    def refused(self, reason: str, line: str) -> None:
        """Count an outsider's refusal under ``reason``; log ``line`` only among the first few."""
        self.closed[reason] += 1
        if self._logged_lines < self.full_lines:
            self._logged_lines += 1
            self.log.warning("hub refused a connection: %s", line)
        else:
            self._unlogged[reason] += 1
        now = trio.current_time()
        if self._unlogged and now - self._last_summary >= self.summary_every:
            self.flush(now)

    def flush(self, now: float | None = None) -> None:
        """Log one summary line of the refusals not logged yet (if any)."""
        if not self._unlogged:
            return
        counts = ", ".join(f"{n} {why}" for why, n in self._unlogged.most_common())
        self.log.warning(
            "hub: %d more unauthenticated connections closed (%s); %d pending now, peak %d",
            sum(self._unlogged.values()), counts, len(self._pending), self.peak,
        )  # fmt: skip
        self._unlogged.clear()
        self._last_summary = trio.current_time() if now is None else now

    def summary(self) -> dict[str, int]:
        """Counts for reports: outsiders closed by reason, pending now, peak pending."""
        return {**dict(self.closed), "pending": len(self._pending), "peak_pending": self.peak}
