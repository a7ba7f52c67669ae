"""One in-memory simulation sharded over worker processes (or Ray actors).

:class:`ShardedRunner` is a :class:`~mpc_rr.core.Runner`.  It splits the
parties of a :class:`~mpc_rr.core.RolePlan` into ``workers`` contiguous
shards; each worker builds its own roles from ``plan.subset(ids)`` (roles are
never pickled) and runs them as unchanged :class:`~parties.party.Party`
actors over a :class:`~transports.shards.ShardNetwork`.

How shards talk (bulk-synchronous supersteps)::

    parent                        worker k (trio loop, MockClock)
    ------ Step(advance_to, frames for k) ------>  deliver the frames and the
                                                   payloads its own parties sent
                                                   last superstep; run until every
                                                   task waits (wait_all_tasks_blocked)
    <----- Report(frames per shard, counts,  ---  outboxes: one MessagePack Batch per
           next deadline, progress)                destination shard
    route frames to their shards; repeat.

A superstep delivers what was sent in the previous one, so every message
sent at virtual time ``T`` is delivered at ``T``.

Virtual time: every worker runs under a ``MockClock`` that never moves by
itself.  When a superstep ends with no payload in flight anywhere and some
party unfinished (global quiescence), the parent advances every worker's
clock to the earliest step deadline of any party (``next_deadline``); the
parties whose deadline passed then call ``on_timeout``.  This is exactly what
``MockClock(autojump_threshold=0)`` does in one process (the clock jumps to
the earliest deadline when every task waits), so deadlines, dropouts and
their timing are the same as in :class:`~parties.runner.MemoryRunner`, and a
30-second step deadline costs no wall time.  If nothing is in flight, no
deadline is pending and parties are unfinished, the run is stuck: they get a
``ProtocolAbort`` naming whom they wait for (one process would hang).

Determinism: each link's payloads come from one party, which runs on one
worker and sends them in order, and roles do not depend on the interleaving
of different senders (tested for every protocol), so the per-link message
sequences (``RunResult.links()``), the results and the costs equal those of
one process for the same seed.

Data plane: party payloads travel as MessagePack :class:`~transports.shards.Batch`
frames, one per (source shard, destination shard, superstep).  Between worker
processes a frame of at least :data:`SPILL_BYTES` is written once to a file in
the run's private spill folder (tmpfs where there is one) and read once by its
destination; the pipes carry its name (a SecAgg+ run on all of Adult moves
~55 MB frames, which through the parent cost ~0.3 s each).  Control plane:
the parent sends each worker its picklable spec (plan subset and options),
and collects at the end a pickled :class:`ShardFinal` (outcomes, costs,
transcripts) -- between a parent and the workers it started, as
``multiprocessing`` itself does; nothing a party sends is pickled.

Workers are :class:`ShardHost` objects: a trio loop on a thread of their own
(the :class:`ShardEngine`), driven by blocking calls.  The process engine runs
one host per worker process over a pipe (:func:`start_method`); :mod:`parties.ray_shards` runs
one per Ray actor.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
import trio
import trio.testing

from mpc_rr.core import (
    CostReport,
    PartyStats,
    Progress,
    ProtocolAbort,
    Role,
    RoleOutcome,
    RolePlan,
    RunResult,
    Transcript,
    UsageError,
    WireEvent,
)
from parties.party import Party
from parties.process_stats import peak_rss_bytes, rss_bytes
from parties.runner import StepTimeout, timeout_for
from transports.shards import ShardNetwork, decode_batch, encode_batch
from transports.tap import Tap

__all__ = [
    "ShardEngine",
    "ShardFinal",
    "ShardHost",
    "ShardSpec",
    "ShardedRunner",
    "StepReport",
    "available_cores",
    "split_parties",
]


def available_cores() -> int:
    """CPUs this process may run on (the default number of workers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def split_parties(ids: Sequence[int], workers: int) -> list[tuple[int, ...]]:
    """``ids`` (sorted) in ``workers`` contiguous shards whose sizes differ by at most one."""
    ids = sorted(ids)
    k = min(int(workers), len(ids))
    q, r = divmod(len(ids), k)
    out, lo = [], 0
    for s in range(k):
        hi = lo + q + (1 if s < r else 0)
        out.append(tuple(ids[lo:hi]))
        lo = hi
    return out


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
    outcomes: dict[int, tuple[str, str, bool, int, ProtocolAbort | None, tuple[int, ...]]]
    results: list[bytes]  # distinct pickled results (identical results are shipped once)
    stats: dict[int, PartyStats]
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
            # of the collector's full passes, as parties.gc_policy does with what the parent built
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
        results: list[bytes] = []
        index: dict[bytes, int] = {}
        outcomes = {}
        for pid, p in self.parties.items():
            o = RoleOutcome.of(p.role)
            k = -1
            if o.done and o.error is None:
                blob = pickle.dumps(o.result, protocol=pickle.HIGHEST_PROTOCOL)
                k = index.setdefault(blob, len(results))
                if k == len(results):
                    results.append(blob)
            outcomes[pid] = (o.role_type, o.final_state, o.done, k, o.error, tuple(o.waiting_for()))
        return ShardFinal(
            self.spec.shard, outcomes, results, {pid: p.stats for pid, p in self.parties.items()},
            self.trace.events if self.trace is not None else None,
            self.tap.events if self.tap is not None else None, self.net.dropped, self.build_s,
            self.rss_before, peak_rss_bytes() or 0, rss_bytes(), self.build_cpu_s, self.startup_cpu_s,
        )  # fmt: skip


class ShardHost:
    """A :class:`ShardEngine` on its own thread, driven by blocking calls (process or Ray actor)."""

    def __init__(self, spec: ShardSpec) -> None:
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
        report: StepReport = self._call(self.engine.step, frames, advance_to)
        return report

    def take_frames(self) -> dict[int, bytes]:
        return self.engine.take_frames()

    def finish(self) -> ShardFinal:
        final: ShardFinal = trio.from_thread.run_sync(self.engine.final, trio_token=self._token)
        trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        self._thread.join()
        return final


# -- the control loop (engine-independent) ----------------------------------------------


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
class _Loop:
    supersteps: int = 0
    jumps: int = 0
    cross_messages: int = 0
    stuck: bool = False
    timed_out: bool = False
    final_time: float = 0.0
    critical_cpu_s: float = 0.0  # sum over supersteps of the busiest worker's CPU seconds
    step_cpu_s: list[list[float]] = field(default_factory=list)  # [superstep][shard]
    progress: dict[str, tuple[int, int]] = field(default_factory=dict)


def drive(pool: ShardPool, shards: int, *, timeout: float | None, progress: Progress | None) -> _Loop:
    """Run supersteps until every party finished (or the run is stuck or timed out).

    Virtual time moves only at global quiescence (no payload in flight on any
    shard), to the earliest step deadline of any party -- what
    ``MockClock(autojump_threshold=0)`` does in one process.
    """
    st = _Loop()
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
    loop: _Loop,
    *,
    wall: float,
    transport: str,
    extra: Mapping[str, Any],
    timeout: float | None,
    transcript: bool,
    tap: Tap | None,
) -> RunResult:
    """Merge the workers' outcomes, costs and transcripts into one RunResult."""
    roles: dict[int, Role] = {}
    stats: dict[int, PartyStats] = {}
    errors: dict[int, ProtocolAbort] = {}
    events: list[WireEvent] = []
    tap_events: list[WireEvent] = []
    dropped = 0
    for f in sorted(finals, key=lambda f: f.shard):
        cache: dict[int, Any] = {}
        for pid, (rtype, state, done, k, err, waiting) in f.outcomes.items():
            result = None
            if k >= 0:
                if k not in cache:
                    cache[k] = pickle.loads(f.results[k])
                result = cache[k]
            roles[pid] = RoleOutcome(pid, rtype, state, result, err, waiting, done=done)
        stats.update(f.stats)
        events.extend(f.transcript or [])
        tap_events.extend(f.tap or [])
        dropped += f.dropped
    for pid in sorted(stats):
        s, r = stats[pid], roles[pid]
        if s.error is None and not r.done:
            waiting = tuple(sorted(r.waiting_for()))
            why = (
                f"run timed out after {timeout} s (virtual time)"
                if loop.timed_out
                else "no party can make progress and no step deadline is pending"
            )
            s.error = ProtocolAbort(f"party {pid}: {why}; waiting for {list(waiting)}", waiting)
        if s.error is not None:
            errors[pid] = s.error
    trace = None
    if transcript:
        events.sort(key=lambda e: e.time)  # stable: each link keeps its send order
        trace = Transcript("parties (what each party sent)", events=events)
    if tap is not None:
        tap.attach("memory network (payloads as handed to the network)")
        tap_events.sort(key=lambda e: e.time)
        tap.extend(tap_events)
    costs = CostReport(stats, wall, transport, {**extra, "dropped": dropped})
    return RunResult(dict(sorted(roles.items())), costs, errors, trace)


