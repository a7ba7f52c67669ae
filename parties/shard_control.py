"""The parent's side of a sharded run, the same for every engine: supersteps, then the merge.

:func:`drive` runs supersteps on a :class:`ShardPool` (worker processes,
:mod:`parties.shard_processes`; Ray actors, :mod:`parties.ray_shards`) until
every party has finished, the run is stuck or its virtual-time ``timeout``
passed: it routes each shard's frames to their destination shards, moves
virtual time only at global quiescence (to the earliest step deadline of any
party) and forwards the workers' progress reports.  :func:`collect` merges
the workers' :class:`~parties.shard_engine.ShardFinal` s -- outcomes,
results, costs, transcripts, taps -- into one :class:`~mpc_rr.core.RunResult`,
aborting the parties a stuck or timed-out run left unfinished.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from mpc_rr.core import CostReport, ProtocolAbort, RunResult, Transcript, WireEvent
from mpc_rr.core._outcome_table import OutcomeTable
from mpc_rr.core._runs import Progress
from mpc_rr.core._stats_table import StatsTable
from parties.shard_engine import ShardFinal, StepReport
from transports.tap import PAYLOAD_TAP, Tap

__all__ = ["LoopStats", "ShardPool", "collect", "drive"]


class ShardPool(Protocol):
    """Where the shards run (worker processes, Ray actors)."""

    def step(self, inbound: list[list[Any]], advance_to: float | None) -> list[StepReport]:
        """One superstep on every shard; ``inbound[k]``: frame handles for shard k."""
        ...

    def outbound(self, shard: int, dst: int) -> Any:
        """Handle of the frame shard ``shard`` produced for ``dst`` in the last superstep."""
        ...

    def finish(self) -> list[ShardFinal]: ...

    def close(self) -> None: ...


@dataclass
class LoopStats:
    """What :func:`drive` counted: supersteps, clock jumps, cross-shard messages, CPU, the ending."""

    supersteps: int = 0
    jumps: int = 0
    cross_messages: int = 0
    stuck: bool = False
    timed_out: bool = False
    final_time: float = 0.0
    critical_cpu_s: float = 0.0  # sum over supersteps of the busiest worker's CPU seconds
    step_cpu_s: list[list[float]] = field(default_factory=list)  # [superstep][shard]
    progress: dict[str, tuple[int, int]] = field(default_factory=dict)


def drive(
    pool: ShardPool, shards: int, *, timeout: float | None, progress: Progress | None
) -> LoopStats:
    """Run supersteps until every party finished (or the run is stuck or timed out).

    Virtual time moves only at global quiescence (no payload in flight on any
    shard), to the earliest step deadline of any party -- what
    ``MockClock(autojump_threshold=0)`` does in one process.
    """
    st = LoopStats()
    inbound: list[list[Any]] = [[] for _ in range(shards)]
    advance: float | None = None
    while True:
        reports = pool.step(inbound, advance)
        st.supersteps += 1
        st.critical_cpu_s += max(r.cpu_s for r in reports)
        st.step_cpu_s.append([round(r.cpu_s, 3) for r in reports])
        if progress is not None:
            for r in reports:
                for phase, done, total in r.progress:
                    progress(phase, done, total)
        inbound = [[] for _ in range(shards)]
        in_flight = 0
        for k, r in enumerate(reports):
            for dst, count in enumerate(r.sizes):
                in_flight += count
                if count and dst != k:
                    st.cross_messages += count
                    inbound[dst].append(pool.outbound(k, dst))
        if in_flight:
            advance = None
            continue
        if all(r.unfinished == 0 for r in reports):
            break
        t = min(r.next_deadline for r in reports)
        if math.isinf(t):
            st.stuck = True
            break
        if timeout is not None and t > timeout:
            st.timed_out = True
            break
        advance = t
        st.final_time = t
        st.jumps += 1
    return st


def collect(
    finals: list[ShardFinal],
    loop: LoopStats,
    *,
    wall: float,
    transport: str,
    extra: Mapping[str, Any],
    timeout: float | None,
    transcript: bool,
    tap: Tap | None,
) -> RunResult:
    """Merge the workers' outcomes, costs and transcripts into one RunResult."""
    outcomes: list[OutcomeTable] = []
    tables: list[StatsTable] = []
    events: list[WireEvent] = []
    tap_events: list[WireEvent] = []
    dropped = 0
    for f in sorted(finals, key=lambda f: f.shard):
        outcomes.append(f.outcomes.with_results([pickle.loads(b) for b in f.results]))
        tables.append(StatsTable.of(f.stats))
        events.extend(f.transcript or [])
        tap_events.extend(f.tap or [])
        dropped += f.dropped
    # the parties' costs as columns: no PartyStats object per party (docs/scale.md)
    stats = StatsTable.concat(tables)
    roles = OutcomeTable.concat(outcomes)
    for pid in roles.unfinished():
        if pid not in stats.errors:
            waiting = roles.waiting.get(pid, ())
            why = (
                f"run timed out after {timeout} s (virtual time)"
                if loop.timed_out
                else "no party can make progress and no step deadline is pending"
            )
            stats.set_error(pid, ProtocolAbort(f"party {pid}: {why}; waiting for {list(waiting)}", waiting))
    errors = dict(sorted(stats.errors.items()))
    trace = None
    if transcript:
        events.sort(key=lambda e: e.time)  # stable: each link keeps its send order
        trace = Transcript("parties (what each party sent)", events=events)
    if tap is not None:
        tap.attach(PAYLOAD_TAP)
        tap_events.sort(key=lambda e: e.time)
        tap.extend(tap_events)
    # messages addressed to a party that had already left (not the parties that dropped out)
    costs = CostReport(stats, wall, transport, {**extra, "messages_undelivered": dropped})
    return RunResult(roles, costs, errors, trace)
