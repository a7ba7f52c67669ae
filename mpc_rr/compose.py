"""Running one role inside another (a sub-protocol), e.g. a secure sum inside the pipeline.

The outer role keeps a :class:`SubProtocol`; messages whose type belongs to
the inner role's ``message_types`` are handed to it, its sends pass through
unchanged, and when it is done the outer role reads ``result`` (or
``error``).  Timeouts and ``waiting_for`` are delegated while it runs.
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
        self.started = False

    def accepts(self, msg: Message) -> bool:
        return isinstance(msg, self.role.message_types)

    def start(self) -> list[Send]:
        self.started = True
        return self.role.start()

    def receive(self, src: int, msg: Message) -> list[Send]:
        if self.role.done:
            return []  # late message for a finished sub-protocol: nothing to do
        return self.role.receive(src, msg)

    @property
    def done(self) -> bool:
        return self.role.done
