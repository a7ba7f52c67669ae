"""A fixed one-way delay on every payload a party sends: an emulated network on loopback.

This machine's kernel offers no ``netem``, so to measure a real TCP + TLS
deployment under a known network delay (and check the projected wall time
of :mod:`transports.network_profiles` against it) each party's endpoint
holds every payload it sends for ``delay`` seconds before handing it to the
real endpoint.  On the TCP star every message makes one such hop through
the hub (``i -> hub`` for the hub, ``i -> hub -> j`` relayed at once), so
each message is late by exactly ``delay``, the ``latency`` of a
:class:`~transports.memory.LinkModel` on every link.

Payloads leave in the order they were sent (one delay line per endpoint; a
constant delay keeps it sorted), so per-link FIFO order holds; the sender
never waits for the delay (it runs in the delay line's task).
"""

from __future__ import annotations

import math
from typing import Any

import trio

from mpc_rr.core import UsageError
from transports.base import Endpoint
from transports.errors import EndpointClosed

__all__ = ["DelayedEndpoint"]


class DelayedEndpoint(Endpoint):
    """``inner`` with every ``send`` delivered ``delay`` seconds later (see the module docstring).

    :meth:`run` is the delay line: start it in a nursery that outlives the
    party (``nursery.start_soon(ep.run)``); everything but ``send`` is the
    inner endpoint's.
    """

    def __init__(self, inner: Endpoint, delay: float) -> None:
        if not (math.isfinite(delay) and delay >= 0):
            raise UsageError(f"DelayedEndpoint: delay must be finite and >= 0 seconds, got {delay!r}")
        self.inner = inner
        self.delay = float(delay)
        self._in, self._out = trio.open_memory_channel[tuple[float, int, bytes]](math.inf)

    def __getattr__(self, name: str) -> Any:  # party_id, peers, peer_errors, dropped, ...
        return getattr(self.inner, name)

    async def send(self, dst: int, payload: bytes) -> None:
        try:
            if dst not in self.inner.peers:
                raise KeyError(dst)
            self._in.send_nowait((trio.current_time() + self.delay, dst, bytes(payload)))
        except (KeyError, trio.ClosedResourceError):
            await self.inner.send(dst, payload)  # raises the inner endpoint's own error at once

    async def run(self) -> None:
        """Pass every held payload on when due; returns once the endpoint is closed."""
        async for due, dst, payload in self._out:
            await trio.sleep_until(due)
            try:
                await self.inner.send(dst, payload)
            except EndpointClosed:
                return

    async def receive(self) -> tuple[int, bytes]:
        return await self.inner.receive()

    def poll(self) -> tuple[int, bytes] | None:
        return self.inner.poll()

    async def aclose(self) -> None:
        self._in.close()
        await self.inner.aclose()
