"""Sans-I/O protocol roles: the one interface every protocol implements.

A *role* is one party's side of a protocol, written as a pure state machine
(the h11 / wsproto style).  It never awaits, never touches sockets or clocks:

* ``start()`` returns the first messages to send;
* ``receive(src, msg)`` consumes one decoded message and returns the messages
  to send in reaction;
* ``on_timeout()`` is called by the driver when the current step's deadline
  passed; the role decides (proceed without the silent parties, e.g. treating
  them as dropouts, or abort);
* ``done`` / ``result`` / ``error`` tell the outcome.

Messages are routed by logical labels carried in the message (run id, round,
step) and by the authenticated sender id, never by arrival order, so the
relative order of messages from *different* senders cannot change a result.
Per-link (same sender, same receiver) order is preserved by every transport.

Party ids are non-negative ints.  By convention the coordinator / aggregator /
hub of a protocol is party ``0`` and data-holding parties are ``1..n`` (the
paper numbers parties from 1; Shamir evaluation points are the party ids).

Drivers: :mod:`mpc_rr.harness` (synchronous, no transport, can drop /
duplicate / reorder), and :mod:`parties` (trio actors over any transport).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any

from mpc_rr.errors import ProtocolAbort
from mpc_rr.messages import Message

__all__ = ["COORDINATOR", "Role", "Send", "broadcast"]

COORDINATOR = 0
"""Party id of the coordinator / aggregator / hub role by convention."""


@dataclass(frozen=True, slots=True)
class Send:
    """Instruction to send ``msg`` to party ``dst``."""

    dst: int
    msg: Message


def broadcast(dsts: Any, msg: Message) -> list[Send]:
    """One :class:`Send` per destination (each receiver gets its own encoded bytes)."""
    return [Send(int(d), msg) for d in dsts]


class Role(abc.ABC):
    """One party's side of a protocol.

    Subclasses set ``self._result`` / ``self._error`` and ``self._done``;
    ``error`` is a :class:`ProtocolAbort` when the run stopped cleanly without
    a correct result.
    """

    #: message classes this role can receive (the codec is built from them)
    message_types: tuple[type[Message], ...] = ()

    def __init__(self, party_id: int) -> None:
        self.party_id = int(party_id)
        self._done = False
        self._result: Any = None
        self._error: ProtocolAbort | None = None

    @abc.abstractmethod
    def start(self) -> list[Send]:
        """Begin the protocol; return the first messages to send."""

    @abc.abstractmethod
    def receive(self, src: int, msg: Message) -> list[Send]:
        """Consume one message from authenticated sender ``src``."""

    def on_timeout(self) -> list[Send]:
        """The current step's deadline passed.  Default: abort naming the silent parties."""
        missing = sorted(self.waiting_for())
        self.abort(f"party {self.party_id}: timed out waiting for parties {missing}", missing)
        return []

    def waiting_for(self) -> set[int]:
        """Parties whose message the role still needs for its current step."""
        return set()

    def abort(self, reason: str, culprits: Any = ()) -> None:
        """Stop cleanly without a result."""
        self._error = ProtocolAbort(reason, tuple(int(c) for c in culprits))
        self._done = True

    @property
    def done(self) -> bool:
        return self._done

    @property
    def result(self) -> Any:
        """The role's output; raises the stored :class:`ProtocolAbort` if it aborted."""
        if self._error is not None:
            raise self._error
        if not self._done:
            raise RuntimeError(f"party {self.party_id}: role {type(self).__name__} not done")
        return self._result

    @property
    def error(self) -> ProtocolAbort | None:
        return self._error
