"""Sans-I/O protocol roles: one interface, one table-driven dispatch.

A *role* is one party's side of a protocol, written as a pure state machine
(the h11 / wsproto style).  It never awaits, never touches sockets or clocks:

* ``start()`` returns the first messages to send;
* ``receive(src, msg)`` consumes one decoded message and returns the messages
  to send in reaction;
* ``on_timeout()`` is called by the driver when the current step's deadline
  passed without progress;
* ``done`` / ``result`` / ``error`` tell the outcome.

Every role declares its legal transitions as ONE literal table,
``TRANSITIONS: {(state, event): Transition(handler, next_state)}``, where a
state is a member of the role's :class:`enum.Enum` and an event is a message
class or one of three pseudo-events:

* :class:`AllIn` -- everything the current step waits for has arrived
  (``waiting_for()`` is empty); checked after every accepted message;
* :class:`Deadline` -- the driver's step deadline passed;
* :class:`SubMessage` -- a message of a sub-protocol the role is running
  (:mod:`mpc_rr.core._compose`).

:meth:`Role.receive` is the only dispatch: it looks the pair up, calls the
handler, then moves to the table's next state -- handlers never set the state.
Anything not in the table raises :class:`~mpc_rr.core.PeerError` "cannot
handle X from party P in state S".  A handler that ends the run calls
``self.finish(result)`` or ``self.abort(reason, culprits)``, which move the
role to its enum's ``DONE`` / ``ABORTED`` member.  The table doubles as the
protocol's state diagram (:func:`state_diagram`), so it is written where it
reads as one: right under the role's State enum, next to a short "how this
protocol works", with the handlers named as strings (the methods follow
below).  Nothing the diagram does not show happens:

* :func:`table` refuses a table in which some state cannot reach ``DONE`` or
  ``ABORTED`` by its edges (it names the stuck states);
* a handler that may end the run in another state than its transition's
  ``to`` (a loop that stops when the work runs out) declares it,
  ``Transition("_open_block", S.COLLECTING, also=(S.DONE,))``; ``abort`` needs
  no declaration (any step may meet a peer that forces it), and a handler
  that calls ``finish`` where its transition declares no ``DONE`` raises a
  :class:`~mpc_rr.core.UsageError`;
* every handler a class's table names must be one of its methods, checked
  when the class is created (the error names the role, the state, the event
  and the missing name).

Deadlines: a ``(state, Deadline)`` entry decides what a passed deadline means
in that state (typically: the silent parties are dropouts, close the step).
Without one, the role waits ``patience`` deadlines in a row without progress
and then aborts naming the parties it waits for (``waiting_for()``); a data
party waiting for its aggregator uses a patience that covers the
aggregator's own deadlines.  Drivers just call ``on_timeout`` whenever a
deadline passes; they never count.

Messages are routed by logical labels carried in the message (run id, round,
step) and by the authenticated sender id, never by arrival order.  Party ids
are non-negative ints; the coordinator / aggregator / hub is party ``0`` and
data-holding parties are ``1..n`` (Shamir evaluation points are the ids).

Drivers: :mod:`mpc_rr.core._harness` (synchronous, no transport) and the Party
actors of :mod:`parties` (trio, over any transport).
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from mpc_rr.core._errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.core._messages import Message

__all__ = [
    "COORDINATOR",
    "NOBODY",
    "ONLY_COORDINATOR",
    "AllIn",
    "Deadline",
    "Event",
    "Handler",
    "Role",
    "Send",
    "SubMessage",
    "Transition",
    "broadcast",
    "each",
    "state_diagram",
    "table",
]

COORDINATOR = 0
"""Party id of the coordinator / aggregator / hub role by convention."""

NOBODY: frozenset[int] = frozenset()
"""``waiting_for()`` of a role that waits for no one."""

ONLY_COORDINATOR: frozenset[int] = frozenset({COORDINATOR})
"""``waiting_for()`` of a data party waiting for the coordinator."""


@dataclass(frozen=True, slots=True)
class Send:
    """Instruction to send ``msg`` to party ``dst``."""

    dst: int
    msg: Message


def broadcast(dsts: Iterable[int], msg: Message) -> list[Send]:
    """One :class:`Send` per destination (a driver encodes the shared object once)."""
    return [Send(int(d), msg) for d in dsts]


class _PseudoEvent:
    """Base of the table's pseudo-events (never sent on a wire)."""

    label: ClassVar[str] = ""


