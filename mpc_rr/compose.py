"""Running one role inside another (a sub-protocol), e.g. a secure sum inside the pipeline.

The outer role keeps a :class:`SubProtocol` and routes the inner role's
messages to it through the :class:`~mpc_rr.roles.SubMessage` event of its
transition table (``Role._is_sub_message`` tells which messages those are);
the inner role's sends pass through unchanged, and when it is done the outer
role reads ``result`` (or ``error``).  The inner role checks its own run label.
Message types of inner and outer protocols must be disjoint.
"""

from __future__ import annotations

from mpc_rr.messages import Message
from mpc_rr.roles import Role, Send

__all__ = ["SubProtocol"]


class SubProtocol:
    """An inner role plus the bookkeeping to drive it from an outer role."""

    def __init__(self, role: Role) -> None:
        self.role = role

    def accepts(self, msg: Message) -> bool:
        return isinstance(msg, self.role.message_types)

    def start(self) -> list[Send]:
        return self.role.start()

    def receive(self, src: int, msg: Message) -> list[Send]:
        """Hand ``msg`` to the inner role (ignored once it is done)."""
        return self.role.receive(src, msg)

    @property
    def done(self) -> bool:
        return self.role.done
