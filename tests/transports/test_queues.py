"""The hub's byte-bounded queue on its own: bounds, fairness, stall detection (virtual time)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from transports.queues import ITEM_OVERHEAD, ByteQueue, QueueStalled


async def test_bounded_in_bytes_but_an_empty_queue_admits_any_frame() -> None:
    q = ByteQueue(max_bytes=1000, max_items=100)
    await q.put((1, bytes(5000)))  # larger than the bound: admitted into an empty queue
    assert q.nbytes == 5000 + ITEM_OVERHEAD
    async with trio.open_nursery() as nursery:
        nursery.start_soon(q.put, (2, b"x"))
        await trio.testing.wait_all_tasks_blocked()
        assert len(q) == 1  # no room: the second frame waits
        assert await q.get() == (1, bytes(5000))
    assert len(q) == 1 and q.nbytes == 1 + ITEM_OVERHEAD
    assert await q.get() == (2, b"x")
    assert q.nbytes == 0


async def test_empty_frames_are_charged_so_a_flood_of_them_is_bounded(autojump_clock) -> None:
    q = ByteQueue(max_bytes=10 * ITEM_OVERHEAD, max_items=10**9)
    with trio.move_on_after(1):
        while True:
            await q.put((1, b""))
    assert len(q) == 10


async def test_waiting_producers_are_served_in_arrival_order(autojump_clock) -> None:
    q = ByteQueue(max_bytes=1000 + 2 * ITEM_OVERHEAD, max_items=100)
    await q.put((0, bytes(600)))
    order: list[int] = []

    async def producer(tag: int, size: int) -> None:
        await q.put((tag, bytes(size)))
        order.append(tag)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(producer, 1, 900)  # waits for room first ...
        await trio.sleep(1)
        nursery.start_soon(producer, 2, 10)  # ... and this small one must not overtake it
        await trio.sleep(1)
        assert order == []
        assert (await q.get())[0] == 0
        assert (await q.get())[0] == 1
    assert order == [1, 2]


async def test_a_consumer_that_makes_no_progress_is_reported(autojump_clock) -> None:
    q = ByteQueue(max_bytes=100, max_items=100)
    q.attach()
    await q.put((1, bytes(100)))
    t0 = trio.current_time()
    with pytest.raises(QueueStalled, match=r"no progress for 30.0 s with 228 bytes in 1 frames"):
        await q.put((1, b"more"), stall_timeout=30.0)
    assert trio.current_time() - t0 == pytest.approx(30.0)


async def test_progress_resets_the_stall_clock(autojump_clock) -> None:
    q = ByteQueue(max_bytes=100, max_items=100)
    q.attach()
    await q.put((1, bytes(100)))

    async def slow_consumer() -> None:
        for _ in range(5):  # a large frame being written: progress every 20 s, no room yet
            await trio.sleep(20)
            q.progress()
        await q.get()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow_consumer)
        await q.put((1, b"next"), stall_timeout=30.0)  # waited 100 s, never 30 s without progress
    assert trio.current_time() == pytest.approx(100.0)


async def test_no_stall_before_a_consumer_is_attached(autojump_clock) -> None:
    q = ByteQueue(max_bytes=100, max_items=100)  # e.g. a party that has not connected yet
    await q.put((1, bytes(100)))
    with trio.move_on_after(1000) as scope:
        await q.put((1, b"x"), stall_timeout=1.0)
    assert scope.cancelled_caught  # throttled only


async def test_close_wakes_producers_and_consumers_and_frees_the_bytes() -> None:
    q = ByteQueue(max_bytes=100, max_items=100)
    await q.put((1, bytes(100)))

    async def blocked_put() -> None:
        with pytest.raises(trio.BrokenResourceError):
            await q.put((1, b"x"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(blocked_put)
        await trio.testing.wait_all_tasks_blocked()
        q.close()
    assert q.nbytes == 0 and len(q) == 0
    with pytest.raises(trio.ClosedResourceError):
        await q.get()
    with pytest.raises(trio.BrokenResourceError):
        await q.put((1, b"x"))
