"""Exceptions raised by transports (one place, translated from trio/OS errors)."""

from __future__ import annotations

from mpc_rr.core import UsageError

__all__ = ["EndpointClosed", "HandshakeDropped", "TransportError", "UnknownDestination"]


class TransportError(Exception):
    """Base of the transport-level errors."""


class HandshakeDropped(TransportError):
    """The hub closed the connection before its welcome (e.g. it shed pending handshakes
    under a flood of outsiders), or refused it for a reason that may pass (the party's
    previous connection is still being closed): worth retrying."""


class UnknownDestination(TransportError, UsageError):
    """``send`` was called with a party id that is not part of the deployment."""


class EndpointClosed(TransportError):
    """The endpoint was closed (locally, or its connection to the hub is gone)."""
