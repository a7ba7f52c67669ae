"""What running a set of roles returns, and the one interface of everything that runs them.

A :class:`Runner` drives a mapping ``party id -> Role`` to completion and
returns a :class:`RunResult`.  Implementations: :class:`mpc_rr.harness.HarnessRunner`
(synchronous, no transport), ``parties.runner.MemoryRunner`` (Party actors
over the in-memory transport), ``parties.tcp_runner.TcpRunner`` (TCP + mutual
TLS in one process); ``scenarios.runners.runner_for(name)`` picks one by name.
One OS process per party runs through ``parties.procs.run_processes`` (each
process builds its own role, so it takes a protocol name, not roles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from mpc_rr.costs import CostReport
from mpc_rr.errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.roles import Role
from mpc_rr.transcript import Transcript

__all__ = ["ProtocolSpec", "RoleFactory", "RunResult", "Runner", "result_to_json"]


@dataclass
class RunResult:
    """Outcome of one run: the roles, per-party errors, costs and (optionally) a transcript."""

    roles: Mapping[int, Role]
    costs: CostReport
    errors: dict[int, ProtocolAbort] = field(default_factory=dict)
    transcript: Transcript | None = None

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

    def peer_errors(self) -> list[PeerError]:
        """The peer errors every party kept (each party's log is bounded), by party id."""
        return [e for pid in sorted(self.costs.parties) for e in self.costs.parties[pid].peer_errors]

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Payloads per link ``(src, dst)`` in send order (needs a transcript)."""
        if self.transcript is None:
            raise UsageError("RunResult.links: the run was started without a transcript")
        return self.transcript.links()


class Runner(Protocol):
    """Runs roles to completion; configured at construction, so every runner is called alike."""

    name: str

    def __call__(self, roles: Mapping[int, Role]) -> RunResult: ...


RoleFactory = Callable[[int, int, int, Mapping[str, Any]], Role]
"""``make_role(party_id, n_parties, seed, params) -> Role``: one party's role built from
public parameters only (``n_parties`` counts party 0), so a separate process can build it."""


def result_to_json(result: Any) -> Any:
    """Default JSON form of a role's result: arrays as lists, dataclasses as dicts."""
    import dataclasses

    if isinstance(result, np.ndarray):
        return result.tolist()
    if isinstance(result, np.generic):
        return result.item()
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: result_to_json(getattr(result, f.name)) for f in dataclasses.fields(result)}
    if isinstance(result, dict):
        return {str(k): result_to_json(v) for k, v in result.items()}
    if isinstance(result, list | tuple):
        return [result_to_json(v) for v in result]
    return result


@dataclass(frozen=True)
class ProtocolSpec:
    """A named protocol: how one party builds its role, and how its result becomes JSON."""

    name: str
    make_role: RoleFactory
    result_to_json: Callable[[Any], Any] = result_to_json
