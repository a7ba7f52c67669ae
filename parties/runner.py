"""Run a set of roles as Party actors over the in-memory transport.

:class:`MemoryRunner` is the :class:`~mpc_rr.core.Runner` for the memory
transport: one :class:`~parties.party.Party` per role in one trio nursery
over a :class:`~transports.memory.MemoryNetwork`.  With ``virtual_time=True``
(the default) it runs under ``trio.testing.MockClock(autojump_threshold=0)``:
a 30-second step deadline costs nothing, so dropouts are cheap to simulate.
:func:`run_parties` drives already-built parties (the TCP runners share it).

For TCP in one process see :mod:`parties.tcp_runner`; for one OS process per
party see :mod:`parties.procs`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import trio
import trio.testing

from mpc_rr.core import CostReport, ProtocolAbort, Role, RunResult, Transcript, UsageError
from mpc_rr.core._runs import RolePlan, roles_of
from parties.party import Party
from transports.memory import DEFAULT_BUFFER, LinkModel, MemoryNetwork
from transports.tap import Tap

__all__ = ["MemoryRunner", "StepTimeout", "run_memory", "run_memory_sync", "run_parties", "timeout_for"]

StepTimeout = float | Mapping[int, float | None] | None
"""One step timeout for every party, or ``party -> seconds`` (missing = none)."""


def timeout_for(step_timeout: StepTimeout, pid: int) -> float | None:
    if isinstance(step_timeout, Mapping):
        return step_timeout.get(pid)
    return step_timeout


def sent_transcript(observer: str = "parties (what each party sent)") -> Transcript:
    return Transcript(observer)


async def run_parties(
    parties: Mapping[int, Party],
    *,
    timeout: float | None = None,
    transport: str = "memory",
    transcript: Transcript | None = None,
) -> RunResult:
    """Run already-built parties concurrently until all are done (or ``timeout``)."""
    t0 = time.perf_counter()
    with trio.move_on_after(float("inf") if timeout is None else timeout) as scope:
        async with trio.open_nursery() as nursery:
            for p in parties.values():
                nursery.start_soon(p.run)
    wall = time.perf_counter() - t0
    errors: dict[int, ProtocolAbort] = {}
    for pid, p in parties.items():
        if p.stats.error is None and not p.role.done and scope.cancelled_caught:
            waiting = sorted(p.role.waiting_for())
            p.stats.error = ProtocolAbort(
                f"party {pid}: run timed out after {timeout} s; waiting for {waiting}", waiting
            )
        if p.stats.error is not None:
            errors[pid] = p.stats.error
    costs = CostReport({pid: p.stats for pid, p in parties.items()}, wall, transport)
    return RunResult({pid: p.role for pid, p in parties.items()}, costs, errors, transcript)


async def run_memory(
    roles: Mapping[int, Role],
    *,
    buffer: int = DEFAULT_BUFFER,
    link: LinkModel | Callable[[int, int], LinkModel] | None = None,
    rng: np.random.Generator | None = None,
    tap: Tap | None = None,
    step_timeout: StepTimeout = None,
    timeout: float | None = None,
    transcript: bool = False,
) -> RunResult:
    """Run ``roles`` (``party id -> role``) as Party actors over a fresh MemoryNetwork.

    Parameters are those of :class:`~transports.memory.MemoryNetwork`
    (``buffer``, ``link``, ``rng``, ``tap``) and :class:`~parties.party.Party`
    (``step_timeout``); ``timeout`` bounds the whole run (unfinished parties
    get a ProtocolAbort naming whom they were waiting for); ``transcript``
    records what every party sent (one merged :class:`Transcript`).
    """
    for pid, role in roles.items():
        if role.party_id != pid:
            raise UsageError(f"run_memory: roles[{pid}] has party_id {role.party_id}")
    trace = sent_transcript() if transcript else None
    async with MemoryNetwork(roles.keys(), buffer=buffer, link=link, rng=rng, tap=tap) as net:
        parties = {
            pid: Party(
                role,
                net.endpoint(pid),
                step_timeout=timeout_for(step_timeout, pid),
                transcript=trace,
            )
            for pid, role in roles.items()
        }
        return await run_parties(parties, timeout=timeout, transport="memory", transcript=trace)


def run_memory_sync(roles: Mapping[int, Role], *, clock: Any = None, **kwargs: Any) -> RunResult:
    """``trio.run(run_memory(roles, **kwargs))``; ``clock`` e.g. a MockClock."""
    return trio.run(functools.partial(run_memory, roles, **kwargs), clock=clock)


class MemoryRunner:
    """Party actors over the in-memory transport (a :class:`~mpc_rr.core.Runner`).

    ``virtual_time`` runs under a MockClock that jumps whenever every task
    waits, so step deadlines cost no wall time (compute still does).
    Other options are :func:`run_memory`'s.
    """

    name = "memory"

    def __init__(
        self,
        *,
        step_timeout: StepTimeout = 30.0,
        virtual_time: bool = True,
        timeout: float | None = None,
        transcript: bool = False,
        tap: Tap | None = None,
        link: LinkModel | Callable[[int, int], LinkModel] | None = None,
        rng: np.random.Generator | None = None,
        buffer: int = DEFAULT_BUFFER,
    ) -> None:
        self.virtual_time = virtual_time
        self.options: dict[str, Any] = dict(
            step_timeout=step_timeout, timeout=timeout, transcript=transcript, tap=tap,
            link=link, rng=rng, buffer=buffer,
        )  # fmt: skip

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult:
        clock = trio.testing.MockClock(autojump_threshold=0) if self.virtual_time else None
        return run_memory_sync(roles_of(roles), clock=clock, **self.options)
