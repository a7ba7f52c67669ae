"""One shard's worker: its parties in a trio loop under a ``MockClock``, one superstep per call.

What a worker is given (:class:`ShardSpec`, picklable, sent once), what it
answers to each superstep (:class:`StepReport`, MessagePack) and at the end
(:class:`ShardFinal`, pickled once), and the two objects that run it:

* :class:`ShardEngine` -- inside the worker's trio loop: builds the shard's
  roles from ``spec.plan`` (roles are never pickled), starts them as
  :class:`~parties.party.Party` actors over a
  :class:`~transports.shards.ShardNetwork`, and runs each superstep
  (move the virtual clock, deliver, run until every task waits, collect
  the outboxes as one frame per destination shard);
* :class:`ShardHost` -- that loop on a thread of its own, driven by blocking
  calls: a worker process (:mod:`parties.shard_processes`) or a Ray actor
  (:mod:`parties.ray_shards`) holds one.

The superstep protocol and the virtual-time rules are described in
:mod:`parties.shards`.
"""

from __future__ import annotations

import gc
import pickle
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec
import trio
import trio.testing

from mpc_rr.core import PartyStats, Role, Transcript, UsageError, WireEvent
from mpc_rr.core._outcome_table import OutcomeTable
from mpc_rr.core._runs import RolePlan
from parties.party import Party
from parties.process_stats import peak_rss_bytes, rss_bytes
from parties.runner import StepTimeout, timeout_for
from transports.shards import ShardNetwork, decode_batch, encode_batch
from transports.tap import Tap

if TYPE_CHECKING:
    from parties.shard_direct import DirectShard

__all__ = ["ShardEngine", "ShardFinal", "ShardHost", "ShardSpec", "StepReport"]


@dataclass
class ShardSpec:
    """What a worker needs to run its shard (picklable; sent once, at start)."""

    shard: int
    plan: RolePlan  # the subset of this shard's parties
    owner: bytes  # int32 little-endian: owner[pid] = shard of pid, -1 = no such party
    step_timeout: StepTimeout = 30.0
    transcript: bool = False
    tap_keep_data: bool | None = None  # None: no tap
    buffer: int | None = None  # inbound payloads per party (None: unbounded)
    pki: bytes | None = None  # the coordinator's simulated-PKI secret: one roster per run
    direct: bool = False  # roles called directly (parties.shard_direct), not one task per party
    split: bool = False  # direct only: the plan's coordinator part takes party 0's per-party work


def adopt_pki(spec: ShardSpec) -> None:
    """Sign and verify with the coordinator's simulated PKI (one roster per run), if it sent one."""
    if spec.pki is not None:
        from mpc_rr.secure_sum._identity import use_simulation_secret

        use_simulation_secret(spec.pki)


def role_outcomes(roles: Mapping[int, Role]) -> tuple[OutcomeTable, list[bytes]]:
    """Each role's outcome for :class:`ShardFinal`, as columns; equal results pickled once
    (the table's result indices point into the returned list of pickles)."""
    table = OutcomeTable.of(
        roles, result_key=lambda r: pickle.dumps(r, protocol=pickle.HIGHEST_PROTOCOL)
    )
    return table, table.results  # one list: pickled once with the final


