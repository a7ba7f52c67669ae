"""Run a set of roles as Party actors over the in-memory transport.

:func:`run_memory` starts one :class:`~parties.party.Party` per role in one
trio nursery over a :class:`~transports.memory.MemoryNetwork` and returns the
roles, a :class:`~parties.costs.CostReport` and, optionally, the transcripts.
:func:`run_memory_sync` wraps it in ``trio.run`` (pass
``clock=trio.testing.MockClock(autojump_threshold=0)`` for virtual time).

For separate OS processes over TCP see :mod:`parties.procs`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import trio

from mpc_rr.errors import ProtocolAbort, UsageError
from mpc_rr.roles import Role
from parties.costs import CostReport
from parties.party import Party
from transports.memory import DEFAULT_BUFFER, LinkModel, MemoryNetwork
from transports.tap import Tap

__all__ = ["RunResult", "run_memory", "run_memory_sync", "run_parties"]


def _timeout_for(step_timeout: float | Mapping[int, float | None] | None, pid: int) -> float | None:
    """One step timeout for everyone, or a per-party mapping (missing = no timeout)."""
    if isinstance(step_timeout, Mapping):
        return step_timeout.get(pid)
    return step_timeout


@dataclass
class RunResult:
    """Outcome of a run: the roles, per-party errors, costs and transcripts."""

    roles: Mapping[int, Role]
    costs: CostReport
    errors: dict[int, ProtocolAbort] = field(default_factory=dict)
    transcripts: dict[int, list[tuple[int, int, bytes]]] | None = None

    @property
    def ok(self) -> bool:
        """Every role finished with a result and no party recorded an error."""
        return not self.errors and all(r.done and r.error is None for r in self.roles.values())

    def results(self) -> dict[int, Any]:
        """``party -> result`` for parties that finished (aborted ones are in ``errors``)."""
        return {
            p: r.result
            for p, r in self.roles.items()
            if r.done and r.error is None and p not in self.errors
        }

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Transcript per link ``(src, dst)`` in send order (needs ``transcript=True``)."""
        if self.transcripts is None:
            raise UsageError("RunResult.links: the run was started without transcript=True")
        out: dict[tuple[int, int], list[bytes]] = {}
        for t in self.transcripts.values():
            for src, dst, data in t:
                out.setdefault((src, dst), []).append(data)
        return out


async def run_parties(
    parties: Mapping[int, Party],
    *,
    timeout: float | None = None,
    transport: str = "memory",
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
        if p.stats.error is not None:
            errors[pid] = p.stats.error
        elif not p.role.done and scope.cancelled_caught:
            waiting = sorted(p.role.waiting_for())
            err = ProtocolAbort(
                f"party {pid}: run timed out after {timeout} s; waiting for {waiting}", waiting
            )
            p.stats.error = errors[pid] = err
        elif p.role.error is not None:
            errors[pid] = p.role.error
    costs = CostReport({pid: p.stats for pid, p in parties.items()}, wall, transport)
    transcripts = None
    if all(p.transcript is not None for p in parties.values()):
        transcripts = {pid: p.transcript for pid, p in parties.items()}  # type: ignore[misc]
    return RunResult({pid: p.role for pid, p in parties.items()}, costs, errors, transcripts)


async def run_memory(
    roles: Mapping[int, Role],
    *,
    buffer: int = DEFAULT_BUFFER,
    link: LinkModel | Callable[[int, int], LinkModel] | None = None,
    rng: np.random.Generator | None = None,
    tap: Tap | None = None,
    step_timeout: float | Mapping[int, float | None] | None = None,
    max_timeouts: int = 1,
    timeout: float | None = None,
    transcript: bool = False,
) -> RunResult:
    """Run ``roles`` (``party id -> role``) as Party actors over a fresh MemoryNetwork.

    Parameters are those of :class:`~transports.memory.MemoryNetwork`
    (``buffer``, ``link``, ``rng``, ``tap``) and :class:`~parties.party.Party`
    (``step_timeout`` -- one value or a ``party -> seconds`` mapping, e.g. a
    shorter one for the hub than for clients --, ``max_timeouts``,
    ``transcript``); ``timeout`` bounds
    the whole run (unfinished parties get a ProtocolAbort naming whom they
    were waiting for).
    """
    for pid, role in roles.items():
        if role.party_id != pid:
            raise UsageError(f"run_memory: roles[{pid}] has party_id {role.party_id}")
    async with MemoryNetwork(roles.keys(), buffer=buffer, link=link, rng=rng, tap=tap) as net:
        parties = {
            pid: Party(
                role,
                net.endpoint(pid),
                step_timeout=_timeout_for(step_timeout, pid),
                max_timeouts=max_timeouts,
                transcript=transcript,
            )
            for pid, role in roles.items()
        }
        return await run_parties(parties, timeout=timeout, transport="memory")


def run_memory_sync(roles: Mapping[int, Role], *, clock: Any = None, **kwargs: Any) -> RunResult:
    """``trio.run(run_memory(roles, **kwargs))``; ``clock`` e.g. a MockClock."""
    return trio.run(functools.partial(run_memory, roles, **kwargs), clock=clock)