class AllIn(_PseudoEvent):
    """Everything the current step waits for has arrived (``waiting_for()`` is empty)."""

    label = "all in"


class Deadline(_PseudoEvent):
    """The driver's step deadline passed."""

    label = "deadline"


class SubMessage(_PseudoEvent):
    """A message belonging to the sub-protocol the role is running."""

    label = "sub-protocol message"


Event = type[Message] | type[_PseudoEvent]
Handler = Callable[..., list[Send]]


@dataclass(frozen=True, slots=True)
class Transition:
    """What an event does in a state: call ``handler``, then move to ``to``.

    ``handler(role, src, msg)`` for a message or sub-protocol message,
    ``handler(role)`` for :class:`AllIn` / :class:`Deadline`.  It returns the
    messages to send.  The handler is called by name on the role, so
    subclasses may override it; give it as that name (a string), so the table
    can stand above the methods it names.

    If the handler finished or aborted the role, the role stays in ``DONE`` /
    ``ABORTED`` instead of moving to ``to``.  ``also`` lists the other states
    the handler may leave the role in -- the diagram's other edges for this
    event (in practice ``DONE``: a loop that ends when its work runs out).
    ``ABORTED`` need not be listed: any handler may abort.
    """

    handler: Handler | str
    to: enum.Enum
    also: tuple[enum.Enum, ...] = ()
    #: the handler's method name (what the dispatch looks up on the role)
    name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        h = self.handler
        object.__setattr__(self, "name", h if isinstance(h, str) else h.__name__)
        also = tuple(self.also)
        if not all(isinstance(a, enum.Enum) for a in (self.to, *also)):
            raise UsageError(
                f"Transition({self.name!r}): 'to' and 'also' must be State enum members, "
                f"got {self.to!r} and {self.also!r}"
            )
        object.__setattr__(self, "also", also)

    @property
    def handler_name(self) -> str:
        return self.name


_Table = Mapping[tuple[enum.Enum, Event], Transition]


def _label(event: Event) -> str:
    return event.label if issubclass(event, _PseudoEvent) else event.__name__


def table(entries: _Table) -> _Table:
    """A role's transition table, frozen (read-only) and checked.

    Checks: one State enum throughout, with ``DONE`` and ``ABORTED`` members;
    every state the table names (a source, a ``to`` or an ``also``) can reach
    ``DONE`` or ``ABORTED`` by the table's edges.  A :class:`UsageError` names
    what is wrong.
    """
    enums = {type(s) for s, _ in entries}
    for t in entries.values():
        enums |= {type(t.to), *(type(a) for a in t.also)}
    if len(enums) > 1:
        raise UsageError(f"transition table mixes state enums {sorted(e.__name__ for e in enums)}")
    frozen = MappingProxyType(dict(entries))
    if not enums:
        return frozen
    (states,) = enums
    if not {"DONE", "ABORTED"} <= set(states.__members__):
        raise UsageError(f"transition table over {states.__name__}: its State enum needs DONE and ABORTED members")
    ends = {states["DONE"], states["ABORTED"]}
    named: set[enum.Enum] = set()
    edges: dict[enum.Enum, set[enum.Enum]] = {}
    for (s, _), t in entries.items():
        named |= {s, t.to, *t.also}
        edges.setdefault(s, set()).update((t.to, *t.also))
    reach = set(ends)
    grew = True
    while grew:  # states with an edge into what already reaches an end, to a fixed point
        new = {s for s, dst in edges.items() if s not in reach and dst & reach}
        reach |= new
        grew = bool(new)
    stuck = [s.name for s in states if s in named and s not in reach]
    if stuck:
        raise UsageError(
            f"transition table over {states.__name__}: states {stuck} cannot reach DONE or "
            f"ABORTED by its transitions (declare a handler's other outcomes with "
            f"Transition(..., also=(...)))"
        )
    return frozen


def each(
    states: Iterable[enum.Enum], event: Event, handler: Handler | str, to: enum.Enum | None = None
) -> dict[tuple[enum.Enum, Event], Transition]:
    """Table entries for ``event`` in every state of ``states`` (``to=None``: stay)."""
    return {(s, event): Transition(handler, s if to is None else to) for s in states}


