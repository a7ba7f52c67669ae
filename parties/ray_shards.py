"""The shards of :mod:`parties.shards` as Ray actors: one simulation past one machine.

Optional: ``pip install 'mpc-rr[ray]'``.  ``ShardedRunner(engine="ray")``
(``mpc-rr run ... --engine ray``) starts one actor per shard -- thousands of
parties each, never one actor per party.  Each actor is a
:class:`~parties.shard_engine.ShardHost` (the same engine as a worker process: it
builds its roles from its plan subset and runs them as Party actors in a trio
loop on a thread of its own).

Supersteps are Ray calls: ``step(advance_to, *frames)`` returns one frame per
destination shard plus the :class:`~parties.shard_engine.StepReport`
(``num_returns = shards + 1``).  The driver fetches only the small reports;
it hands the frame *references* to the destination actors' next call, so the
payloads move actor to actor through Ray's object store, never through the
driver.

Ray: ``address=None`` starts a local instance (the CPUs of this machine);
``"auto"`` joins the cluster this machine belongs to (``ray start --head``
on one node, ``ray start --address HEAD:6379`` on the others); or give
``host:port``.  Each actor asks for one CPU, and the run is refused up front
if the cluster has fewer CPUs than shards (actors would wait forever).
"""

from __future__ import annotations

import os
from typing import Any

from mpc_rr.core import UsageError, require_extra
from parties.shard_engine import ShardFinal, ShardHost, ShardSpec, StepReport

__all__ = ["RayPool", "ray_available"]


def ray_available() -> bool:
    """Whether the optional Ray engine is installed."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


class _RayShard:
    """One shard in a Ray actor (the actor class is made with ``ray.remote`` at run time)."""

    def __init__(self, spec: ShardSpec, shards: int) -> None:
        self.host = ShardHost(spec)
        self.shards = shards

    def ready(self) -> int:
        return len(self.host.engine.spec.plan.parties)

    def step(self, advance_to: float | None, *frames: bytes) -> tuple[Any, ...]:
        report = self.host.step(list(frames), advance_to)
        out = self.host.take_frames()
        return (*[out.get(j, b"") for j in range(self.shards)], report)

    def finish(self) -> ShardFinal:
        return self.host.finish()


class RayPool:
    """Shards as Ray actors (a :class:`~parties.shard_control.ShardPool`)."""

    def __init__(self, specs: list[ShardSpec], *, address: str | None = None) -> None:
        ray = require_extra("ray", "ray", needed_for="engine 'ray'")
        self._ray = ray
        self._started = False
        n = len(specs)
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            if address is None:
                ray.init(
                    num_cpus=max(n, os.cpu_count() or 1), include_dashboard=False,
                    log_to_driver=False, configure_logging=False,
                )  # fmt: skip
                self._started = True
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < n:
            raise UsageError(
                f"--workers {n} Ray actors need {n} CPUs, the Ray cluster has {cpus}; "
                f"use fewer workers or add nodes (ray start --address ...)"
            )
        actor = ray.remote(num_cpus=1, max_restarts=0)(_RayShard)
        self.actors = [actor.remote(spec, n) for spec in specs]  # type: ignore[attr-defined]
        self._outs: list[Any] = []
        try:
            ray.get([a.ready.remote() for a in self.actors])
        except Exception:
            self.close()
            raise

    def step(self, inbound: list[list[Any]], advance_to: float | None) -> list[StepReport]:
        n = len(self.actors)
        self._outs = [
            a.step.options(num_returns=n + 1).remote(advance_to, *inbound[k])
            for k, a in enumerate(self.actors)
        ]
        reports: list[StepReport] = self._ray.get([o[n] for o in self._outs])
        return reports

    def outbound(self, shard: int, dst: int) -> Any:
        return self._outs[shard][dst]

    def finish(self) -> list[ShardFinal]:
        finals: list[ShardFinal] = self._ray.get([a.finish.remote() for a in self.actors])
        return finals

    def close(self) -> None:
        for a in self.actors:
            self._ray.kill(a)
        self.actors = []
        if self._started:
            self._ray.shutdown()
