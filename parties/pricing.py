"""Deployments priced on a network: a memory runner under a network profile, in virtual time.

:class:`PricedRunner` runs each protocol run it is given as Party actors over
the memory transport with the per-party links of a
:class:`~transports.network_profiles.NetworkProfile` (latency, jitter, loss,
access-link bandwidth, stragglers) under a ``MockClock`` that jumps whenever
every party waits.  Party compute takes no virtual time there, so the
virtual time at which the run ends is the run's **network critical path**:
the longest chain of message dependencies, each message paying its
sender's uplink queue, the one-way latency and its receiver's downlink
queue (``network_s``).  The same run's wall time on this machine is its
**CPU** figure (``cpu_s``: every party's compute in series on these cores,
plus the link simulation's bookkeeping).

The **projected wall time** of the deployment is their sum,
``network_s + cpu_s``: the model assumes no compute overlaps a message in
flight, which holds for the round-synchronous protocols here (a party
computes on what it received, then sends) and errs high when parties on
separate machines compute in parallel.  Runs of one command (e.g. the
pipeline's phases) are sequential, so their figures add up.  Validated
against TCP + TLS on loopback with a known delay per message
(``tests/integration/test_network_projection.py``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

import numpy as np
import trio.testing

from mpc_rr.core import Role, RunResult, UsageError
from mpc_rr.core._runs import RolePlan, roles_of
from parties.runner import run_memory_sync
from transports.network_profiles import NetworkProfile, load_profile, profile_links

__all__ = ["PricedRunner", "network_runner", "pricing_line"]

MODEL = "projected wall = network critical path (virtual time, compute free) + CPU here (parties in series)"


class PricedRunner:
    """A :class:`~mpc_rr.core.Runner` over the memory transport priced on ``profile``.

    ``seed`` draws every party's RTT and rates (the same seed, the same
    network); ``options`` are :func:`~parties.runner.run_memory`'s
    (``step_timeout``, ``transcript``, ...).
    """

    name = "memory"

    def __init__(self, profile: NetworkProfile, seed: int, **options: Any) -> None:
        if "link" in options or "rng" in options:
            raise UsageError("PricedRunner: the profile gives the links; no link or rng option")
        self.profile = profile
        self.seed = int(seed)
        self.options = options
        self.runs: list[dict[str, float]] = []

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult:
        plan = roles_of(roles)
        k = len(self.runs)
        link = profile_links(self.profile, plan.keys(), np.random.default_rng([self.seed, 0x4E7, k]))
        clock = trio.testing.MockClock(autojump_threshold=0)
        t0 = time.perf_counter()
        result = run_memory_sync(
            plan, clock=clock, link=link, rng=np.random.default_rng([self.seed, 0x11, k]), **self.options
        )
        cpu = time.perf_counter() - t0
        net = float(clock.current_time())
        self.runs.append({"parties": float(len(plan)), "network_s": net, "cpu_s": cpu})
        result.costs.extra["network_s"] = net
        return result

    def summary(self) -> dict[str, Any]:
        """What results.json stores: the profile, the figures of every run and their sums."""
        net = sum(r["network_s"] for r in self.runs)
        cpu = sum(r["cpu_s"] for r in self.runs)
        return {
            "profile": asdict(self.profile),
            "seed": self.seed,
            "runs": self.runs,
            "network_s": net,
            "cpu_s": cpu,
            "projected_wall_s": net + cpu,
            "model": MODEL,
        }


def network_runner(spec: str, seed: int, *, transport: str | None, workers: int | None = None,
                   **options: Any) -> PricedRunner:  # fmt: skip
    """The runner of ``--network SPEC`` (a profile name or FILE.toml), refusing what it cannot price."""
    if transport not in (None, "memory"):
        raise UsageError(
            f"--network prices the run over the simulated network (--transport memory), not "
            f"--transport {transport}; drop one of them"
        )
    if workers is not None and workers > 1:
        raise UsageError("--network runs the parties in one process: drop --workers")
    return PricedRunner(load_profile(spec), seed, **options)


def pricing_line(doc: Mapping[str, Any]) -> str:
    """One line for a command's summary: the projection next to the CPU figure."""
    return (
        f"deployment on network {doc['profile']['name']!r}: projected wall {doc['projected_wall_s']:.2f} s "
        f"= network critical path {doc['network_s']:.2f} s + CPU here {doc['cpu_s']:.2f} s "
        f"({len(doc['runs'])} run{'s' if len(doc['runs']) != 1 else ''})"
    )


def scenario_runner(network: str | None, transport: str, seed: int, **options: Any) -> PricedRunner | None:
    """A scenario point's :class:`PricedRunner` (its ``network`` field), or ``None`` without one."""
    if network is None:
        return None
    return network_runner(network, seed, transport=transport, **options)


def network_metrics(priced: PricedRunner | None) -> dict[str, float | None]:
    """The scenario metrics ``network_s`` and ``projected_wall_s`` (``None`` when not priced)."""
    if priced is None:
        return {"network_s": None, "projected_wall_s": None}
    doc = priced.summary()
    return {"network_s": doc["network_s"], "projected_wall_s": doc["projected_wall_s"]}
