"""Many simulated schedules over the cores: :func:`mpc_rr.simulation.simulate` per chunk of seeds.

The seeds are cut into consecutive chunks, each run by :func:`~mpc_rr.simulation.simulate`
in a worker process, and the chunks are merged in seed order
(:func:`~mpc_rr.simulation.merge`): the report is the same whatever the number of workers.
Below :data:`PARALLEL_FROM` schedules (or with one worker) everything runs here.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import multiprocessing
from typing import Any

from mpc_rr.simulation import Campaign, merge, simulate
from parties.cores import available_cores, check_workers

__all__ = ["PARALLEL_FROM", "simulate_over_cores"]

PARALLEL_FROM = 400
"""Fewer schedules than this run in this process (a worker's start-up costs about a second)."""


def simulate_over_cores(protocol: str, schedules: int, *, seed: int = 0, workers: int | None = None,
                        **options: Any) -> Campaign:  # fmt: skip
    """:func:`~mpc_rr.simulation.simulate` of seeds ``seed .. seed + schedules - 1``, over
    ``workers`` processes (default: one per core) when there are many."""
    jobs = available_cores() if workers is None else check_workers(int(workers), "--workers")
    if jobs <= 1 or schedules < PARALLEL_FROM:
        return simulate(protocol, schedules, seed=seed, **options)
    simulate(protocol, 1, seed=seed, **options)  # a usage error here, before any worker starts
    chunks = min(schedules, 8 * jobs)
    bounds = [seed + schedules * k // chunks for k in range(chunks + 1)]
    ctx = multiprocessing.get_context("spawn")
    with cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = [pool.submit(simulate, protocol, hi - lo, seed=lo, **options)
                   for lo, hi in itertools.pairwise(bounds) if hi > lo]  # fmt: skip
        return merge([f.result() for f in futures])