# -- worker processes -------------------------------------------------------------------


SPILL_BYTES = 1 << 20
"""A frame at least this large crosses between processes as a file in the run's spill folder
(on tmpfs where there is one), not through the pipes: the pipes would carry it twice (worker
to parent, parent to worker) and each end copies it several times; the file is written once
and read once, and the parent only forwards its name."""


def spill_dir() -> str:
    """A fresh private folder for one run's spilled frames (``/dev/shm`` if present)."""
    import tempfile

    shm = "/dev/shm"
    return tempfile.mkdtemp(prefix="mpc-rr-frames-", dir=shm if os.path.isdir(shm) else None)


def _spill(folder: str, name: str, frame: bytes) -> str | None:
    """Write ``frame`` to ``folder/name``; ``None`` if it cannot be written (the caller then
    sends it through the pipe).  A small ``/dev/shm`` -- 64 MB in a default Docker container --
    fills up with two of Adult's ~55 MB frames; a full or missing folder must not end the run."""
    path = os.path.join(folder, name)
    try:
        with open(path, "wb") as fh:
            fh.write(frame)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    return path


def _read_spilled(path: str) -> bytes:
    """The frame in ``path``, which is then removed (each spilled frame is read once)."""
    with open(path, "rb") as fh:
        data = fh.read()
    os.unlink(path)
    return data


