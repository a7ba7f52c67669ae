"""The simulator: one schedule run to its end by driving the sans-I/O roles directly.

No transport, no clock: a dictionary of roles, one queue per link, and the schedule.  The
loop (deterministic given the schedule):

1. every party that does not join late starts, in id order; what it sends goes through
   the schedule's wire faults (:class:`~mpc_rr.simulation.WireFaults`) onto its links;
2. while some link holds a message for a started party, the delivery-order generator
   picks one such link and its oldest message is decoded and delivered (a
   :class:`~mpc_rr.core.PeerError` -- a frame that does not decode, a message the role
   refuses -- is recorded and the party goes on, as a :class:`~parties.party.Party` does);
   whatever the role sends in reaction is queued the same way;
3. when nothing can be delivered, the late parties start; when they have, the pending
   party with the lowest id gets its deadline (``on_timeout``: party 0's deadline is the
   shortest), and delivery resumes -- until every party has ended or crashed.

After every step the bound on steps is checked (``livelock``) and a party that has just
ended with a total is checked (``wrong-total``); the other invariants
(:mod:`mpc_rr.simulation._invariants`) when the run is over.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.core import Codec, PeerError, Role, Send, Transcript
from mpc_rr.core._harness import codec_for_roles
from mpc_rr.simulation._invariants import (
    PartyEnd,
    Violation,
    check_result,
    check_run,
    party_end,
    step_bound,
)
from mpc_rr.simulation._schedule import LateJoin, Schedule, Traffic
from mpc_rr.simulation._target import SimTarget, target_for, traffic_of
from mpc_rr.simulation._wire import Reference, WireFaults

__all__ = ["Outcome", "fault_free", "run_schedule"]


@dataclass(frozen=True)
class Outcome:
    """The end of one simulated run: how each party ended, the broken invariants, the cost."""

    schedule: Schedule
    ends: Mapping[int, PartyEnd]
    violations: tuple[Violation, ...]
    steps: int
    sent: Mapping[int, int] = field(repr=False)

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> tuple[str, ...]:
        """How each party ended, one line each (what two drivers of one schedule must agree on)."""
        return tuple(str(e) for e in self.ends.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule.to_json(), "ends": list(self.summary()), "steps": self.steps,
            "violations": [v.to_json() for v in self.violations],
        }  # fmt: skip


class _Run:
    def __init__(self, target: SimTarget, schedule: Schedule, roles: dict[int, Role], wire: WireFaults | None,
                 codec: Codec) -> None:  # fmt: skip
        self.target, self.schedule, self.roles, self.wire, self.codec = target, schedule, roles, wire, codec
        self.links: dict[tuple[int, int], deque[bytes]] = {}
        self.sent = dict.fromkeys(roles, 0)
        self.started: set[int] = set()
        self.failed: set[int] = set()
        self.checked: set[int] = set()
        self.violations: list[Violation] = []
        self.transcript = Transcript("simulator (every message as it went on the wire)")
        self.steps = 0
        self.rng = np.random.default_rng(schedule.order)
        self.record: dict[tuple[int, int], list[bytes]] = {}

    def emit(self, src: int, sends: list[Send]) -> None:
        last, data = None, b""
        for s in sends:
            if s.msg is not last:
                data, last = self.codec.encode(s.msg), s.msg
            self.sent[src] += 1
            self.record.setdefault((src, s.dst), []).append(data)
            wired = [(s.dst, data)] if self.wire is None else self.wire.send(src, s.dst, data)
            for dst, payload in wired:
                if dst not in self.roles:
                    continue
                self.transcript.record(self.steps, src, dst, payload)
                self.links.setdefault((src, dst), deque()).append(payload)

    def call(self, pid: int, what: str, *args: Any) -> None:
        role = self.roles[pid]
        try:
            out = getattr(role, what)(*args)
            self.emit(pid, out)  # a message the codec cannot encode is the role's bug too
        except PeerError:
            return
        except Exception as exc:  # the invariant: only typed errors
            self.failed.add(pid)
            self.violations.append(Violation("exception", pid, f"{what} raised {type(exc).__name__}: {exc}"))
            return
        if role.done and pid not in self.checked:
            self.checked.add(pid)
            self.violations += check_result(self.schedule, self.target, party_end(pid, role))

    def live(self, pid: int) -> bool:
        return pid in self.started and pid not in self.failed and not self.roles[pid].done

    def run(self) -> None:
        late = {f.party for f in self.schedule.of(LateJoin)}
        bound = step_bound(self.target)
        for pid in sorted(self.roles):
            if pid not in late:
                self.started.add(pid)
                self.call(pid, "start")
        while True:
            ready = [k for k, q in self.links.items() if q and k[1] in self.started]
            if ready:
                src, dst = ready[int(self.rng.integers(len(ready)))]
                payload = self.links[(src, dst)].popleft()
                if self.live(dst):
                    try:
                        msg = self.codec.decode(payload, sender=src)
                    except PeerError:
                        msg = None
                    if msg is not None:
                        self.call(dst, "receive", src, msg)
            elif late - self.started:
                for pid in sorted(late - self.started):
                    self.started.add(pid)
                    self.call(pid, "start")
            else:
                pending = [p for p in sorted(self.roles) if self.live(p)]
                if not pending:
                    return
                self.call(pending[0], "on_timeout")
            self.steps += 1
            if self.steps > bound:
                self.violations.append(Violation("livelock", -1, f"not over after {bound} steps"))
                return


def run_schedule(schedule: Schedule, target: SimTarget | None = None) -> Outcome:
    """Run ``schedule`` to its end and check every invariant (module docstring)."""
    if target is None:
        target = target_for(schedule.protocol, schedule.parties, schedule.broken)
    roles = target.roles(schedule)
    codec = codec_for_roles(roles)
    wire = WireFaults(schedule, codec, target.other_run, target.ids)
    r = _Run(target, schedule, roles, wire, codec)
    r.run()
    ends, more = check_run(schedule, target, roles, r.transcript, r.sent, r.failed)
    return Outcome(schedule, ends, tuple(sorted(set(r.violations + more))), r.steps, r.sent)


def fault_free(target: SimTarget) -> tuple[Traffic, Reference]:
    """A fault-free run's traffic and the payloads of another run (another seed and label)."""
    out = []
    for seed, run in ((1, target.run), (2, target.run + "-other")):
        roles = target.honest_roles(seed, run)
        r = _Run(target, Schedule(target.protocol.name, target.parties, 0), roles, None, codec_for_roles(roles))
        r.run()
        out.append(r.record)
    return traffic_of(out[0], target.ids), {k: tuple(v) for k, v in out[1].items()}
