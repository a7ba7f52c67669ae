"""What running a set of roles returns, and the one interface of everything that runs them.

A :class:`Runner` drives a mapping ``party id -> Role`` -- or a
:class:`RolePlan`, a picklable recipe from which any process builds the roles
of any subset of the parties -- to completion and returns a :class:`RunResult`.  Implementations: :class:`mpc_rr.core.HarnessRunner`
(synchronous, no transport), ``parties.runner.MemoryRunner`` (Party actors
over the in-memory transport), ``parties.tcp_runner.TcpRunner`` (TCP + mutual
TLS in one process); ``parties.runners.runner_for(name)`` picks one by name.
One OS process per party runs through ``parties.procs.run_processes`` (each
process builds its own role, so it takes a protocol name, not roles).
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mpc_rr.core._costs import CostReport
from mpc_rr.core._errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.core._messages import Message
from mpc_rr.core._parts import CoordinatorPart
from mpc_rr.core._registry import RegisteredProtocol
from mpc_rr.core._roles import Role, Send
from mpc_rr.core._transcript import Transcript

__all__ = [
    "Progress",
    "RoleOutcome",
    "RolePlan",
    "RunResult",
    "Runner",
    "SpecPlan",
    "roles_of",
]

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)`` (``total = 0``: not known in advance)."""


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
        from mpc_rr.core._outcome_table import OutcomeTable

        if isinstance(self.roles, OutcomeTable):  # a large sharded run: no object per party
            return not self.errors and self.roles.all_ok()
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
        return [e for log in self.costs.peer_error_logs().values() for e in log]

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Payloads per link ``(src, dst)`` in send order (needs a transcript)."""
        if self.transcript is None:
            raise UsageError("RunResult.links: the run was started without a transcript")
        return self.transcript.links()


class RolePlan(abc.ABC):
    """A picklable recipe for the roles of one run: any process can build any subset.

    A runner that runs every role in one process calls :meth:`build` on the
    whole plan; a sharded runner sends ``plan.subset(ids)`` to the worker that
    runs ``ids``, and the worker builds them there (roles are never pickled;
    a subset carries only what its parties need: public parameters, their own
    records, a private key only to the party that owns it).  Building a subset
    gives the same roles, with the same randomness, as building the whole plan.

    ``progress`` (not pickled, dropped by :meth:`subset`) receives the roles'
    progress reports; a sharded runner forwards its workers' reports to it.
    """

    progress: Progress | None = None

    @property
    @abc.abstractmethod
    def parties(self) -> tuple[int, ...]:
        """Every party id of this plan, sorted."""

    @abc.abstractmethod
    def subset(self, ids: Sequence[int]) -> RolePlan:
        """The plan of parties ``ids`` only (a subset of :attr:`parties`), without ``progress``."""

    @abc.abstractmethod
    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        """Build every role of this plan in this process; roles report to ``progress``."""

    def coordinator_part(self, ids: Sequence[int]) -> CoordinatorPart | None:
        """Party 0's work for the parties ``ids`` of one shard, or ``None`` (the default: party 0
        does all of it).  A sharded runner that splits the coordinator asks each shard's plan
        (:mod:`mpc_rr.core._parts`)."""
        return None

    def prechecks(self) -> Mapping[int, Callable[[int, Message], bool]]:
        """``{party: check}``: stateless checks of the messages addressed to ``party`` that a
        trusted co-worker of that party may run before delivery (default: none).

        ``check(src, msg)`` is a pure function of the message, its sender and the run's
        public parameters (a signature, a hash), exactly what the party itself would check
        on receipt; a runner that spreads the parties over processes may run it where the
        sender runs, in parallel, and deliver a message that passed with
        :meth:`~mpc_rr.core.Role.receive_prechecked` -- as a deployment spreads one party's
        work over its own cores.  A message that fails is delivered as usual: the party
        checks it itself and names the culprit.
        """
        return {}

    def _check_subset(self, ids: Sequence[int]) -> tuple[int, ...]:
        out = tuple(sorted(int(i) for i in ids))
        unknown = sorted(set(out) - set(self.parties))
        if unknown:
            raise UsageError(f"{type(self).__name__}.subset: parties {unknown[:10]} are not in the plan")
        return out


def roles_of(roles: Mapping[int, Role] | RolePlan) -> Mapping[int, Role]:
    """The roles to run in this process: ``roles`` itself, or a plan built whole."""
    if isinstance(roles, RolePlan):
        return roles.build(roles.progress)
    return roles


class Runner(Protocol):
    """Runs roles to completion; configured at construction, so every runner is called alike.

    A runner that runs the parties in other processes sets ``builds_in_workers
    = True``: callers then hand it the :class:`RolePlan` rather than built
    roles, and each worker builds its subset where it runs.
    """

    name: str

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult: ...


class _OutcomeState(enum.Enum):
    RUNNING = "did not finish"
    DONE = "done"
    ABORTED = "aborted"


class RoleOutcome(Role):
    """How a role that ran in another process ended: its result or error, read-only.

    A sharded run returns these in :attr:`RunResult.roles` (the roles
    themselves stay in their workers): ``done``, ``result``, ``error``,
    ``waiting_for()`` and ``name`` behave as the role's did at its end;
    ``role_type`` and ``final_state`` name its class and last state.
    """

    def __init__(
        self,
        party_id: int,
        role_type: str,
        final_state: str,
        result: Any = None,
        error: ProtocolAbort | None = None,
        waiting: Iterable[int] = (),
        *,
        done: bool,
    ) -> None:
        state = _OutcomeState.RUNNING
        if error is not None:
            state = _OutcomeState.ABORTED
        elif done:
            state = _OutcomeState.DONE
        super().__init__(party_id, state)
        self.role_type = role_type
        self.final_state = final_state
        self._result = result
        self._error = error
        self._waiting = frozenset(int(w) for w in waiting)

    @classmethod
    def of(cls, role: Role) -> RoleOutcome:
        """The outcome of ``role`` as it stands now."""
        done = role.done
        result = None
        if done and role.error is None:
            result = role.result
        waiting = () if done else role.waiting_for()
        return cls(
            role.party_id, type(role).__name__, role.state.name, result, role.error, waiting,
            done=done,
        )  # fmt: skip

    def start(self) -> list[Send]:
        raise UsageError(f"{self.name}: a RoleOutcome records how a role ended; it cannot run")

    def waiting_for(self) -> set[int]:
        return set(self._waiting)

    @property
    def name(self) -> str:
        return f"{self.role_type} {self.party_id}"

    def __repr__(self) -> str:
        return f"RoleOutcome({self.name}, {self.final_state})"


class SpecPlan(RolePlan):
    """Roles built by a :class:`RegisteredProtocol` from public parameters (as ``mpc-rr party`` does).

    Party ``i`` of ``n_parties`` (party 0 included) is ``spec.make_role(i,
    n_parties, seed, params)``; ``spec`` must be importable by reference
    (a module-level factory), ``params`` JSON-like.
    """

    def __init__(
        self,
        spec: RegisteredProtocol,
        n_parties: int,
        seed: int,
        params: Mapping[str, Any] | None = None,
        *,
        ids: Sequence[int] | None = None,
    ) -> None:
        if n_parties < 2:
            raise UsageError(f"SpecPlan: n_parties must be >= 2, got {n_parties}")
        self.spec = spec
        self.n_parties = int(n_parties)
        self.seed = int(seed)
        self.params = dict(params or {})
        self._ids = tuple(range(self.n_parties)) if ids is None else tuple(sorted(ids))

    @property
    def parties(self) -> tuple[int, ...]:
        return self._ids

    def subset(self, ids: Sequence[int]) -> SpecPlan:
        return SpecPlan(self.spec, self.n_parties, self.seed, self.params, ids=self._check_subset(ids))

    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        return {i: self.spec.make_role(i, self.n_parties, self.seed, self.params) for i in self._ids}
