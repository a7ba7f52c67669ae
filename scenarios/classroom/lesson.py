"""From a protocol's roles to a :class:`~.trace.Trace`: the part every protocol shares.

A protocol module builds a :class:`Lesson` (its roles with seeded entropy,
how to show each message's values, which round each message type belongs
to, the notes to print when a round ends and the final check); then
:func:`build_trace` records the run (:func:`~.record.record`), decodes every
message from the bytes the harness encoded, and lays the items out in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from mpc_rr.core import DropAt, DropPoint, Message, Role, UsageError, WireEvent, state_diagram
from mpc_rr.core._harness import codec_for_roles
from scenarios.classroom.record import Call, Recording, record, state_of
from scenarios.classroom.trace import Item, Trace

__all__ = ["Context", "Lesson", "Sent", "build_trace", "drop_roles", "parse_drop", "vec"]

Note = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class Sent:
    """One decoded message of the run (``number`` counts from 1 in send order)."""

    number: int
    src: int
    dst: int
    msg: Message
    size: int
    delivered: bool


@dataclass(frozen=True)
class Context:
    """What notes and checks may read: the recording and every decoded message."""

    recording: Recording
    sent: tuple[Sent, ...]

    def of_type(self, name: str) -> list[Sent]:
        return [s for s in self.sent if type(s.msg).__name__ == name]

    @property
    def roles(self) -> dict[int, Role]:
        return dict(self.recording.roles)


@dataclass
class Lesson:
    """Everything protocol-specific about one classroom run."""

    protocol: str
    title: str
    seed: int
    roles: dict[int, Role]
    participants: dict[int, str]
    setup: list[str]
    rounds: dict[str, tuple[str, str]]  # message type -> (round key, round title)
    describe: Callable[[Sent], list[tuple[str, str]]]
    notes: Callable[[str, Context], list[Note]]
    check: Callable[[Context], tuple[list[str], bool]]
    diagrams: Sequence[type[Role]] = ()
    drops: dict[int, str] = field(default_factory=dict)  # party -> step name
    extra: dict[str, object] = field(default_factory=dict)


def vec(a: np.ndarray | Sequence[int], limit: int = 16) -> str:
    """A short integer vector: ``[3 0 4 1]`` (``...`` after ``limit`` entries)."""
    v = [int(x) for x in np.asarray(a).reshape(-1)]
    body = " ".join(str(x) for x in v[:limit])
    return f"[{body}{' ...' if len(v) > limit else ''}]"


def parse_drop(text: str, steps: Sequence[str], n: int) -> tuple[int, str]:
    """``"ID@STEP"`` -> ``(id, step)``; the id is a data party ``1..n``, the step one of ``steps``."""
    pid, sep, step = text.partition("@")
    if not sep or not pid.strip().isdigit():
        raise UsageError(f"--drop must be ID@STEP (e.g. 2@{steps[-1]}), got {text!r}")
    i = int(pid)
    if not 1 <= i <= n:
        raise UsageError(f"--drop {text}: party id must be a data party in 1..{n}, got {i}")
    if step not in steps:
        raise UsageError(f"--drop {text}: step must be one of {', '.join(steps)}, got {step!r}")
    return i, step


def drop_roles(
    roles: dict[int, Role], drops: dict[int, str], messages: dict[str, DropPoint]
) -> dict[int, Role]:
    """Wrap each dropped party in :class:`~mpc_rr.core.DropAt` at its step's message."""
    return {
        pid: DropAt(r, messages[drops[pid]]) if pid in drops else r for pid, r in roles.items()
    }


def _call_items(call: Call, lesson: Lesson, rec: Recording) -> list[Item]:
    p = call.party

    def nm(i: int) -> str:
        return lesson.participants.get(i, f"P{i}")

    out: list[Item] = []
    if call.error:
        out.append(Item("reject", call.error, src=p, dst=-1 if call.src is None else call.src))
    if call.kind == "deadline":
        waiting = ", ".join(nm(w) for w in call.waiting) or "nobody"
        out.append(Item("deadline", f"deadline passed at {nm(p)}: no message in flight; it was "
                                    f"waiting for {waiting}", src=p))  # fmt: skip
    if call.after == call.before:
        return out
    if call.after == "CRASHED":
        step = lesson.drops.get(p, "?")
        out.append(Item("drop", f"{nm(p)} crashes instead of sending its '{step}' message "
                                f"(--drop {p}@{step}) and is silent from now on", src=p))  # fmt: skip
    elif call.after == "ABORTED":
        err = rec.roles[p].error
        out.append(Item("abort", f"{nm(p)} aborts: {err}", src=p))
    else:
        why = call.msg_type or {"deadline": "its deadline", "start": "start"}[call.kind]
        src = -1 if call.src is None else call.src
        out.append(Item("state", f"{call.before} -> {call.after}", src=p, dst=src, type=why))
    return out


def build_trace(lesson: Lesson) -> Trace:
    """Run the lesson's roles and lay out the trace (see module docstring)."""
    initial: dict[type[Role], str] = {}
    for r in lesson.roles.values():
        inner = r.inner if isinstance(r, DropAt) else r
        initial.setdefault(type(inner), inner.state.name)
    first_states = {pid: state_of(r) for pid, r in lesson.roles.items()}
    rec = record(lesson.roles)
    codec = codec_for_roles(rec.roles)
    sent: list[Sent] = []
    for x in rec.sequence:
        if isinstance(x, WireEvent):
            msg = codec.decode(x.data, sender=x.src)
            sent.append(Sent(len(sent) + 1, x.src, x.dst, msg, x.size, x.delivered))
    ctx = Context(rec, tuple(sent))
    items: list[Item] = []
    current: str | None = None
    noted: set[str] = set()

    def close_round() -> None:
        if current is not None and current not in noted:
            noted.add(current)
            items.extend(Item("note", text, parties=ps) for text, ps in lesson.notes(current, ctx))

    k = 0
    for x in rec.sequence:
        if isinstance(x, Call):
            items.extend(_call_items(x, lesson, rec))
            continue
        s = sent[k]
        k += 1
        name = type(s.msg).__name__
        key, title = lesson.rounds[name]
        if key != current:
            close_round()
            current = key
            items.append(Item("round", title))
        items.append(
            Item(
                "message", number=s.number, src=s.src, dst=s.dst, type=name, size=s.size,
                values=tuple(lesson.describe(s)), delivered=s.delivered,
            )
        )
    close_round()
    check, ok = lesson.check(ctx)
    diagrams = tuple(
        (cls.__name__, initial.get(cls, ""), tuple(state_diagram(cls)))
        for cls in dict.fromkeys(lesson.diagrams)
    )
    return Trace(
        protocol=lesson.protocol, title=lesson.title, seed=lesson.seed,
        participants=lesson.participants, setup=tuple(lesson.setup), items=tuple(items),
        check=tuple(check), ok=ok, diagrams=diagrams, initial_states=first_states,
        extra=dict(lesson.extra),
    )  # fmt: skip