def _worker_main(
    conn: Any, spec_blob: bytes, spill: str | None = None, spill_bytes: int = SPILL_BYTES
) -> None:
    """Entry point of a worker process: serve superstep commands until ``finish``.

    ``spill``: the folder for frames of at least ``spill_bytes`` (``None``: every frame
    through the pipe).
    """
    try:
        host = ShardHost(pickle.loads(spec_blob))
    except BaseException:
        conn.send_bytes(b"E" + traceback.format_exc().encode())
        return
    conn.send_bytes(b"R")
    enc = msgspec.msgpack.Encoder()
    # (advance_to, frames, indices of the frames that are spill file names)
    cmd_dec = msgspec.msgpack.Decoder(tuple[float | None, list[bytes], list[int]])
    shard, step = host.engine.spec.shard, 0
    try:
        while True:
            msg = conn.recv_bytes()
            if msg == b"F":  # the results: a marker, then the pickle (no copy of a large blob)
                blob = pickle.dumps(host.finish(), protocol=pickle.HIGHEST_PROTOCOL)
                conn.send_bytes(b"F")
                conn.send_bytes(blob)
                return
            advance, frames, spilled = cmd_dec.decode(msg)
            del msg
            for i in spilled:
                frames[i] = _read_spilled(frames[i].decode())
            report = host.step(frames, advance)
            del frames
            conn.send_bytes(b"S" + enc.encode(report))
            for dst, frame in sorted(host.take_frames().items()):
                path = None
                if spill is not None and len(frame) >= spill_bytes:
                    path = _spill(spill, f"{shard}-{dst}-{step}", frame)
                if path is not None:
                    conn.send_bytes(b"P" + dst.to_bytes(4, "little") + path.encode())
                else:
                    conn.send_bytes(b"B" + dst.to_bytes(4, "little") + frame)
            step += 1
    except EOFError:  # the parent went away
        return
    except BaseException:
        conn.send_bytes(b"E" + traceback.format_exc().encode())


