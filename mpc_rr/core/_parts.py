"""A coordinator's work split over the processes of a sharded run (the same party, not a new one).

In a protocol where every data party sends its submission to the coordinator
(party 0), the coordinator's per-party work -- decoding, validating, storing,
tallying -- is serial in the one process that runs party 0, however many
cores the data parties have.  A :class:`RolePlan` may offer a
:class:`CoordinatorPart` for each shard of a sharded run
(:meth:`RolePlan.coordinator_part`): the shard's host hands it the payloads
its own parties address to party 0, and once per superstep the part sends
party 0 one :class:`PartTally` summing them up.  The part runs at the data
controller, like party 0 itself (it is party 0's code in another process of
the same deployment), so the trust model is unchanged: nothing reaches any
other party, and a data party sees exactly the messages it saw before.

A host counts the payloads a part took as party 0's received messages and
bytes (the tally says how many, and their round labels), so costs, links and
transcripts are those of the unsplit run; a tally is internal (it is neither
sent by a party nor counted as a message).  What the part refuses names the
sending party (``rejected``), and the host records each as a peer error of
party 0, as if party 0 had refused it itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Protocol

import msgspec

from mpc_rr.core._messages import Message

__all__ = ["CoordinatorPart", "PartTally"]


class PartTally(Message, frozen=True):
    """What a coordinator part hands party 0 for one superstep (base of a protocol's tally).

    ``messages`` / ``bytes``: the payloads it took for party 0 and their sizes;
    ``labels``: their distinct ``(run, step)`` round labels; ``rejected``:
    ``(party, reason)`` for each payload it refused.
    """

    messages: Annotated[int, msgspec.Meta(ge=0)] = 0
    bytes: Annotated[int, msgspec.Meta(ge=0)] = 0
    labels: list[tuple[str, int]] = msgspec.field(default_factory=list)
    rejected: list[tuple[int, str]] = msgspec.field(default_factory=list)


class CoordinatorPart(Protocol):
    """A shard's part of party 0's work (see the module docstring)."""

    def takes(self, msg: Message) -> bool:
        """Whether a payload a local party sends party 0 goes to this part."""

    def accept(self, src: int, data: bytes) -> None:
        """Take one payload of party ``src`` (its encoded bytes, as party 0 would receive it)."""

    @property
    def pending(self) -> int:
        """Payloads taken and not yet summed up in a tally."""

    def flush(self) -> Sequence[PartTally]:
        """The tallies of the payloads taken since the last flush (none if nothing was taken)."""
