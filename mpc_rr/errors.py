"""Error families of mpc_rr.

Two families, split by whose fault the problem is (the h11 convention):

* :class:`UsageError` -- *our caller* misused the API (bad parameter, wrong
  shape, unknown category).  Raised at once at the public boundary; the
  message names the parameter, the rule and the value received.
* :class:`PeerError` -- a *remote peer* misbehaved (malformed frame,
  unexpected message, wrong share length).  The message names the peer.
  Roles record it and either keep running (treating the peer as a dropout)
  or abort the protocol cleanly with :class:`ProtocolAbort`; they never
  return a silently wrong result.
"""

from __future__ import annotations

__all__ = ["DecodeError", "PeerError", "ProtocolAbort", "UsageError"]


class UsageError(ValueError):
    """The caller passed an invalid argument (local misuse)."""


class PeerError(Exception):
    """A remote peer sent something it should not have.

    Attributes
    ----------
    peer:
        Party id of the offending peer (``None`` when unknown, e.g. a TCP
        connection that never authenticated).
    """

    def __init__(self, message: str, peer: int | None = None) -> None:
        super().__init__(message)
        self.peer = peer


class DecodeError(PeerError):
    """A frame could not be decoded into a known, well-formed message."""


class ProtocolAbort(Exception):
    """A protocol run stopped cleanly because it cannot produce a correct result.

    Raised (or stored as ``Role.error``) when, e.g., too many parties dropped
    for a secure sum to be reconstructed.  ``culprits`` names the parties
    responsible where known.
    """

    def __init__(self, message: str, culprits: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.culprits = culprits
