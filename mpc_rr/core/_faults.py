"""Test doubles for roles (as ``trio.testing`` is for trio): crash a party on purpose.

Not used by the product's runs; tests, fault campaigns and classroom traces
wrap roles in them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from mpc_rr.core._errors import ProtocolAbort
from mpc_rr.core._messages import Message
from mpc_rr.core._parts import CoordinatorPart
from mpc_rr.core._roles import NOBODY, Deadline, Role, Send, SubMessage, Transition, table
from mpc_rr.core._runs import Progress, RolePlan

__all__ = ["DropAt", "DropPlan", "DropPoint"]

DropPoint = type[Message] | tuple[type[Message], ...]
"""Where a party crashes: before it sends a message of this class (or of any of these: a
step whose message differs by role, e.g. SecAgg+'s consistency step, where only the
committee signs and the others' next message is their unmask shares)."""


class _DropState(enum.Enum):
    RUNNING = "running as the inner role (done, result and error are the inner role's)"
    DONE = "crashed: a dropout, done with neither result nor error"
    ABORTED = "aborted"


# A DropAt is its inner role plus one edge: everything goes to the inner role (its messages,
# whatever their type, and its deadlines) and what it would send comes back -- until it would
# send an ``at`` message: then the party crashes instead (DONE), sends nothing more and
# ignores everything.  An inner role that ends ends the DropAt with it (``done``).
_DROP_TABLE = table({
    (_DropState.RUNNING, SubMessage): Transition(
        "_pass_message", _DropState.RUNNING, also=(_DropState.DONE,)  # crashed
    ),
    (_DropState.RUNNING, Deadline): Transition(
        "_pass_deadline", _DropState.RUNNING, also=(_DropState.DONE,)  # crashed
    ),
})


class DropAt(Role):
    """Behaves like ``inner`` until it would send an ``at`` message (:data:`DropPoint`), then crashes.

    The crashed party sends nothing more and ignores everything (``done``,
    with neither result nor error): what a dropout looks like to everyone
    else.  ``crashed`` tells whether it happened; ``on_crash`` is called at that
    moment (the fault campaign passes a real ``kill -9`` of the process).
    """

    TRANSITIONS = _DROP_TABLE

    def __init__(
        self, inner: Role, at: DropPoint, *, on_crash: Callable[[], None] | None = None
    ) -> None:
        super().__init__(inner.party_id, _DropState.RUNNING)
        self.inner = inner
        self.at = at
        self.on_crash = on_crash
        self.message_types = inner.message_types
        self.run = inner.run
        self.crashed = False

    def _filter(self, sends: list[Send]) -> list[Send]:
        if any(isinstance(s.msg, self.at) for s in sends):
            self.crashed = True
            self.finish(None)
            if self.on_crash is not None:  # e.g. a real SIGKILL of this process
                self.on_crash()
            return []
        return sends

    def start(self) -> list[Send]:
        return self._filter(self.inner.start())

    def _is_sub_message(self, msg: Message) -> bool:
        return True  # every message is the inner role's (it checks the run label itself)

    def _pass_message(self, src: int, msg: Message) -> list[Send]:
        return self._filter(self.inner.receive(src, msg))

    def _pass_deadline(self) -> list[Send]:
        return self._filter(self.inner.on_timeout())

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self.inner.waiting_for()

    @property
    def done(self) -> bool:
        return self.crashed or self.inner.done

    @property
    def result(self) -> Any:
        """``None`` once crashed (a dropout has no result), else the inner role's."""
        return None if self.crashed else self.inner.result

    @property
    def error(self) -> ProtocolAbort | None:
        return None if self.crashed else self.inner.error


class DropPlan(RolePlan):
    """A :class:`~mpc_rr.core.RolePlan` whose parties ``victims`` are wrapped in :class:`DropAt`.

    ``victims`` maps a party to the message class it crashes before sending;
    the wrapping happens where the roles are built (in a worker, for a sharded run).
    """

    def __init__(self, inner: RolePlan, victims: Mapping[int, DropPoint]) -> None:
        self.inner = inner
        self.victims = {int(v): at for v, at in victims.items()}
        self.progress = inner.progress

    @property
    def parties(self) -> tuple[int, ...]:
        return self.inner.parties

    def subset(self, ids: Sequence[int]) -> DropPlan:
        keep = set(self._check_subset(ids))
        return DropPlan(self.inner.subset(ids), {v: at for v, at in self.victims.items() if v in keep})

    def coordinator_part(self, ids: Sequence[int]) -> CoordinatorPart | None:
        return self.inner.coordinator_part(ids)  # a crashed party sends nothing: the part sees less

    def prechecks(self) -> Mapping[int, Callable[[int, Message], bool]]:
        return self.inner.prechecks()

    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        roles = self.inner.build(progress)
        for v, at in self.victims.items():
            if v in roles:
                roles[v] = DropAt(roles[v], at)
        return roles
