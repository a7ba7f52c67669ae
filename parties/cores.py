"""How many worker processes this machine runs well: the cores this process may use, and the
bound a request for workers is checked against (before any is started)."""

from __future__ import annotations

import os

from mpc_rr.core import UsageError

__all__ = ["WORKERS_PER_CORE", "available_cores", "check_workers"]

WORKERS_PER_CORE = 4
"""At most this many shard worker processes per core: past one per core they only share the
cores (each holds its parties' state in memory), so a few per core is already generous."""


def available_cores() -> int:
    """CPUs this process may run on (the default number of workers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_workers(workers: int, flag: str = "workers") -> int:
    """``workers`` if this machine can run that many worker processes, else a
    :class:`~mpc_rr.core.UsageError` naming the bound (:data:`WORKERS_PER_CORE` per core)."""
    cores = available_cores()
    bound = WORKERS_PER_CORE * cores
    if workers > bound:
        raise UsageError(
            f"{flag} {workers:,} worker processes on {cores} core(s): at most {bound} "
            f"({WORKERS_PER_CORE} per core; more only share the cores and each holds memory); "
            f"use {flag} {cores} (one per core, the default)"
        )
    return workers
