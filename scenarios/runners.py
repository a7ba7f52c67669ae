"""Pick a :class:`~mpc_rr.runs.Runner` by name: ``harness``, ``memory`` or ``tcp``."""

from __future__ import annotations

from typing import Any

from mpc_rr.errors import UsageError
from mpc_rr.runs import Runner

__all__ = ["TRANSPORTS", "runner_for"]

TRANSPORTS = ("harness", "memory", "tcp")


def runner_for(transport: str, **options: Any) -> Runner:
    """A runner for ``transport`` configured with ``options`` (the runner's own keywords).

    ``harness``: synchronous, no transport (``rng``, ``transcript``, ...);
    ``memory``: Party actors over the memory transport with virtual time
    (``step_timeout``, ``transcript``, ``tap``, ...); ``tcp``: Party actors
    over TCP + mutual TLS on 127.0.0.1 in one process (``step_timeout``, ...).
    """
    if transport == "harness":
        from mpc_rr.harness import HarnessRunner

        options.pop("step_timeout", None)  # the harness has no clock: deadlines are "queue empty"
        return HarnessRunner(**options)
    if transport == "memory":
        from parties.runner import MemoryRunner

        return MemoryRunner(**options)
    if transport == "tcp":
        from parties.tcp_runner import TcpRunner

        return TcpRunner(**options)
    raise UsageError(f"transport must be one of {TRANSPORTS}, got {transport!r}")
