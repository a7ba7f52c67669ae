"""Transports move opaque byte payloads between party endpoints.

One interface (:class:`Endpoint`), two implementations: :mod:`transports.memory`
(simulation) and :mod:`transports.tcp` (TCP through a hub, mutual TLS by
default), plus :class:`Tap` wire observers.  Transports know nothing of
protocols.  :mod:`transports.testing` is the conformance suite every
transport passes, with connected endpoints of each kind for tests.

The names below are loaded on first use (PEP 562), so that importing one
submodule -- a multi-process runner needs only :mod:`transports.pki` before
its parties start -- does not import trio and the memory network too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

if TYPE_CHECKING:
    from transports.base import Endpoint
    from transports.errors import EndpointClosed, TransportError, UnknownDestination
    from transports.memory import LinkModel, MemoryEndpoint, MemoryNetwork
    from transports.tap import Tap

_WHERE = {
    "Endpoint": "transports.base",
    "EndpointClosed": "transports.errors",
    "TransportError": "transports.errors",
    "UnknownDestination": "transports.errors",
    "LinkModel": "transports.memory",
    "MemoryEndpoint": "transports.memory",
    "MemoryNetwork": "transports.memory",
    "Tap": "transports.tap",
}

__all__ = [
    "Endpoint",
    "EndpointClosed",
    "LinkModel",
    "MemoryEndpoint",
    "MemoryNetwork",
    "Tap",
    "TransportError",
    "UnknownDestination",
]


__getattr__, __dir__ = lazy_exports("transports", _WHERE, globals())
