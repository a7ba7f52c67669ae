"""The one interface every transport implements.

An :class:`Endpoint` belongs to one party.  It moves opaque byte payloads:

* ``await send(dst, payload)`` -- hand ``payload`` to the network for party
  ``dst``.  May block (back-pressure) when buffers towards ``dst`` are full.
  Raises :class:`~transports.errors.UnknownDestination` if ``dst`` is not in
  the deployment, :class:`~transports.errors.EndpointClosed` if this endpoint
  was closed.  A payload for a peer that has already left is silently
  dropped (counted in ``dropped``), as a real network would; the protocol's
  timeouts deal with it.
* ``await receive()`` -> ``(src, payload)`` -- the next payload for this
  party, with its *authenticated* source.  Payloads from one sender arrive in
  the order they were sent (per-link FIFO); there is no order between
  different senders.  Raises ``EndpointClosed`` once the endpoint is closed
  (also in a task blocked in ``receive`` at that moment).
* ``await aclose()`` -- idempotent.
* ``poll()`` -> ``(src, payload)`` or ``None`` -- a payload that ``receive``
  would return at once, taken without waiting (``None``: nothing has arrived
  yet; the default, for transports that do not buffer).  Drivers use it to
  skip a timeout scope per message when a backlog is waiting.  Raises
  ``EndpointClosed`` once the endpoint is closed.

Misbehaving peers (garbage frames, frames for unknown parties, truncated
frames) are recorded in ``peer_errors`` (an :class:`~mpc_rr.core.ErrorLog`
of :class:`~mpc_rr.core.PeerError` s naming the peer: every error counted,
the first few per peer kept, so a hostile peer cannot grow it without bound)
and the endpoint keeps serving everyone else.

Budgets (:mod:`transports.budgets`): ``await refuse(peer, why)`` -- the driver
found ``peer`` over its error budget: a transport that can stop carrying its
frames does (the TCP hub disconnects it, a TCP client asks the hub to relay it
nothing more from ``peer``; the default does nothing, the driver drops them).
``gone`` -- the parties this endpoint knows will send nothing more (cut off for
their budget), so a driver need not wait out a deadline for them; empty by
default, and ``cut_off`` (``{pid: why}``) says why.

Every implementation's ``send`` begins with the same preamble,
:meth:`Endpoint._send_preamble`: closed endpoint, unknown destination, the payload
as immutable ``bytes`` and, where the transport taps payloads (memory,
shards; TCP taps the wire beneath TLS instead), the tap record.  One method,
so the checks, their order and their error messages are the same everywhere.
"""

from __future__ import annotations

import abc
import types
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, ClassVar

import trio

from mpc_rr.core._errors import ErrorLog
from transports.errors import EndpointClosed, UnknownDestination

if TYPE_CHECKING:
    from transports.tap import Tap

__all__ = ["ChannelEndpoint", "Endpoint"]


class Endpoint(abc.ABC):
    """One party's connection to the network (see module docstring)."""

    party_id: int
    peers: frozenset[int]
    peer_errors: ErrorLog
    dropped: int
    _closed: bool
    _who: ClassVar[str] = "party"  # how error messages name this endpoint ("hub 0", "party 3")
    # class-level defaults (shared, not per instance: simulations hold 32,561 endpoints)
    gone: AbstractSet[int] = frozenset()
    cut_off: Mapping[int, str] = types.MappingProxyType({})

    def _init_endpoint(self, party_id: int, peers: Iterable[int]) -> None:
        self.party_id = int(party_id)
        # shared, not copied: 32,561 endpoints must not hold 32,561 sets each
        self.peers = peers if isinstance(peers, frozenset) else frozenset(int(p) for p in peers)
        self.peer_errors = ErrorLog()
        self.dropped = 0
        self._closed = False

    def _send_preamble(
        self, dst: int, payload: bytes, known: bool, tap: Tap | None = None
    ) -> bytes:
        """The send preamble: what every ``send`` checks and records before it moves ``payload``.

        ``known``: whether ``dst`` is in the deployment (each transport looks
        it up its own way, often getting its route in the same step).  Raises
        :class:`EndpointClosed` if this endpoint is closed, then
        :class:`UnknownDestination` if ``dst`` is not known.  Returns the
        payload as immutable ``bytes`` (a ``bytearray`` or ``memoryview`` is
        copied, so no receiver shares a mutable buffer), after recording it
        on ``tap`` (time, this party, ``dst``) when one is given.
        """
        if self._closed:
            raise self._closed_for_send()
        if not known:
            raise UnknownDestination(
                f"{self._who} {self.party_id}: unknown destination {dst!r} ({self._deployment()})"
            )
        if type(payload) is not bytes:
            payload = bytes(payload)
        if tap is not None:
            tap.record(trio.current_time(), self.party_id, dst, payload)
        return payload

    def _closed_for_send(self) -> EndpointClosed:
        """The error of a ``send`` on this endpoint once it is closed."""
        return EndpointClosed(f"{self._who} {self.party_id}: send on a closed endpoint")

    def _deployment(self) -> str:
        """What an :class:`UnknownDestination` message says the destination is missing from."""
        return "not in the roster"

    @abc.abstractmethod
    async def send(self, dst: int, payload: bytes) -> None:
        """Send ``payload`` to party ``dst`` (see module docstring)."""

    @abc.abstractmethod
    async def receive(self) -> tuple[int, bytes]:
        """Return the next ``(src, payload)`` addressed to this party."""

    @abc.abstractmethod
    async def aclose(self) -> None:
        """Close the endpoint (idempotent)."""

    def poll(self) -> tuple[int, bytes] | None:
        """A payload already delivered (as ``receive`` would return it), or ``None``."""
        return None

    async def refuse(self, peer: int, why: str) -> None:
        """Stop carrying ``peer``'s frames to this party where the transport can (module
        docstring); by default nothing: the driver drops them itself."""
        await trio.lowlevel.checkpoint()

    async def __aenter__(self) -> Endpoint:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class ChannelEndpoint(Endpoint):
    """An endpoint whose inbound payloads wait in a trio memory channel (memory, shards).

    Subclasses implement ``send``; receiving, polling and closing are the channel's.
    """

    def __init__(
        self, party_id: int, peers: Iterable[int], recv: trio.MemoryReceiveChannel[tuple[int, bytes]]
    ) -> None:
        self._init_endpoint(party_id, peers)
        self._recv = recv

    async def receive(self) -> tuple[int, bytes]:
        try:
            return await self._recv.receive()
        except (trio.ClosedResourceError, trio.EndOfChannel):
            raise EndpointClosed(f"party {self.party_id}: endpoint closed") from None

    def _deployment(self) -> str:
        return f"network has {len(self.peers)} parties"

    def poll(self) -> tuple[int, bytes] | None:
        try:
            return self._recv.receive_nowait()
        except trio.WouldBlock:
            return None
        except (trio.ClosedResourceError, trio.EndOfChannel):
            raise EndpointClosed(f"party {self.party_id}: endpoint closed") from None

    async def aclose(self) -> None:
        self.close()
        await trio.lowlevel.checkpoint()

    def close(self) -> None:
        """Synchronous close (no I/O needed)."""
        if not self._closed:
            self._closed = True
            self._recv.close()

    @property
    def closed(self) -> bool:
        return self._closed
