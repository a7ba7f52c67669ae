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

from collections.abc import Iterator

__all__ = ["RELAY", "DecodeError", "ErrorLog", "PeerError", "ProtocolAbort", "UsageError", "blame_json"]


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


RELAY = -1
"""The id that stands for the *relay* in :attr:`ProtocolAbort.suspects` (the transport hub
that carries messages between parties but plays no protocol role, e.g. the all-to-all full
mesh's hub).  Never a party id (those are ``>= 0``); in JSON it is the string ``"relay"``
(:func:`blame_json`)."""


class ProtocolAbort(Exception):
    """A protocol run stopped cleanly because it cannot produce a correct result.

    Raised (or stored as ``Role.error``) when, e.g., too many parties dropped
    for a secure sum to be reconstructed.

    ``culprits``: the parties *proven* responsible (their own signature on what
    was wrong, or an accountable relay that passed on what it should have
    refused).  ``suspects``: groups of which *at least one* member cheated, where
    the evidence cannot tell which (e.g. ``(v, RELAY)``: a message "from" ``v``
    with a bad signature was forged by ``v`` or changed by the relay that carried
    it); each group sorted, :data:`RELAY` for the relay.
    """

    def __init__(
        self, message: str, culprits: tuple[int, ...] = (), suspects: tuple[tuple[int, ...], ...] = ()
    ) -> None:
        super().__init__(message)
        self.culprits = culprits
        self.suspects = suspects


def blame_json(ids: tuple[int, ...] | list[int]) -> list[int | str]:
    """``ids`` for JSON: party ids as numbers, :data:`RELAY` as ``"relay"`` (the one
    representation of the relay in every JSON report)."""
    return ["relay" if i == RELAY else int(i) for i in ids]



# Tracebacks and reprs name the public home (``mpc_rr.core.UsageError``), not this private
# module; pickling resolves the same path through the package's lazy exports.
for _cls in (UsageError, PeerError, DecodeError, ProtocolAbort):
    _cls.__module__ = "mpc_rr.core"
del _cls

class ErrorLog:
    """A bounded record of :class:`PeerError` s: every error counted, a few kept per peer.

    A hostile peer can make a role or an endpoint reject messages forever; an
    unbounded list of errors (each with its traceback) is then a memory leak
    the attacker controls.  ``ErrorLog`` keeps the first ``keep_per_peer``
    errors of each peer with their traceback cleared, counts all of them, and
    remembers at most ``max_peers`` distinct peers in detail (the rest are
    only counted).  It behaves like a read-only list of the kept errors.
    """

    def __init__(self, keep_per_peer: int = 5, max_peers: int = 10_000) -> None:
        if keep_per_peer < 1 or max_peers < 1:
            raise UsageError("ErrorLog: keep_per_peer and max_peers must be >= 1")
        self.keep_per_peer = int(keep_per_peer)
        self.max_peers = int(max_peers)
        self.counts: dict[int | None, int] = {}
        self._kept: list[PeerError] = []
        self.total = 0

    def append(self, err: PeerError) -> None:
        self.total += 1
        peer = err.peer
        seen = self.counts.get(peer)
        if seen is None and len(self.counts) >= self.max_peers:
            peer = None  # too many distinct peers: count them under "unknown"
            seen = self.counts.get(None)
        self.counts[peer] = (seen or 0) + 1
        if (seen or 0) < self.keep_per_peer:
            self._kept.append(err.with_traceback(None))

    def __len__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        return self.total > 0

    def __iter__(self) -> Iterator[PeerError]:
        return iter(self._kept)

    def __getitem__(self, i: int) -> PeerError:
        return self._kept[i]

    @property
    def kept(self) -> list[PeerError]:
        return list(self._kept)

    def summary(self) -> list[str]:
        """The kept messages, plus one line per peer whose further errors were only counted."""
        out = [str(e) for e in self._kept]
        for peer, c in self.counts.items():
            if c > self.keep_per_peer:
                who = "unknown peers" if peer is None else f"party {peer}"
                out.append(f"... and {c - self.keep_per_peer} more errors from {who}")
        return out