def trim_heap() -> None:
    """Hand the C heap's free pages back to the OS (glibc ``malloc_trim(0)``) before forking.

    A forked worker's allocations reuse the free chunks of the heap it
    inherited; those pages are still shared with the parent, so the first
    write to each copies it (a copy-on-write fault).  After the trim the
    worker faults fresh zero pages instead: allocating 400 MB in a child of a
    parent with a fragmented 1 GB heap took 0.44 s without the trim and
    0.28 s with it (0.15 s from an unfragmented parent).  A parent that ran a
    large simulation before (a benchmark, a notebook) has such a heap.  A
    no-op without glibc.
    """
    import ctypes

    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # this process's own symbols
    if trim is not None:  # glibc; elsewhere nothing to trim this way
        trim(0)


def start_method() -> str:
    """``fork`` where it is safe (Linux, no other thread in this process), else ``spawn``.

    A forked worker starts in milliseconds with every module already imported
    (a spawned one re-imports numpy, trio, cryptography: ~0.6 CPU-seconds);
    forking a process that runs other threads (Ray's driver, a thread pool)
    can deadlock the child, so those get ``spawn``.
    """
    from parties.launch import fork_is_safe

    return "fork" if fork_is_safe() else "spawn"


class _ProcessPool:
    """Shards in worker processes, one pipe each (blocking, in the caller's thread)."""

    def __init__(self, specs: list[ShardSpec], method: str | None = None) -> None:
        import multiprocessing as mp

        ctx = mp.get_context(method or start_method())
        if ctx.get_start_method() == "fork":
            trim_heap()
        self.conns: list[Any] = []
        self.procs: list[Any] = []
        self._spill = spill_dir()
        # a frame is its bytes, or the name of the spill file holding them
        self._frames: list[dict[int, bytes | str]] = [{} for _ in specs]
        self._enc = msgspec.msgpack.Encoder()
        self._dec = msgspec.msgpack.Decoder(StepReport)
        try:
            for spec in specs:
                try:
                    blob = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
                except (pickle.PicklingError, TypeError, AttributeError) as exc:
                    raise UsageError(
                        f"the role plan {type(spec.plan).__name__} cannot be sent to a worker "
                        f"process ({exc}); use picklable parameters (e.g. module-level factories)"
                    ) from None
                parent, child = ctx.Pipe(duplex=True)
                proc = ctx.Process(
                    target=_worker_main, args=(child, blob, self._spill, SPILL_BYTES), daemon=True
                )
                proc.start()
                child.close()
                self.conns.append(parent)
                self.procs.append(proc)
            for k in range(len(self.conns)):
                self._expect(k, self._recv(k), b"R")
        except BaseException:
            self.close()
            raise

    def _expect(self, k: int, msg: bytes, kind: bytes) -> bytes:
        if msg[:1] == kind:
            return msg[1:]
        if msg[:1] == b"E":
            raise RuntimeError(f"shard worker {k} failed:\n{msg[1:].decode(errors='replace')}")
        raise RuntimeError(f"shard worker {k}: unexpected reply {msg[:20]!r}")

    def _recv(self, k: int) -> bytes:
        try:
            msg: bytes = self.conns[k].recv_bytes()
        except EOFError:
            code = self.procs[k].exitcode
            raise RuntimeError(f"shard worker {k} died (exit code {code})") from None
        return msg

    def step(self, inbound: list[list[Any]], advance_to: float | None) -> list[StepReport]:
        for k, c in enumerate(self.conns):
            frames = [h.encode() if isinstance(h, str) else h for h in inbound[k]]
            spilled = [i for i, h in enumerate(inbound[k]) if isinstance(h, str)]
            c.send_bytes(self._enc.encode((advance_to, frames, spilled)))
        reports = []
        for k in range(len(self.conns)):
            r = self._dec.decode(self._expect(k, self._recv(k), b"S"))
            frames: dict[int, bytes | str] = {}
            for _ in range(sum(1 for d, n in enumerate(r.sizes) if n and d != k)):
                msg = self._recv(k)
                dst = int.from_bytes(msg[1:5], "little")
                frames[dst] = msg[5:].decode() if msg[:1] == b"P" else msg[5:]
            self._frames[k] = frames
            reports.append(r)
        return reports

    def outbound(self, shard: int, dst: int) -> bytes | str:
        return self._frames[shard][dst]

    def finish(self) -> list[ShardFinal]:
        for c in self.conns:
            c.send_bytes(b"F")
        finals = []
        for k in range(len(self.conns)):
            self._expect(k, self._recv(k), b"F")
            finals.append(pickle.loads(self._recv(k)))
        return finals

    def close(self) -> None:
        import shutil

        for c in self.conns:
            c.close()
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
        shutil.rmtree(self._spill, ignore_errors=True)


