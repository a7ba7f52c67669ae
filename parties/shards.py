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

Workers are :class:`ShardHost` objects: by default the shard's roles called
directly (:class:`parties.shard_direct.DirectShard`: no task, channel or
endpoint per party, since a sans-I/O role acts only on a payload or a
deadline), or, with ``direct=False`` or a bounded ``buffer``, one
:class:`~parties.party.Party` task per party in a trio loop on a thread of
its own (the :class:`ShardEngine`); either is driven by blocking calls.  The process engine runs
one host per worker process over a pipe (:func:`start_method`); :mod:`parties.ray_shards` runs
one per Ray actor.

Where the pieces are: this module holds the runner (:class:`ShardedRunner`:
options, the split of the parties, the costs it reports) and re-exports the
names below from

* :mod:`parties.shard_engine` -- one shard's worker (:class:`ShardSpec`,
  :class:`ShardEngine`, :class:`ShardHost`, :class:`StepReport`,
  :class:`ShardFinal`); :mod:`parties.shard_direct` -- the direct engine;
* :mod:`parties.shard_control` -- the parent's engine-independent loop
  (:func:`drive`, :func:`collect`, :class:`ShardPool`);
* :mod:`parties.shard_processes` -- worker processes (:func:`start_method`,
  :func:`trim_heap`, spill files, the worker's command loop).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from mpc_rr.core import Role, RunResult, UsageError, require_extra
from mpc_rr.core._runs import RolePlan
from parties.cores import available_cores, check_workers
from parties.runner import StepTimeout
from parties.shard_control import ShardPool, collect, drive
from parties.shard_engine import ShardEngine, ShardFinal, ShardHost, ShardSpec, StepReport
from parties.shard_processes import SPILL_BYTES, ProcessPool, spill_dir, start_method, trim_heap
from transports.tap import Tap

__all__ = [
    "SPILL_BYTES",
    "ShardEngine",
    "ShardFinal",
    "ShardHost",
    "ShardPool",
    "ShardSpec",
    "ShardedRunner",
    "StepReport",
    "available_cores",
    "collect",
    "drive",
    "spill_dir",
    "split_parties",
    "start_method",
    "trim_heap",
]


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
        Processes only: ``"fork"``, ``"spawn"``, ``"forkserver"`` or ``None`` (:func:`start_method`).
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
    direct:
        Call each shard's roles directly (:mod:`parties.shard_direct`: no task,
        channel or endpoint per party; same links, results and costs) rather
        than one :class:`~parties.party.Party` task each
        (:class:`~parties.shard_engine.ShardEngine`).  ``None`` (default):
        direct unless ``buffer`` is set (a bounded buffer needs the tasks).
    split:
        Direct engine only: where the plan offers one (``RolePlan.coordinator_part``, e.g. the
        RR pipeline), each shard does party 0's per-party work for its own parties and hands
        party 0 one tally per superstep (:mod:`mpc_rr.core._parts`; same links, results and
        costs).  ``False`` sends every payload to party 0's shard, as before.

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
        direct: bool | None = None,
        split: bool = True,
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
        if workers is not None and engine == "processes":  # Ray actors may live on a cluster
            check_workers(workers)
        if ray_address is not None and engine != "ray":
            raise UsageError("ray_address only applies to engine='ray'")
        if engine == "ray":  # refused here, before any work, not when the shards start
            require_extra("ray", "ray", needed_for="engine 'ray'")
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
        if direct and buffer is not None:
            raise UsageError("bounded inbound buffers need one task per party: direct=False")
        self.direct = buffer is None if direct is None else bool(direct)
        self.split = bool(split)

    def specs(self, plan: RolePlan) -> list[ShardSpec]:
        """One :class:`ShardSpec` per shard of ``plan``."""
        import numpy as np

        shards = split_parties(plan.parties, self.workers)
        owner = np.full(max(plan.parties) + 1, -1, "<i4")
        for k, ids in enumerate(shards):
            owner[list(ids)] = k
        tap_keep = None if self.tap is None else self.tap.keep_data
        from mpc_rr.secure_sum._identity import simulation_secret

        pki = simulation_secret()  # every worker signs and verifies against this process's roster
        return [
            ShardSpec(
                k, plan.subset(ids), owner.tobytes(), self.step_timeout, self.transcript, tap_keep,
                self.buffer, pki, self.direct, self.direct and self.split,
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
            # the spill folder and threshold are read here, so that they can be set on this module
            pool = ProcessPool(specs, self._method, spill=spill_dir(), spill_bytes=SPILL_BYTES)
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
            "direct": self.direct,
            "split": self.direct and self.split,
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
