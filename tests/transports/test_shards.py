"""The shard network on its own: batch frames, and deliveries to parties that leave."""

from __future__ import annotations

import msgspec
import pytest
import trio
import trio.testing

from mpc_rr.core import DecodeError
from transports.shards import Batch, ShardNetwork, decode_batch, encode_batch


def test_batch_frames_round_trip_and_reject_garbage() -> None:
    items = [(0, 5, b"abc"), (3, 1, b""), (2, 2, bytes(range(256)))]
    assert decode_batch(encode_batch(items)) == items
    with pytest.raises(Exception, match="shard batch"):
        decode_batch(b"\x93\x01")
    for bad in (Batch([0], [1], [1], [b"x"]), Batch([0], [1], [-1], [b"x"]), Batch([0, 1], [1], [0], [b"x"])):
        with pytest.raises(DecodeError, match="shard batch"):
            decode_batch(msgspec.msgpack.encode(bad))


def test_a_broadcast_crosses_once_and_arrives_as_one_object() -> None:
    """One payload object sent to many parties is written once in the frame."""
    signed = bytes(236)  # the RR pipeline's signed clustering
    items = [(0, d, signed) for d in range(1, 1001)] + [(0, 7, b"own")]
    frame = encode_batch(items)
    assert len(frame) < 236 + 1001 * 8  # not 1,000 copies
    out = decode_batch(frame)
    assert out == items and len({id(p) for _, _, p in out}) == 2
    assert len(encode_batch([(0, d, bytes(236)) for d in range(100)])) > 100 * 236  # equal, not one object


async def test_a_delivery_waiting_for_a_party_that_closes_drops_its_payloads() -> None:
    """A bounded inbox is full and the party finishes (closes its endpoint) while a delivery
    waits for room: the payloads are dropped and counted.  Before, the wait raised
    trio.BrokenResourceError out of ``deliver`` (the sharded runner closes a party's
    endpoint when it finishes, so a bounded-buffer run could fail a worker)."""
    net = ShardNetwork(0, [0, 0], [0, 1], buffer=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(net.deliver, [(0, 1, b"a"), (0, 1, b"b"), (0, 1, b"c")])
        await trio.testing.wait_all_tasks_blocked()
        net.endpoint(1).close()
    assert net.dropped == 2
    await net.deliver([(1, 0, b"to a party still there")])
    assert net.endpoint(0).poll() == (1, b"to a party still there")


async def test_send_never_blocks_and_a_bounded_delivery_waits_for_the_reader() -> None:
    """What the shard network has instead of a blocking send: ``send`` only appends to an
    outbox (no back-pressure on the sender), and with ``buffer`` set the delivery between
    supersteps waits until the party has read."""
    net = ShardNetwork(0, [0, 0], [0, 1], buffer=2)
    a, b = net.endpoint(0), net.endpoint(1)
    with trio.fail_after(5):  # nobody delivers or reads: a blocking send would wait here
        for i in range(1000):
            await a.send(1, i.to_bytes(4, "big"))
    (items,) = net.take_outboxes()
    assert len(items) == 1000
    delivered = trio.Event()

    async def deliver() -> None:
        await net.deliver(items)
        delivered.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(deliver)
        await trio.testing.wait_all_tasks_blocked()
        assert not delivered.is_set()  # 2 payloads in the buffer, 998 waiting for room
        got = [int.from_bytes((await b.receive())[1], "big") for _ in range(1000)]
    assert got == list(range(1000)) and delivered.is_set()


def test_prechecked_items_cross_with_the_frame_and_bad_indices_are_refused() -> None:
    from transports.shards import decode_batch_checked

    items = [(1, 0, b"a"), (2, 0, b"b"), (3, 0, b"c")]
    got, checked = decode_batch_checked(encode_batch(items, [0, 2]))
    assert got == items and checked == {0, 2}
    assert decode_batch_checked(encode_batch(items))[1] == frozenset()
    with pytest.raises(DecodeError, match="checked item outside"):
        decode_batch_checked(encode_batch(items, [3]))
