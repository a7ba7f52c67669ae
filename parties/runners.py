"""Pick a :class:`~mpc_rr.core.Runner` by name: ``harness``, ``memory``, ``sharded``, ``ray`` or ``tcp``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError

if TYPE_CHECKING:  # (the CLI reads TRANSPORTS at start-up: no numpy)
    from mpc_rr.core import Runner

__all__ = ["LOCAL_TRANSPORTS", "TRANSPORTS", "runner_for"]

TRANSPORTS = ("harness", "memory", "sharded", "ray", "tcp")
LOCAL_TRANSPORTS = ("harness", "memory", "tcp")
"""The runners a command's ``--transport`` chooses (sharding is ``--workers``, Ray ``--engine``)."""


def runner_for(transport: str, *, workers: int | None = None, **options: Any) -> Runner:
    """A runner for ``transport`` configured with ``options`` (the runner's own keywords).

    ``harness``: synchronous, no transport (``rng``, ``transcript``, ...);
    ``memory``: Party actors over the memory transport with virtual time
    (``step_timeout``, ``transcript``, ``tap``, ...) in this process, or, with
    ``workers`` > 1, sharded over that many worker processes
    (:class:`parties.shards.ShardedRunner`); ``sharded``: always sharded
    (``workers`` default: the cores available); ``ray``: the same shards as Ray
    actors (``workers``, ``ray_address``); ``tcp``: Party actors over TCP +
    mutual TLS on 127.0.0.1 in one process (``step_timeout``, ...).
    ``workers`` applies to ``memory``, ``sharded`` and ``ray`` only.
    """
    if transport not in TRANSPORTS:
        raise UsageError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"workers must be >= 1, got {workers}")
    if workers is not None and workers > 1 and transport in ("harness", "tcp"):
        raise UsageError(
            f"workers > 1 shards the in-memory simulation: it needs transport memory, sharded "
            f"or ray, not {transport!r}"
        )
    if transport == "harness":
        from mpc_rr.core import HarnessRunner

        options.pop("step_timeout", None)  # the harness has no clock: deadlines are "queue empty"
        return HarnessRunner(**options)
    if transport == "tcp":
        from parties.tcp_runner import TcpRunner

        return TcpRunner(**options)
    if transport == "memory" and (workers is None or workers == 1):
        from parties.runner import MemoryRunner

        return MemoryRunner(**options)
    from parties.shards import ShardedRunner

    engine = "ray" if transport == "ray" else "processes"
    return ShardedRunner(workers=workers, engine=engine, **options)