class ShardedRunner:
    """Party actors over in-memory shards in ``workers`` processes (a :class:`~mpc_rr.core.Runner`).

    Parameters
    ----------
    workers:
        Number of shards (default: :func:`available_cores`; at most one per party).
    engine:
        ``"processes"`` (worker processes on this machine, :func:`start_method`) or
        ``"ray"`` (Ray actors, :mod:`parties.ray_shards`; needs ``mpc-rr[ray]``).
    start_method:
        Processes only: ``"fork"``, ``"spawn"`` or ``None`` (:func:`start_method`).
    ray_address:
        Ray only: ``None`` starts a local Ray instance, ``"auto"`` joins the
        cluster this machine belongs to (``ray start --head`` / ``--address``),
        or an address ``host:port``.
    step_timeout, timeout, transcript, tap:
        As :class:`~parties.runner.MemoryRunner`'s (always virtual time;
        ``timeout`` in virtual seconds).  Link models need one process.
    buffer:
        Inbound payloads per party (``None``, the default: unbounded, see
        :mod:`transports.shards`).

    Takes a :class:`~mpc_rr.core.RolePlan` (each worker builds its own roles);
    ``RunResult.roles`` then holds :class:`~mpc_rr.core.RoleOutcome` s.
    """

    builds_in_workers = True
    """Takes a :class:`~mpc_rr.core.RolePlan` and builds each subset in its worker."""

    def __init__(
        self,
        *,
        workers: int | None = None,
        engine: str = "processes",
        ray_address: str | None = None,
        start_method: str | None = None,
        step_timeout: StepTimeout = 30.0,
        timeout: float | None = None,
        transcript: bool = False,
        tap: Tap | None = None,
        buffer: int | None = None,
        link: object = None,
    ) -> None:
        if link is not None:
            raise UsageError(
                "link models (latency, jitter, loss, reordering) need every party in one process: "
                "use workers=1 (MemoryRunner) for them"
            )
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise UsageError(f"workers must be an integer >= 1, got {workers!r}")
        if engine not in ("processes", "ray"):
            raise UsageError(f"engine must be 'processes' or 'ray', got {engine!r}")
        if ray_address is not None and engine != "ray":
            raise UsageError("ray_address only applies to engine='ray'")
        if buffer is not None and (not isinstance(buffer, int) or buffer < 1):
            raise UsageError(f"buffer must be >= 1 or None, got {buffer!r}")
        if start_method not in (None, "fork", "spawn", "forkserver"):
            raise UsageError(f"start_method must be fork, spawn or forkserver, got {start_method!r}")
        if timeout is not None and not timeout > 0:
            raise UsageError(f"timeout must be > 0 or None, got {timeout!r}")
        self.workers = available_cores() if workers is None else workers
        self.engine = engine
        self.ray_address = ray_address
        self.start_method = start_method
        self.name = "ray" if engine == "ray" else "sharded"
        self._method = ""
        self.step_timeout = step_timeout
        self.timeout = timeout
        self.transcript = transcript
        self.tap = tap
        self.buffer = buffer

    def specs(self, plan: RolePlan) -> list[ShardSpec]:
        """One :class:`ShardSpec` per shard of ``plan``."""
        import numpy as np

        shards = split_parties(plan.parties, self.workers)
        owner = np.full(max(plan.parties) + 1, -1, "<i4")
        for k, ids in enumerate(shards):
            owner[list(ids)] = k
        tap_keep = None if self.tap is None else self.tap.keep_data
        return [
            ShardSpec(
                k, plan.subset(ids), owner.tobytes(), self.step_timeout, self.transcript, tap_keep,
                self.buffer,
            )
            for k, ids in enumerate(shards)
        ]

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult:
        if not isinstance(roles, RolePlan):
            raise UsageError(
                "ShardedRunner builds each role in the worker that runs it: pass a RolePlan "
                "(e.g. PipelinePlan, SecureSumPlan, SpecPlan), not built roles"
            )
        plan = roles
        t0 = time.perf_counter()
        c0 = time.process_time()
        specs = self.specs(plan)
        pool: ShardPool
        if self.engine == "ray":
            from parties.ray_shards import RayPool

            pool = RayPool(specs, address=self.ray_address)
        else:
            self._method = self.start_method or start_method()
            pool = _ProcessPool(specs, self._method)
        t_start = time.perf_counter()
        try:
            loop = drive(pool, len(specs), timeout=self.timeout, progress=plan.progress)
            t_run = time.perf_counter()
            finals = pool.finish()
        finally:
            pool.close()
        wall = time.perf_counter() - t0
        extra = {
            "engine": self.engine,
            "workers": len(specs),
            "shard_parties": [len(s.plan.parties) for s in specs],
            "supersteps": loop.supersteps,
            "clock_jumps": loop.jumps,
            "cross_shard_messages": loop.cross_messages,
            "start_s": t_start - t0,
            "run_s": t_run - t_start,
            "build_s": max((f.build_s for f in finals), default=0.0),
            "build_cpu_s": max((f.build_cpu_s for f in finals), default=0.0),
            "startup_cpu_s": max((f.startup_cpu_s for f in finals), default=0.0),
            "critical_cpu_s": loop.critical_cpu_s,
            "superstep_cpu_s": loop.step_cpu_s[:50],
            "parent_cpu_s": time.process_time() - c0,
            "worker_peak_rss": [f.rss_peak for f in finals],
            "start_method": self._method or None,
            # resident memory the parties added, at the end of the run: measured where a worker
            # owns its pages (Ray, spawn); a forked worker shares its parent's, so it is not
            "bytes_per_party": None
            if self._method == "fork"
            else sum(f.rss_end - f.rss_before for f in finals)
            / max(1, sum(len(s.plan.parties) for s in specs)),
        }
        return collect(
            finals, loop, wall=wall, transport=f"memory ({len(specs)} shards, {self.engine})",
            extra=extra, timeout=self.timeout, transcript=self.transcript, tap=self.tap,
        )  # fmt: skip
