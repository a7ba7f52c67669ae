"""Transports move opaque byte payloads between party endpoints.

One interface (:class:`Endpoint`), two implementations: :mod:`transports.memory`
(simulation) and :mod:`transports.tcp` (TCP through a hub, mutual TLS by
default), plus :class:`Tap` wire observers.  Transports know nothing of
protocols.
"""

from transports.base import Endpoint
from transports.errors import EndpointClosed, TransportError, UnknownDestination
from transports.memory import LinkModel, MemoryEndpoint, MemoryNetwork
from transports.tap import Tap

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
