"""Runners that drive secure-sum roles over the runtime (memory, TCP + TLS).

They implement :class:`mpc_rr.secure_sum.simulate.Runner` so that
:func:`~mpc_rr.secure_sum.simulate.run_secure_sum` (pure, in ``mpc_rr``) can
run over the Party actors without ``mpc_rr`` importing the runtime.
"""

from __future__ import annotations

import numpy as np
import trio.testing

from mpc_rr.errors import UsageError
from mpc_rr.messages import Codec, Message
from mpc_rr.roles import COORDINATOR, Role, Send
from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES
from mpc_rr.secure_sum.simulate import HarnessRunner, RunCosts, Runner
from parties.runner import RunResult, run_memory_sync
from parties.tcp_runner import run_tcp_sync

__all__ = ["MemoryRunner", "TcpRunner", "runner_for"]

MAX_TIMEOUTS = 8  # a data party waits through the aggregator's four step deadlines


def _costs(out: RunResult, n: int) -> RunCosts:
    st = out.costs.parties
    sent = np.array([st[i].bytes_sent if i in st else 0 for i in range(n + 1)])
    recv = np.array([st[i].bytes_received if i in st else 0 for i in range(n + 1)])
    return RunCosts(out.costs.messages, sent, recv)


class MemoryRunner:
    """Party actors over the in-memory transport with virtual time (timeouts cost nothing)."""

    name = "memory"

    def __call__(
        self, roles: dict[int, Role], *, codec: Codec, n: int, step_timeout: float
    ) -> RunCosts:
        out = run_memory_sync(
            roles,
            clock=trio.testing.MockClock(autojump_threshold=0),
            step_timeout=step_timeout,
            max_timeouts=MAX_TIMEOUTS,
        )
        return _costs(out, n)


class _Idle(Role):
    """Party 0 when the protocol has no role for it (the TCP hub still relays frames)."""

    message_types = MESH_MESSAGES

    def __init__(self) -> None:
        super().__init__(COORDINATOR)

    def start(self) -> list[Send]:
        self._done = True
        return []

    def receive(self, src: int, msg: Message) -> list[Send]:
        return []


class TcpRunner:
    """Party actors over TCP + mutual TLS on 127.0.0.1, one process (real time)."""

    name = "tcp"

    def __call__(
        self, roles: dict[int, Role], *, codec: Codec, n: int, step_timeout: float
    ) -> RunCosts:
        if COORDINATOR not in roles:  # all-to-all mesh: the hub relays and holds no role
            roles = {COORDINATOR: _Idle(), **roles}
        out = run_tcp_sync(roles, step_timeout=step_timeout, max_timeouts=MAX_TIMEOUTS)
        return _costs(out, n)


def runner_for(transport: str) -> Runner:
    """``"harness"``, ``"memory"`` or ``"tcp"`` -> a runner."""
    if transport == "harness":
        return HarnessRunner()
    if transport == "memory":
        return MemoryRunner()
    if transport == "tcp":
        return TcpRunner()
    raise UsageError(f"transport must be 'harness', 'memory' or 'tcp', got {transport!r}")
