"""A simulated schedule replayed over the memory transport, in virtual time.

:func:`run_schedule_over_memory` runs the roles of a :class:`~mpc_rr.simulation.Schedule`
as :class:`~parties.party.Party` actors over a :class:`~transports.memory.MemoryNetwork`
under ``trio.testing.MockClock(autojump_threshold=0)``: the same roles (crashes wrapped
around their parties), the same wire faults -- every payload a party sends goes through the
schedule's :class:`~mpc_rr.simulation.WireFaults` in its endpoint, so drops, duplicates and
Byzantine rewrites strike the same messages (positions are per link) -- and a late party
starting after a third of a step deadline, when the others' traffic has settled.  The order
of delivery is trio's, not the schedule's: where the protocol is correct the two drivers
agree on how every party ends (the tests check it for a sample of seeds).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import trio
import trio.testing

from mpc_rr.core import COORDINATOR, Transcript
from mpc_rr.core._harness import codec_for_roles
from mpc_rr.simulation import (
    LateJoin,
    Outcome,
    Schedule,
    SimTarget,
    WireFaults,
    check_run,
    target_for,
)
from parties.party import Party
from transports.memory import MemoryNetwork

__all__ = ["ScheduledEndpoint", "run_schedule_over_memory"]


class ScheduledEndpoint:
    """A memory endpoint whose sends go through the schedule's wire faults first."""

    def __init__(self, inner: Any, wire: WireFaults, transcript: Transcript, sent: dict[int, int]) -> None:
        self._inner = inner
        self._wire = wire
        self._transcript = transcript
        self._sent = sent
        self.party_id = inner.party_id

    async def send(self, dst: int, payload: bytes) -> None:
        src = self.party_id
        self._sent[src] = self._sent.get(src, 0) + 1
        for to, data in self._wire.send(src, dst, bytes(payload)):
            if to in self._inner.peers or to == COORDINATOR:
                self._transcript.record(trio.current_time(), src, to, data)
                await self._inner.send(to, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


async def _run(target: SimTarget, schedule: Schedule, step_timeout: float) -> Outcome:
    roles = target.roles(schedule)
    codec = codec_for_roles(roles)
    wire = WireFaults(schedule, codec, target.other_run, target.ids)
    transcript = Transcript("memory transport (every message as it went on the wire)")
    sent: dict[int, int] = dict.fromkeys(roles, 0)
    late = {f.party for f in schedule.of(LateJoin)}
    timeouts: Mapping[int, float] = {p: step_timeout * (1 if p == COORDINATOR else 3) for p in roles}
    async with MemoryNetwork(roles.keys()) as net:
        parties = {pid: Party(role, ScheduledEndpoint(net.endpoint(pid), wire, transcript, sent),  # type: ignore[arg-type]
                              step_timeout=timeouts[pid]) for pid, role in roles.items()}  # fmt: skip

        async def run(pid: int) -> None:
            if pid in late:
                await trio.sleep(step_timeout / 3)
            await parties[pid].run()

        async with trio.open_nursery() as nursery:
            for pid in sorted(parties):
                nursery.start_soon(run, pid)
    ends, violations = check_run(schedule, target, roles, transcript, sent)
    return Outcome(schedule, ends, tuple(sorted(set(violations))), len(transcript), sent)


def run_schedule_over_memory(schedule: Schedule, *, step_timeout: float = 30.0) -> Outcome:
    """``schedule`` run by Party actors over the memory transport in virtual time (module
    docstring); the same invariants checked when it is over."""
    target = target_for(schedule.protocol, schedule.parties, schedule.broken)
    clock = trio.testing.MockClock(autojump_threshold=0)
    return trio.run(functools.partial(_run, target, schedule, step_timeout), clock=clock)
