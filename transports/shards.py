"""One shard of a simulated network: the endpoints of the parties one worker runs.

A sharded simulation runs its parties in several workers (processes or Ray
actors), each with a :class:`ShardNetwork` for its own parties.  The network
works in *supersteps* (bulk-synchronous): every payload a party sends goes to
an outbox -- one per destination shard, this shard included -- and is
delivered at the start of the next superstep by :meth:`ShardNetwork.deliver`.
Between supersteps the runner moves the outboxes of every shard to their
destinations as :class:`Batch` frames (MessagePack: ``src``, ``dst`` and the
payloads as the parties encoded them).

Why every payload waits for the next superstep, even a local one: a party
that answers a broadcast from a party on its own shard then computes in the
same superstep as the parties on the other shards, not one superstep ahead of
them (which would serialise the shards' work).  Per-link FIFO order holds
(a link's payloads come from one party, in one outbox, in send order); there
is no order between links, as on every transport here.

Send never blocks (outboxes are unbounded within a superstep: they hold what
the parties produce in one superstep).  Inbound buffers are unbounded by
default: a superstep's payloads are already in memory when they are
delivered, so a bound saves no memory and only costs a task switch per
payload beyond it (measured: the coordinator's supersteps of the Adult RR
pipeline 2.4 -> 1.9 CPU-s); with ``buffer`` set, :meth:`deliver` blocks while
a party's buffer is full, as in :mod:`transports.memory`.  Payloads for a
party that has finished are dropped (counted in ``dropped``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import msgspec
import trio

from mpc_rr.core import DecodeError, UsageError
from transports.base import ChannelEndpoint
from transports.tap import PAYLOAD_TAP, Tap

__all__ = ["Batch", "ShardEndpoint", "ShardNetwork", "decode_batch", "decode_batch_checked", "encode_batch"]


class Batch(msgspec.Struct, frozen=True, forbid_unknown_fields=True, array_like=True):
    """Payloads from one shard to another in one superstep, in send order.

    Item ``i`` carries ``payloads[ref[i]]``: a payload object sent to many
    parties (a broadcast, encoded once by its sender) crosses once.  The RR
    pipeline's signed clustering (236 bytes) went once per receiver: at 10^6
    parties a 120 MB frame, and 500,000 copies of it in the receiving worker.
    """

    src: list[int]
    dst: list[int]
    ref: list[int]
    payloads: list[bytes]
    checked: list[int] = msgspec.field(default_factory=list)
    """Items (indices) that passed their destination's stateless checks where they were
    sent (:meth:`mpc_rr.core.RolePlan.prechecks`; the runtime's own word, never a party's)."""


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Batch)

Item = tuple[int, int, bytes]
_checkpoint_if_cancelled = trio.lowlevel.checkpoint_if_cancelled  # one lookup, not two per send


def encode_batch(items: Sequence[Item], checked: Sequence[int] = ()) -> bytes:
    """One MessagePack frame holding ``(src, dst, payload)`` items in order; one payload
    *object* in several items (a broadcast) is written once; ``checked``: the indices of
    the items that passed their destination's prechecks."""
    seen: dict[int, int] = {}  # id(payload) -> its index; items keep every payload alive
    payloads: list[bytes] = []
    ref = []
    for i in items:
        k = seen.setdefault(id(i[2]), len(payloads))
        if k == len(payloads):
            payloads.append(i[2])
        ref.append(k)
    return _ENCODER.encode(Batch([i[0] for i in items], [i[1] for i in items], ref, payloads, list(checked)))


def decode_batch(frame: bytes | memoryview) -> list[Item]:
    """The items of a :func:`encode_batch` frame (strict: a malformed frame is a DecodeError);
    items that shared a payload share one ``bytes`` object again."""
    return decode_batch_checked(frame)[0]


def decode_batch_checked(frame: bytes | memoryview) -> tuple[list[Item], frozenset[int]]:
    """:func:`decode_batch` and the indices of the items that passed their prechecks."""
    try:
        b = _DECODER.decode(frame)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise DecodeError(f"shard batch: {exc}") from None
    if not len(b.src) == len(b.dst) == len(b.ref):
        raise DecodeError("shard batch: src, dst and ref differ in length")
    payloads = b.payloads
    if b.ref and not 0 <= min(b.ref) <= max(b.ref) < len(payloads):
        raise DecodeError(f"shard batch: a payload reference outside the {len(payloads)} payloads")
    if b.checked and not 0 <= min(b.checked) <= max(b.checked) < len(b.src):
        raise DecodeError(f"shard batch: a checked item outside the {len(b.src)} items")
    return [(s, d, payloads[k]) for s, d, k in zip(b.src, b.dst, b.ref, strict=True)], frozenset(b.checked)