class StepReport(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A worker's answer to one superstep."""

    sizes: list[int]  # payloads sent to each shard (this shard's own: delivered next superstep)
    unfinished: int  # parties whose Party.run has not returned
    next_deadline: float  # earliest step deadline of its parties (virtual time; inf: none)
    progress: list[tuple[str, int, int]] = []
    cpu_s: float = 0.0  # CPU seconds the worker spent in this superstep


@dataclass
class ShardFinal:
    """What a worker hands back at the end (pickled once)."""

    shard: int
    outcomes: OutcomeTable  # its results: the pickles in ``results``
    results: list[bytes]  # distinct pickled results (identical results are shipped once)
    stats: Mapping[int, PartyStats]  # a StatsTable from the direct engine
    transcript: list[WireEvent] | None
    tap: list[WireEvent] | None
    dropped: int
    build_s: float
    rss_before: int  # before the roles were built
    rss_peak: int  # the process's peak (a forked worker inherits its parent's)
    rss_end: int  # at the end of the run, before pickling the results
    build_cpu_s: float
    startup_cpu_s: float  # CPU the worker process spent before building (interpreter, imports)


class ShardEngine:
    """One shard inside a trio loop under a ``MockClock`` (see module docstring)."""

    def __init__(self, spec: ShardSpec) -> None:
        self.spec = spec
        self.parties: dict[int, Party] = {}
        self.unfinished = 0
        self._local: list[tuple[int, int, bytes]] = []
        self._progress: dict[str, tuple[int, int]] = {}
        self._nursery: trio.Nursery | None = None
        self.build_s = 0.0

    def _report_progress(self, phase: str, done: int, total: int) -> None:
        self._progress[phase] = (done, total)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Build the shard's roles and parties, start them, and serve until cancelled."""
        spec = self.spec
        self.rss_before = rss_bytes()
        c0 = self.startup_cpu_s = time.process_time()
        t0 = time.perf_counter()
        adopt_pki(spec)
        roles = spec.plan.build(self._report_progress)
        import numpy as np

        owner = np.frombuffer(spec.owner, "<i4").tolist()
        self.tap = Tap(keep_data=spec.tap_keep_data) if spec.tap_keep_data is not None else None
        self.net = ShardNetwork(spec.shard, owner, roles.keys(), buffer=spec.buffer, tap=self.tap)
        self.trace = Transcript("parties (what each party sent)") if spec.transcript else None
        for pid, role in roles.items():
            if role.party_id != pid:
                raise UsageError(f"plan built roles[{pid}] with party_id {role.party_id}")
            self.parties[pid] = Party(
                role, self.net.endpoint(pid), step_timeout=timeout_for(spec.step_timeout, pid),
                transcript=self.trace,
            )  # fmt: skip
        self.build_s = time.perf_counter() - t0
        self.build_cpu_s = time.process_time() - c0
        self.unfinished = len(self.parties)
        async with trio.open_nursery() as nursery:
            self._nursery = nursery  # the parties start in the first superstep
            task_status.started()
            await trio.sleep_forever()

    async def _run_party(self, p: Party) -> None:
        try:
            await p.run()
        finally:
            self.unfinished -= 1
            self.net.endpoint(p.role.party_id).close()  # later payloads for it are dropped, never block a delivery

    async def step(self, frames: Sequence[bytes], advance_to: float | None) -> StepReport:
        """One superstep: move the clock, deliver, run to local quiescence, collect outboxes."""
        c0 = time.process_time()
        if advance_to is not None:
            now = trio.current_time()
            if advance_to > now:
                clock = trio.lowlevel.current_clock()
                assert isinstance(clock, trio.testing.MockClock)
                clock.jump(advance_to - now)
        first = self._nursery is not None
        if self._nursery is not None:  # first superstep: start every party (role.start())
            for p in self.parties.values():
                self._nursery.start_soon(self._run_party, p)
            self._nursery = None
        local, self._local = self._local, []
        for f in frames:
            if f:
                await self.net.deliver(decode_batch(f))
        await self.net.deliver(local)
        await trio.testing.wait_all_tasks_blocked()
        out = self.net.take_outboxes()
        me = self.spec.shard
        self._local = out[me]
        self._frames = {s: encode_batch(items) for s, items in enumerate(out) if items and s != me}
        if first:
            # the parties' state, tasks and channels now live until the run ends: keep them out
            # of the collector's full passes, as mpc_rr.core.simulation_gc does with what the parent built
            # (Adult secure-sum: no full pass instead of one of ~0.25 s per worker in each of the
            # two crypto supersteps; GC on the critical path 1.2 -> 0.7 s)
            gc.freeze()
        stats = trio.lowlevel.current_statistics()
        progress = [(k, d, t) for k, (d, t) in self._progress.items()]
        self._progress = {}
        return StepReport(
            [len(items) for items in out], self.unfinished,
            trio.current_time() + stats.seconds_to_next_deadline, progress,
            time.process_time() - c0,
        )  # fmt: skip

    def take_frames(self) -> dict[int, bytes]:
        """The frames of the last superstep, by destination shard."""
        frames, self._frames = self._frames, {}
        return frames

    def final(self) -> ShardFinal:
        outcomes, results = role_outcomes({pid: p.role for pid, p in self.parties.items()})
        return ShardFinal(
            self.spec.shard, outcomes, results, {pid: p.stats for pid, p in self.parties.items()},
            self.trace.events if self.trace is not None else None,
            self.tap.events if self.tap is not None else None, self.net.dropped, self.build_s,
            self.rss_before, peak_rss_bytes() or 0, rss_bytes(), self.build_cpu_s, self.startup_cpu_s,
        )  # fmt: skip


class ShardHost:
    """A :class:`ShardEngine` on its own thread, driven by blocking calls (process or Ray actor)."""

    def __init__(self, spec: ShardSpec) -> None:
        self.engine: ShardEngine | DirectShard
        if spec.direct:  # no trio loop: the roles are called in the caller's thread
            from parties.shard_direct import DirectShard

            self.engine = DirectShard(spec)
            return
        self.engine = ShardEngine(spec)
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name=f"shard-{spec.shard}", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure

    def _serve(self) -> None:
        try:
            trio.run(self._main, clock=trio.testing.MockClock())
        except BaseException as exc:  # reported to the caller of the next call
            self._failure = exc
            self._ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        async with trio.open_nursery() as nursery:
            assert isinstance(self.engine, ShardEngine)
            await nursery.start(self.engine.run)
            self._ready.set()
            await self._stop.wait()
            nursery.cancel_scope.cancel()

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._failure is None:
            try:
                return trio.from_thread.run(fn, *args, trio_token=self._token)
            except BaseException:
                self._thread.join(timeout=30)  # a party's bug ends the loop: report that bug
                if self._failure is None:
                    raise
        text = "".join(traceback.format_exception(self._failure))
        raise RuntimeError(f"shard {self.engine.spec.shard}: a party raised\n{text}") from None

    def step(self, frames: Sequence[bytes], advance_to: float | None) -> StepReport:
        if isinstance(self.engine, ShardEngine):
            report: StepReport = self._call(self.engine.step, frames, advance_to)
            return report
        return self.engine.step(frames, advance_to)

    def take_frames(self) -> dict[int, bytes]:
        return self.engine.take_frames()

    def finish(self) -> ShardFinal:
        if not isinstance(self.engine, ShardEngine):
            return self.engine.final()
        final: ShardFinal = trio.from_thread.run_sync(self.engine.final, trio_token=self._token)
        trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join()
        return final
