"""Ways to execute a set of protocol roles, all returning the same :class:`Execution`.

* ``harness``: the synchronous driver of :mod:`mpc_rr.harness` (no transport;
  every message still goes through the codec, so byte counts are real).
* ``memory`` / ``tcp``: Party actors over the runtime's transports
  (:mod:`parties`), plugged in by :func:`get_executor` when available.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.harness import run_roles
from mpc_rr.messages import Codec
from mpc_rr.roles import COORDINATOR, Role

__all__ = [
    "EXECUTORS",
    "Execution",
    "RoleCost",
    "get_executor",
    "harness_executor",
    "memory_executor",
    "tcp_executor",
]


@dataclass
class RoleCost:
    messages_sent: int = 0
    bytes_sent: int = 0
    messages_received: int = 0
    bytes_received: int = 0


@dataclass
class Execution:
    roles: Mapping[int, Role]
    wall_s: float
    costs: dict[int, RoleCost] = field(default_factory=dict)
    transport: str = "harness"
    peer_errors: list[Any] = field(default_factory=list)

    def cost_summary(self) -> dict[str, Any]:
        """Messages and bytes for the coordinator and for data parties (total and per party)."""
        coord = self.costs.get(COORDINATOR, RoleCost())
        parties = [c for pid, c in self.costs.items() if pid != COORDINATOR]
        n = max(1, len(parties))

        def tot(attr: str) -> int:
            return int(sum(getattr(c, attr) for c in parties))

        return {
            "coordinator": {k: getattr(coord, k) for k in vars(coord)},
            "parties": {k: tot(k) for k in vars(RoleCost())},
            "per_party": {k: tot(k) / n for k in vars(RoleCost())},
            "messages": int(sum(c.messages_sent for c in self.costs.values())),
            "bytes": int(sum(c.bytes_sent for c in self.costs.values())),
            "wall_s": self.wall_s,
            "transport": self.transport,
        }


Executor = Callable[[Mapping[int, Role]], Execution]


def harness_executor(roles: Mapping[int, Role], *, seed: int = 0) -> Execution:
    types = tuple(dict.fromkeys(t for r in roles.values() for t in r.message_types))
    codec = Codec(types)
    t0 = time.perf_counter()
    res = run_roles(roles, rng=np.random.default_rng(seed), codec=codec)
    wall = time.perf_counter() - t0
    costs: dict[int, RoleCost] = {pid: RoleCost() for pid in roles}
    for t in res.trace:
        size = len(codec.encode(t.msg))
        costs[t.src].messages_sent += 1
        costs[t.src].bytes_sent += size
        if t.delivered:
            costs[t.dst].messages_received += 1
            costs[t.dst].bytes_received += size
    return Execution(roles, wall, costs, "harness", list(res.peer_errors))


def _from_run(roles: Mapping[int, Role], run: Any, transport: str) -> Execution:
    costs = {
        pid: RoleCost(st.messages_sent, st.bytes_sent, st.messages_received, st.bytes_received)
        for pid, st in run.costs.parties.items()
    }
    errs = [e for st in run.costs.parties.values() for e in st.peer_errors]
    ex = Execution(roles, run.costs.wall_s, costs, transport, errs)
    ex.rounds = run.costs.rounds  # type: ignore[attr-defined]
    return ex


def memory_executor(roles: Mapping[int, Role], *, step_timeout: float = 600.0) -> Execution:
    """Party actors over the in-memory transport (one trio nursery)."""
    from parties.runner import run_memory_sync

    return _from_run(roles, run_memory_sync(roles, step_timeout=step_timeout), "memory")


def tcp_executor(roles: Mapping[int, Role], *, step_timeout: float = 600.0) -> Execution:
    """Party actors, each behind its own mutually authenticated TLS connection to the hub on loopback."""
    from parties.tcp_runner import run_tcp_sync

    return _from_run(roles, run_tcp_sync(roles, step_timeout=step_timeout), "tcp")


EXECUTORS: dict[str, Executor] = {
    "harness": harness_executor,
    "memory": memory_executor,
    "tcp": tcp_executor,
}


def get_executor(transport: str) -> Executor:
    try:
        return EXECUTORS[transport]
    except KeyError:
        raise UsageError(
            f"transport must be one of {sorted(EXECUTORS)}, got {transport!r}"
        ) from None