class ShardEndpoint(ChannelEndpoint):
    """A party's endpoint on a :class:`ShardNetwork` (see :class:`transports.base.Endpoint`)."""

    def __init__(
        self, network: ShardNetwork, party_id: int, recv: trio.MemoryReceiveChannel[tuple[int, bytes]]
    ) -> None:
        super().__init__(party_id, network.parties, recv)
        self._net = network

    async def send(self, dst: int, payload: bytes) -> None:
        await _checkpoint_if_cancelled()
        net = self._net
        owner = net.owner
        shard = owner[dst] if 0 <= dst < len(owner) else -1
        payload = self._send_preamble(dst, payload, shard >= 0, net.tap)
        net.outboxes[shard].append((self.party_id, dst, payload))


class ShardNetwork:
    """Endpoints for the parties ``local`` of shard ``shard`` (see module docstring).

    Parameters
    ----------
    shard:
        This shard's index.
    owner:
        ``owner[pid]`` is the shard running party ``pid`` (``-1``: no such party).
    local:
        The parties of this shard (``owner[pid] == shard``).
    buffer:
        Inbound buffer of every endpoint, in payloads (>= 1; ``None``: unbounded).
    tap:
        Optional :class:`Tap` recording every payload its parties put on the network.
    """

    def __init__(
        self,
        shard: int,
        owner: Sequence[int],
        local: Iterable[int],
        *,
        buffer: int | None = None,
        tap: Tap | None = None,
    ) -> None:
        if buffer is not None and int(buffer) < 1:
            raise UsageError(f"ShardNetwork: buffer must be >= 1 or None, got {buffer!r}")
        self.shard = int(shard)
        self.owner = owner
        self.shards = max(owner, default=-1) + 1
        self.parties = frozenset(p for p, s in enumerate(owner) if s >= 0)
        self.buffer: float = math.inf if buffer is None else int(buffer)
        self.tap = tap
        if tap is not None:
            tap.attach(PAYLOAD_TAP)
        self.outboxes: list[list[Item]] = [[] for _ in range(self.shards)]
        self._inboxes: dict[int, trio.MemorySendChannel[tuple[int, bytes]]] = {}
        self._endpoints: dict[int, ShardEndpoint] = {}
        for pid in local:
            if not 0 <= pid < len(owner) or owner[pid] != self.shard:
                raise UsageError(f"ShardNetwork: party {pid} does not belong to shard {shard}")
            s, r = trio.open_memory_channel[tuple[int, bytes]](self.buffer)
            self._inboxes[pid] = s
            self._endpoints[pid] = ShardEndpoint(self, pid, r)
        self.dropped = 0

    def endpoint(self, party_id: int) -> ShardEndpoint:
        try:
            return self._endpoints[party_id]
        except KeyError:
            raise UsageError(f"ShardNetwork: party {party_id!r} is not on shard {self.shard}") from None

    def take_outboxes(self) -> list[list[Item]]:
        """The payloads sent since the last call, by destination shard (the outboxes restart empty)."""
        out, self.outboxes = self.outboxes, [[] for _ in range(self.shards)]
        return out

    async def deliver(self, items: Iterable[Item]) -> None:
        """Hand payloads to their (local) receivers, in order; a closed endpoint's are dropped."""
        inboxes = self._inboxes
        for src, dst, payload in items:
            inbox = inboxes.get(dst)
            if inbox is None:
                raise UsageError(f"ShardNetwork: payload for party {dst}, not on shard {self.shard}")
            try:
                try:
                    inbox.send_nowait((src, payload))
                except trio.WouldBlock:  # its buffer is full: wait (the party may close meanwhile)
                    await inbox.send((src, payload))
            except trio.BrokenResourceError:
                self.dropped += 1

    def close(self) -> None:
        for ep in self._endpoints.values():
            ep.close()