class Role(abc.ABC):
    """One party's side of a protocol (see the module docstring).

    Subclasses define ``State`` (an :class:`enum.Enum` with ``DONE`` and
    ``ABORTED`` members), ``TRANSITIONS`` and ``initial``; they implement
    ``start`` and ``waiting_for``, and set ``message_types`` (the codec is
    built from it; it may be an instance attribute when a sub-protocol adds
    types).

    A role whose protocol differs by configuration (RRBA's plain and secure
    tallies) lists every table it may run in ``TABLES`` and, in ``__init__``,
    sets ``self.TRANSITIONS`` to the one it runs.
    """

    #: the role's transition table (:func:`table`), its state diagram
    TRANSITIONS: _Table = MappingProxyType({})
    #: every table an instance may run, when it chooses one at construction (checked as
    #: ``TRANSITIONS`` is)
    TABLES: ClassVar[tuple[_Table, ...]] = ()
    #: message classes this role can receive
    message_types: tuple[type[Message], ...] = ()
    #: consecutive deadlines without progress tolerated where the table has no Deadline entry
    patience: int = 1
    #: run label every message of this role carries (sub-protocol messages carry their own)
    run: str = ""
    #: true while the role handles a message that already passed its stateless checks in a
    #: trusted co-worker of this same party (:meth:`receive_prechecked`)
    prechecked: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Check, once per class, that every handler its table names is one of its methods."""
        super().__init_subclass__(**kwargs)
        for transitions in (cls.TRANSITIONS, *cls.TABLES):
            for (state, event), t in transitions.items():
                if not callable(getattr(cls, t.name, None)):
                    raise UsageError(
                        f"{cls.__name__}: the transition ({state.name}, {_label(event)}) names "
                        f"handler {t.name!r}, which is not a method of {cls.__name__}"
                    )

    def __init__(self, party_id: int, initial: enum.Enum) -> None:
        self.party_id = int(party_id)
        self.state: enum.Enum = initial
        self._result: Any = None
        self._error: ProtocolAbort | None = None
        self._idle_deadlines = 0
        states = type(initial)
        if not {"DONE", "ABORTED"} <= set(states.__members__):
            raise UsageError(f"{type(self).__name__}: State enum needs DONE and ABORTED members")
        self._ended = (states["DONE"], states["ABORTED"])  # `done` is asked several times a message

    # -- the interface drivers use ----------------------------------------------------
    @abc.abstractmethod
    def start(self) -> list[Send]:
        """Begin the protocol; return the first messages to send."""

    def waiting_for(self) -> AbstractSet[int]:
        """Parties whose message the role still needs for its current step.

        Return state the role keeps (a set it updates as messages arrive), not
        one computed per call: the dispatch tests it for emptiness after every
        accepted message, so that test must cost O(1) -- a role that rebuilt
        an n-element set here would make a run of n parties O(n^2).  Callers
        treat the result as read-only (copy it to change it).
        """
        return NOBODY

    def receive(self, src: int, msg: Message) -> list[Send]:
        """Consume one message from authenticated sender ``src`` (the one dispatch)."""
        if self.done:
            return []
        event: Event = type(msg)
        t = self.TRANSITIONS.get((self.state, event))
        if t is None and self._is_sub_message(msg):
            event = SubMessage
            t = self.TRANSITIONS.get((self.state, SubMessage))
        if t is None:
            raise PeerError(
                f"{self.name}: cannot handle {type(msg).__name__} from party {src} "
                f"in state {self.state.name}",
                src,
            )
        if event is not SubMessage and msg.run != self.run:
            raise PeerError(
                f"{self.name}: {type(msg).__name__} from party {src} is labelled run "
                f"{msg.run[:64]!r}, this run is {self.run!r}",
                src,
            )
        self._idle_deadlines = 0
        return self._fire(t, src, msg)

    def refused(self) -> list[PeerError]:
        """Refusals found in the last message when it stood for many parties' (a coordinator
        part's tally, :mod:`mpc_rr.core._parts`), each naming its party; returned once, for the
        host to record as it records a :class:`PeerError` raised by :meth:`receive`."""
        return []

    def receive_prechecked(self, src: int, msg: Message) -> list[Send]:
        """:meth:`receive` of a message whose *stateless* checks (signatures, hashes: a pure
        function of the message, its sender and the run's public parameters) a trusted
        co-worker of this same party already ran and passed -- another of its processes, as
        a deployment spreads one party's work over its cores
        (:meth:`~mpc_rr.core.RolePlan.prechecks`).  The role may skip them while
        :attr:`prechecked` is true; everything else it checks as always.  Only the party's
        own runtime calls this, never on a peer's word; a role that checks nothing
        statelessly is unaffected."""
        self.prechecked = True
        try:
            return self.receive(src, msg)
        finally:
            self.prechecked = False

    def on_timeout(self) -> list[Send]:
        """The current step's deadline passed (see module docstring)."""
        if self.done:
            return []
        t = self.TRANSITIONS.get((self.state, Deadline))
        if t is not None:
            return self._fire(t)
        self._idle_deadlines += 1
        if self._idle_deadlines >= self.patience:
            missing = sorted(self.waiting_for())
            culprits, suspects = self.blame_silent(missing)
            self.abort(f"{self.name}: timed out waiting for parties {missing}", culprits, suspects)
        return []

    def blame_silent(self, missing: list[int]) -> tuple[list[int], list[tuple[int, ...]]]:
        """``(culprits, suspects)`` for parties that stayed silent past the patience: the
        silent parties themselves by default; a role whose messages cross an unaccountable
        relay overrides it (the relay may have dropped them: ``(v, RELAY)`` suspects)."""
        return missing, []

    # -- ending ---------------------------------------------------------------------
    def finish(self, result: Any) -> None:
        """End with ``result`` (state ``DONE``)."""
        self._result = result
        self.state = self._ended[0]

    def abort(self, reason: str, culprits: Iterable[int] = (), suspects: Iterable[Iterable[int]] = ()) -> None:
        """Stop cleanly without a result (state ``ABORTED``); ``culprits`` (proven) by id,
        ``suspects``: groups of which at least one member cheated (:class:`ProtocolAbort`)."""
        if not self.done:
            groups = tuple(sorted({tuple(sorted(int(i) for i in g)) for g in suspects}))
            self._error = ProtocolAbort(reason, tuple(int(c) for c in culprits), groups)
            self.state = self._ended[1]

    def abort_on_word_of(self, teller: int, reason: str, named: Iterable[int]) -> None:
        """Stop on ``teller``'s claim, which this party cannot check, that ``named`` failed (a
        board's or a leader's abort notice): the suspects are ``{teller, c}`` for each ``c`` named
        (nobody proven) -- unless it names this party, which knows itself honest: then
        ``teller`` is the culprit."""
        named = [int(c) for c in named]
        if self.party_id in named:
            self.abort(reason + " -- naming me, falsely", [teller])
        else:
            self.abort(reason, [], [(teller, c) for c in named])

    @property
    def done(self) -> bool:
        return self.state in self._ended

    @property
    def result(self) -> Any:
        """The role's output; raises the stored :class:`ProtocolAbort` if it aborted."""
        if self._error is not None:
            raise self._error
        if not self.done:
            raise RuntimeError(f"{self.name}: not done (state {self.state.name})")
        return self._result

    @property
    def error(self) -> ProtocolAbort | None:
        return self._error

    @property
    def name(self) -> str:
        """``"<role class> <party id>"``, the prefix of every message this role raises."""
        return f"{type(self).__name__} {self.party_id}"

    # -- dispatch internals -----------------------------------------------------------
    def _is_sub_message(self, msg: Message) -> bool:
        return False

    def _fire(self, t: Transition, *args: Any) -> list[Send]:
        # looked up by name on the instance, so a subclass (e.g. an adversary's modified
        # role) overrides a step by overriding the method, without copying the table
        sends: list[Send] = getattr(self, t.name)(*args)
        if not self.done:
            self.state = t.to
        elif self.state is self._ended[0] and t.to is not self.state and self.state not in t.also:
            raise UsageError(
                f"{self.name}: {t.name} finished the run, but its transition leads to "
                f"{t.to.name}; declare it: Transition({t.name!r}, ..., also=({self.state.name},))"
            )
        return sends + self._check_all_in()

    def _check_all_in(self) -> list[Send]:
        if self.done:
            return []
        t = self.TRANSITIONS.get((self.state, AllIn))
        if t is None or self.waiting_for():
            return []
        return self._fire(t)


def state_diagram(role: type[Role] | Role | _Table) -> list[tuple[str, str, str]]:
    """A transition table as edges ``(state, event label, next state)``, in table order.

    ``role``: a role class (its ``TRANSITIONS``), a role (the table it runs) or
    a table.  A transition with ``also`` states gives one edge per state it
    may lead to (``to`` first).
    """
    transitions = role.TRANSITIONS if isinstance(role, Role | type) else role
    edges = []
    for (state, event), t in transitions.items():
        label = _label(event)
        edges.append((state.name, label, t.to.name))
        edges.extend((state.name, label, a.name) for a in t.also)
    return edges
