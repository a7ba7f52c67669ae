"""Run roles in the synchronous harness and watch them: the raw material of a trace.

The classroom changes no protocol.  It wraps each role in :class:`Observed`,
which forwards every call of the driver (``start``, ``receive``,
``on_timeout``) to the role unchanged and logs the role's state before and
after, how many messages the call returned and any peer error it raised.
The harness records every message as encoded (``transcript=True``); because
it encodes a call's messages right after the call returns, the log and the
transcript merge into one ordered sequence (:func:`record`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from mpc_rr.core import (
    DropAt,
    HarnessRunner,
    Message,
    PeerError,
    ProtocolAbort,
    Role,
    RunResult,
    Send,
    WireEvent,
)

__all__ = ["Call", "Observed", "Recording", "record", "state_of"]


def state_of(role: Role) -> str:
    """The state name of ``role`` as its own transition table names it (through wrappers)."""
    if isinstance(role, Observed):
        return state_of(role.inner)
    if isinstance(role, DropAt):
        return "CRASHED" if role.crashed else state_of(role.inner)
    return role.state.name


@dataclass(frozen=True)
class Call:
    """One call the driver made on a role, as :class:`Observed` saw it."""

    party: int
    kind: str  # "start" | "receive" | "deadline"
    src: int | None
    msg_type: str
    before: str
    after: str
    sends: int
    error: str = ""
    waiting: tuple[int, ...] = ()  # whom the role waited for before the call


class _ObservedState(enum.Enum):
    RUNNING = "running as the inner role"
    DONE = "done"
    ABORTED = "aborted"


class Observed(Role):
    """Forwards everything to ``inner`` and appends a :class:`Call` to ``log`` per call."""

    def __init__(self, inner: Role, log: list[Call]) -> None:
        super().__init__(inner.party_id, _ObservedState.RUNNING)
        self.inner = inner
        self.log = log
        self.message_types = inner.message_types
        self.run = inner.run

    def _call(self, kind: str, src: int | None, msg: Message | None, fn: Callable[[], list[Send]]) -> list[Send]:
        before = state_of(self.inner)
        waiting = tuple(sorted(self.inner.waiting_for()))
        name = type(msg).__name__ if msg is not None else ""
        try:
            sends = fn()
        except PeerError as exc:
            after = state_of(self.inner)
            self.log.append(Call(self.party_id, kind, src, name, before, after, 0, str(exc), waiting))
            raise
        after = state_of(self.inner)
        self.log.append(Call(self.party_id, kind, src, name, before, after, len(sends), "", waiting))
        return sends

    def start(self) -> list[Send]:
        return self._call("start", None, None, self.inner.start)

    def receive(self, src: int, msg: Message) -> list[Send]:
        return self._call("receive", src, msg, lambda: self.inner.receive(src, msg))

    def on_timeout(self) -> list[Send]:
        return self._call("deadline", None, None, self.inner.on_timeout)

    def waiting_for(self) -> AbstractSet[int]:
        return self.inner.waiting_for()

    @property
    def done(self) -> bool:
        return self.inner.done

    @property
    def result(self) -> Any:
        return self.inner.result

    @property
    def error(self) -> ProtocolAbort | None:
        return self.inner.error


@dataclass(frozen=True)
class Recording:
    """A finished run: the roles (unwrapped), the run result and the merged sequence.

    ``sequence`` holds, in order, each :class:`Call` followed by the
    :class:`~mpc_rr.core.WireEvent` s of the messages it sent.
    """

    roles: Mapping[int, Role]
    run: RunResult
    sequence: tuple[Call | WireEvent, ...]


def record(roles: Mapping[int, Role]) -> Recording:
    """Run ``roles`` in the harness (deterministic delivery order) and merge log and transcript."""
    log: list[Call] = []
    wrapped = {pid: Observed(r, log) for pid, r in roles.items()}
    run = HarnessRunner(transcript=True)(wrapped)
    if run.transcript is None:  # pragma: no cover - transcript=True always records
        raise RuntimeError("the harness recorded no transcript")
    events = iter(run.transcript.events)
    seq: list[Call | WireEvent] = []
    for call in log:
        seq.append(call)
        seq.extend(next(events) for _ in range(call.sends))
    leftover = list(events)
    if leftover:  # pragma: no cover - would mean the harness changed how it records
        raise RuntimeError(f"{len(leftover)} transcript events match no role call")
    return Recording(roles, run, tuple(seq))
