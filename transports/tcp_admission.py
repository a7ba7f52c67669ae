"""Admission of unauthenticated connections to the hub: bounded, per source, summarized.

Anyone who can reach the hub's port can open TCP connections; until the TLS
handshake and the hello have named a roster party, a connection is an
*outsider*.  Without a bound, outsiders that never start TLS hold a file
descriptor, a task and the TLS state each for the whole handshake timeout:
about 19,000 of them exhausted the hub's descriptors and every honest party
failed.  :class:`Admission` keeps, for the hub:

* at most ``max_pending`` handshakes at once, and at most ``per_source``
  from one source address;
* a new connection is always *admitted*; when a bound is reached one pending
  handshake is closed instead.  The victim is chosen so that a flood evicts
  only itself: from the source holding the most pending handshakes (for the
  global bound; for ``per_source``, from that source), the oldest one that
  has not sent a single byte (an honest client sends its TLS ClientHello at
  once), else the oldest that has; a connection whose certificate is in the
  roster (:meth:`Admission.verify`) is never chosen while an outsider is
  pending -- no outsider can present one.  An honest party thus completes
  while outsiders hold the cap, from other addresses whatever they send, and
  from its own address as long as the outsiders stay silent;
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
from collections.abc import Iterable
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
    verified: bool = False  # its certificate is in the roster: not an outsider


_PROBE = 16  # silent candidates probed per poll call


def _first_silent(batch: list[Pending]) -> Pending | None:
    """The first of ``batch`` with no byte waiting in its socket (one ``poll`` for all: a
    loaded hub may not have read an honest ClientHello yet, and must not take it for silence)."""
    poller = select.poll()
    for q in batch:
        fd = q.stream.socket.fileno()
        if fd < 0:
            return q  # already closed (being refused): free to evict
        poller.register(fd, select.POLLIN)
    sent = {fd for fd, _ in poller.poll(0)}
    return next((q for q in batch if q.stream.socket.fileno() not in sent), None)


def _victim(group: Iterable[Pending]) -> Pending | None:
    """The handshake of ``group`` (oldest first) to close: the oldest silent one, else the
    oldest that sent something; never a verified one.  Probes sockets in small batches and
    stops at the first silent one, so the usual case (the oldest is a silent outsider) costs
    one system call, not one per pending handshake."""
    first: Pending | None = None
    batch: list[Pending] = []
    for q in group:
        if q.verified or q.evicted is not None:
            continue
        first = first or q
        if q.stream.received == 0:
            batch.append(q)
            if len(batch) == _PROBE:
                if (silent := _first_silent(batch)) is not None:
                    return silent
                batch = []
    if batch and (silent := _first_silent(batch)) is not None:
        return silent
    return first


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
        self._by_source: dict[str, dict[Pending, None]] = {}  # the same, per source address
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
        """Register ``sock`` as pending, evicting one handshake if a bound is reached."""
        p = Pending(source_of(sock), WatchedStream(sock))
        own = self._by_source.get(p.source, {})
        if len(own) >= self.per_source:
            self._evict(own, "per-source limit")
        if len(self._pending) >= self.max_pending:
            # from the source holding the most: an honest party's own address holds one
            self._evict(max(self._by_source.values(), key=len), "pending limit", spill=True)
        self._pending[p] = None
        self._by_source.setdefault(p.source, {})[p] = None
        self.peak = max(self.peak, len(self._pending))
        return p

    def verify(self, p: Pending) -> None:
        """``p`` presented a roster certificate: no outsider's arrival evicts it any more
        (it stays pending, under its deadline, until its hello is checked)."""
        p.verified = True

    def _evict(self, group: dict[Pending, None], why: str, *, spill: bool = False) -> None:
        """Close one handshake: :func:`_victim` of ``group`` (``spill``: else of all pending),
        else the oldest of ``group`` (only verified ones left: the bound still holds)."""
        victim = _victim(group) or (_victim(self._pending) if spill else None) or next(iter(group))
        victim.evicted = why
        victim.scope.cancel()
        self.release(victim)

    def release(self, p: Pending) -> None:
        """``p`` is no longer pending (authenticated, refused, timed out or evicted)."""
        if p in self._pending:
            del self._pending[p]
            own = self._by_source[p.source]
            del own[p]
            if not own:
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
