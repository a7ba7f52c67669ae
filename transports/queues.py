"""A FIFO of relayed frames bounded in bytes, with stall detection: the hub's queues.

The hub keeps one :class:`ByteQueue` per destination (its outbox) and one for
itself (its inbox).  A queue admits a frame while its bytes stay within
``max_bytes`` and its frames within ``max_items``; an empty queue always
admits one frame, so a frame of any allowed size (``max_frame``) passes.
Each frame is charged ``len(payload) + ITEM_OVERHEAD`` bytes, so floods of
empty frames are bounded too.

A producer that finds no room waits (and, on the hub, stops reading its own
connection, so TCP back-pressure reaches the sending party).  Waiting
producers are served strictly in arrival order, so a large frame is not
starved by a stream of small ones.  Once the consumer is attached
(:meth:`ByteQueue.attach`), it reports progress with :meth:`ByteQueue.progress`;
a producer that has waited ``stall_timeout`` seconds with no progress gets
:class:`QueueStalled` -- the consumer has stopped reading.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import trio

from transports.framing import pack_frame

__all__ = ["ITEM_OVERHEAD", "ByteQueue", "QueueStalled", "drain_to"]

ITEM_OVERHEAD = 128
"""Bytes charged per queued frame on top of its payload (Python objects, frame header)."""

Item = tuple[int, bytes]


class QueueStalled(Exception):
    """A producer waited ``stall_timeout`` seconds for room while the consumer made no progress."""


class ByteQueue:
    """FIFO of ``(peer, payload)`` bounded in bytes and frames (see module docstring)."""

    __slots__ = (
        "_attached",
        "_closed",
        "_getters",
        "_items",
        "_lock",
        "_progress_at",
        "_putters",
        "max_bytes",
        "max_items",
        "nbytes",
        "on_release",
        "taken",
    )

    def __init__(
        self, max_bytes: int, max_items: int, on_release: Callable[[Item], None] | None = None
    ) -> None:
        """``on_release(item)`` is called for every item that leaves (taken, or dropped on close)."""
        self.on_release = on_release
        self.max_bytes = int(max_bytes)
        self.max_items = int(max_items)
        self.nbytes = 0
        self.taken = 0  # items the consumer has taken so far
        self._items: deque[Item] = deque()
        self._closed = False
        self._attached = False
        self._progress_at = -math.inf
        # created on first use: a hub holds one queue per roster party
        self._lock: trio.StrictFIFOLock | None = None
        self._putters: trio.lowlevel.ParkingLot | None = None
        self._getters: trio.lowlevel.ParkingLot | None = None

    def __len__(self) -> int:
        return len(self._items)

    @property
    def closed(self) -> bool:
        return self._closed

    def _room(self, cost: int) -> bool:
        items = self._items
        return not items or (
            self.nbytes + cost <= self.max_bytes and len(items) < self.max_items
        )

    def _append(self, item: Item, cost: int) -> None:
        self._items.append(item)
        self.nbytes += cost
        if self._getters is not None:
            self._getters.unpark()

    async def put(self, item: Item, stall_timeout: float | None = None) -> None:
        """Append ``item``, waiting for room (in arrival order).

        Raises ``trio.BrokenResourceError`` if the queue is or gets closed,
        and :class:`QueueStalled` if ``stall_timeout`` (seconds) passes with
        no progress of the attached consumer while this call waits.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._closed:
            raise trio.BrokenResourceError("queue closed")
        cost = len(item[1]) + ITEM_OVERHEAD
        if (self._lock is None or not self._lock.locked()) and self._room(cost):
            self._append(item, cost)
            await trio.lowlevel.cancel_shielded_checkpoint()
            return
        if self._lock is None:
            self._lock = trio.StrictFIFOLock()
        async with self._lock:  # only the first waiting producer watches for room
            if self._putters is None:
                self._putters = trio.lowlevel.ParkingLot()
            while True:
                if self._closed:
                    raise trio.BrokenResourceError("queue closed")
                if self._room(cost):
                    break
                deadline = math.inf
                if stall_timeout is not None and self._attached:
                    deadline = self._progress_at + stall_timeout
                    if trio.current_time() >= deadline:
                        raise QueueStalled(
                            f"no progress for {stall_timeout} s with {self.nbytes} bytes "
                            f"in {len(self._items)} frames queued"
                        )
                with trio.move_on_at(deadline):
                    await self._putters.park()
            self._append(item, cost)

    def push(self, item: Item) -> None:
        """Append ``item`` now, past the bounds (the hub's own control frames: at most one per
        party and run); dropped if the queue is closed."""
        if not self._closed:
            self._append(item, len(item[1]) + ITEM_OVERHEAD)

    def _taken(self, item: Item) -> Item:
        self.taken += 1
        self.nbytes -= len(item[1]) + ITEM_OVERHEAD
        if self.on_release is not None:
            self.on_release(item)
        self._progress_at = trio.current_time()
        if self._putters is not None:
            self._putters.unpark_all()
        return item

    def get_nowait(self) -> Item:
        """The oldest item; raises ``trio.WouldBlock`` if empty, ``trio.ClosedResourceError`` if closed."""
        if self._closed:
            raise trio.ClosedResourceError("queue closed")
        if not self._items:
            raise trio.WouldBlock
        return self._taken(self._items.popleft())

    async def get(self) -> Item:
        """The oldest item, waiting for one; raises ``trio.ClosedResourceError`` once closed."""
        await trio.lowlevel.checkpoint_if_cancelled()
        while not self._items:
            if self._closed:
                raise trio.ClosedResourceError("queue closed")
            if self._getters is None:
                self._getters = trio.lowlevel.ParkingLot()
            await self._getters.park()
        item = self.get_nowait()
        await trio.lowlevel.cancel_shielded_checkpoint()
        return item

    def attach(self) -> None:
        """A consumer is now draining this queue: start the stall clock."""
        self._attached = True
        self._progress_at = trio.current_time()
        if self._putters is not None:
            self._putters.unpark_all()  # waiting producers arm their stall deadline

    def progress(self) -> None:
        """The consumer made progress (e.g. wrote a chunk of a large frame)."""
        self._progress_at = trio.current_time()

    def close(self) -> None:
        """Close and drop everything queued; waiting producers and consumers are woken (idempotent)."""
        self._closed = True
        if self.on_release is not None:
            for item in self._items:
                self.on_release(item)
        self._items.clear()
        self.nbytes = 0
        for lot in (self._putters, self._getters):
            if lot is not None:
                lot.unpark_all()


_BATCH = 1 << 16  # coalesce queued small frames up to this many bytes per write
_CHUNK = 1 << 20  # write big payloads in pieces this size (progress marks, bounded TLS buffers)


async def drain_to(out: ByteQueue, stream: trio.abc.SendStream) -> None:
    """Write ``out``'s frames to ``stream`` until it is closed, coalescing queued small frames.

    Frames already waiting are joined into one ``send_all`` (up to
    :data:`_BATCH` bytes): fewer TLS records and system calls when the hub
    relays many small messages to one party; order is unchanged.  Big
    payloads go out in :data:`_CHUNK` pieces, each one marking progress for
    the stall detection of the queue.  Raises what ``stream`` raises, and
    ``trio.ClosedResourceError`` once ``out`` is closed.
    """
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
