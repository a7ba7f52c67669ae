"""Running one role inside another (a sub-protocol), e.g. a secure sum inside the pipeline.

The outer role keeps a :class:`SubProtocol` and routes the inner role's
messages to it through the :class:`~mpc_rr.core.SubMessage` event of its
transition table (``Role._is_sub_message`` tells which messages those are);
the inner role's sends pass through, and when it is done the outer role reads
``result`` (or ``error``).  The inner role checks its own run label.
Message types of inner and outer protocols must be disjoint.

A sub-protocol may run among *some* of the outer parties (RRBA's secure
tally sums one block of clients at a time): ``members[j - 1]`` is then the
outer id of inner party ``j``, and inner party 0 is outer party 0.  The inner
role only ever sees inner ids; :class:`SubProtocol` translates the sender of
every message it hands in and the destination of every message it hands
out, so protocols written for parties ``1..n`` run unchanged.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet

from mpc_rr.core._errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.core._messages import Message
from mpc_rr.core._roles import (
    COORDINATOR,
    NOBODY,
    AllIn,
    Deadline,
    Event,
    Handler,
    Role,
    Send,
    SubMessage,
    Transition,
)

__all__ = ["SubProtocol", "SubProtocolHost", "sub_protocol_steps"]


class SubProtocol:
    """An inner role plus the bookkeeping to drive it from an outer role.

    ``members=None``: inner and outer ids are the same.  Otherwise the
    relabelling described in the module docstring.
    """

    def __init__(self, role: Role, members: Sequence[int] | None = None) -> None:
        self.role = role
        self._outer: tuple[int, ...] | None = None
        self._inner: dict[int, int] = {}
        if members is not None:
            outer = tuple(int(m) for m in members)
            if COORDINATOR in outer or len(set(outer)) != len(outer):
                raise UsageError(
                    f"SubProtocol: members must be distinct outer ids other than {COORDINATOR}"
                )
            self._outer = (COORDINATOR, *outer)
            self._inner = {o: i for i, o in enumerate(self._outer)}

    def accepts(self, msg: Message) -> bool:
        return isinstance(msg, self.role.message_types)

    def is_member(self, outer: int) -> bool:
        """Whether outer party ``outer`` takes part (always true without ``members``)."""
        return self._outer is None or outer in self._inner

    def outer_id(self, inner: int) -> int:
        return inner if self._outer is None else self._outer[inner]

    def _out(self, sends: list[Send]) -> list[Send]:
        if self._outer is None:
            return sends
        return [Send(self._outer[s.dst], s.msg) for s in sends]

    def start(self) -> list[Send]:
        return self._out(self.role.start())

    def receive(self, src: int, msg: Message, *, prechecked: bool = False) -> list[Send]:
        """Hand ``msg`` from outer party ``src`` to the inner role (ignored once it is done;
        ``prechecked``: by :meth:`~mpc_rr.core.Role.receive_prechecked`, when the host got it so).

        A sender that is not a member, and any :class:`PeerError` of the inner
        role, raise :class:`PeerError` naming the *outer* party.
        """
        if self._outer is None:
            return (self.role.receive_prechecked if prechecked else self.role.receive)(src, msg)
        inner = self._inner.get(src)
        if inner is None:
            raise PeerError(
                f"{type(msg).__name__} from party {src}, which is not in this sub-protocol", src
            )
        try:
            return self._out(self.role.receive(inner, msg))
        except PeerError as exc:
            peer = src if exc.peer is None else self.outer_id(exc.peer)
            raise PeerError(f"{exc} (inner party {exc.peer} is party {peer})", peer) from None

    def on_timeout(self) -> list[Send]:
        return self._out(self.role.on_timeout())

    def waiting_for(self) -> AbstractSet[int]:
        """Outer ids of the parties the inner role still waits for (a view, no copy)."""
        inner = self.role.waiting_for()
        if self._outer is None:
            return inner
        return _Relabelled(inner, self._outer, self._inner)

    @property
    def done(self) -> bool:
        return self.role.done


class _Relabelled(AbstractSet[int]):
    """A read-only view of an inner id set under the outer ids (O(1) size and membership)."""

    def __init__(self, inner: AbstractSet[int], outer: tuple[int, ...], to_inner: dict[int, int]) -> None:
        self._set, self._outer, self._to_inner = inner, outer, to_inner

    def __len__(self) -> int:
        return len(self._set)

    def __iter__(self) -> Iterator[int]:
        return (self._outer[i] for i in self._set)

    def __contains__(self, x: object) -> bool:
        i = self._to_inner.get(x) if isinstance(x, int) else None
        return i is not None and i in self._set


class SubProtocolHost(Role):
    """A role that runs a sub-protocol in some of its states: the one way to delegate.

    The subclass attaches the inner role with :meth:`attach_sub` (its
    message types join the host's codec), starts it with :meth:`start_sub`,
    and, for each state in which it runs, puts :func:`sub_protocol_steps` in
    its transition table: inner messages go to :meth:`_forward_sub`, a
    deadline to the inner role's :meth:`~mpc_rr.core.Role.on_timeout`, and
    "all in" -- the inner role finished or aborted -- to the host's own
    handler, which reads :meth:`sub_error` / the inner result.  While the
    inner role runs, :meth:`sub_waiting` is what the host waits for.

    :meth:`_admit_sub` is the one place a host filters inner messages (a
    sender that is not its peer in this step, a late message of a closed
    sub-protocol); the default admits everything.
    """

    sub: SubProtocol | None = None

    def attach_sub(self, role: Role, members: Sequence[int] | None = None) -> SubProtocol:
        """Run ``role`` as this host's sub-protocol (``members``: see :class:`SubProtocol`)."""
        self.sub = SubProtocol(role, members)
        missing = tuple(t for t in role.message_types if t not in self.message_types)
        if missing:
            self.message_types = tuple(self.message_types) + missing
        return self.sub

    def start_sub(self) -> list[Send]:
        """The inner role's first messages (relabelled to outer ids)."""
        if self.sub is None:
            raise UsageError(f"{self.name}: no sub-protocol attached")
        return self.sub.start()

    def sub_waiting(self) -> AbstractSet[int]:
        """What the running inner role waits for (outer ids; nothing once it ended)."""
        if self.sub is None or self.sub.done:
            return NOBODY
        return self.sub.waiting_for()

    def sub_error(self) -> ProtocolAbort | None:
        return None if self.sub is None else self.sub.role.error

    def _is_sub_message(self, msg: Message) -> bool:
        return self.sub is not None and self.sub.accepts(msg)

    def _admit_sub(self, src: int, msg: Message) -> bool:
        """Whether the inner message ``msg`` from ``src`` goes to the inner role (raise
        :class:`PeerError` to report the sender; return ``False`` to drop it quietly)."""
        return True

    def _forward_sub(self, src: int, msg: Message) -> list[Send]:
        if self.sub is None:
            raise PeerError(f"{self.name}: {type(msg).__name__} from party {src}, no sub-protocol runs", src)
        if not self._admit_sub(src, msg):
            return []
        return self.sub.receive(src, msg, prechecked=self.prechecked)  # an inner role that ended ignores it

    def _sub_deadline(self) -> list[Send]:
        return [] if self.sub is None else self.sub.on_timeout()


def sub_protocol_steps(
    state: enum.Enum, after: Handler | str, then: enum.Enum, *, also: tuple[enum.Enum, ...] = ()
) -> dict[tuple[enum.Enum, Event], Transition]:
    """Table entries of a :class:`SubProtocolHost` state in which the inner role runs:
    inner messages and deadlines go to it; when it ended ("all in"), ``after`` runs
    and the host moves to ``then`` (or to one of ``also``, see :class:`Transition`)."""
    return {
        (state, SubMessage): Transition("_forward_sub", state),
        (state, Deadline): Transition("_sub_deadline", state),
        (state, AllIn): Transition(after, then, also),
    }
