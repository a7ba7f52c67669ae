"""Plaintext sum through a hub: the reference protocol that proves the runtime.

How this protocol works (no privacy at all -- it is a smoke test):

1. every client ``i`` in ``1..n`` sends its integer vector ``x_i`` to the hub
   (party 0) in a :class:`PlainValue` (step 0);
2. the hub adds the vectors; when all ``n`` arrived it sends the total to
   every client in a :class:`PlainTotal` (step 1);
3. each role's result is a :class:`~mpc_rr.secure_sum.SumResult`: the total,
   and at the hub the clients it includes (a client is not told: ``-1``).

The transition tables (:data:`CLIENT_TABLE`, :data:`HUB_TABLE`, each right
under its role's State enum) are the whole state diagram: the hub self-loops
on PlainValue in COLLECTING and leaves on "all in" (or its deadline); a
client leaves WAITING on PlainTotal.

Inputs are drawn from ``SeedSequence(seed, spawn_key=(i,))`` -- the same
stream as ``SeedSequence(seed).spawn(n)[i]`` -- so any process can build
party ``i``'s role from ``(n, seed, params)`` alone.
"""

from __future__ import annotations

import enum
import numbers
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    table,
)
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR, broadcast
from mpc_rr.secure_sum._common import SumResult

__all__ = [
    "ClientState",
    "HubState",
    "PlainPublic",
    "PlainSumClient",
    "PlainSumHub",
    "PlainTotal",
    "PlainValue",
    "client_input",
    "expected_total",
    "make_role",
]


class PlainValue(Message, frozen=True):
    """A client's vector, sent to the hub."""

    x: WireArray


class PlainTotal(Message, frozen=True):
    """The hub's total, sent to every client."""

    total: WireArray


def client_input(party_id: int, seed: int, cells: int, high: int = 100) -> np.ndarray:
    """Party ``party_id``'s input vector (int64, values in ``[0, high)``)."""
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(party_id),)))
    return rng.integers(0, high, size=int(cells), dtype=np.int64)


def expected_total(n_clients: int, seed: int, cells: int) -> np.ndarray:
    """The plaintext sum the protocol must produce (computed without the protocol)."""
    total = np.zeros(int(cells), np.int64)
    for i in range(1, int(n_clients) + 1):
        total += client_input(i, seed, cells)
    return total


class ClientState(enum.Enum):
    WAITING = "waiting for the total"
    DONE = "done"
    ABORTED = "aborted"


# A client sends its vector to the hub when it starts, then waits for the total.
CLIENT_TABLE = table({
    (ClientState.WAITING, PlainTotal): Transition("_on_total", ClientState.DONE),
})


class HubState(enum.Enum):
    COLLECTING = "collecting values"
    DONE = "done"
    ABORTED = "aborted"


# The hub adds the clients' vectors as they come; when all are in it sends every client the
# total.  At its deadline it aborts naming the silent clients -- or, with proceed_on_timeout,
# sums those that answered.
HUB_TABLE = table({
    (HubState.COLLECTING, PlainValue): Transition("_on_value", HubState.COLLECTING),
    (HubState.COLLECTING, AllIn): Transition("_finish", HubState.DONE),
    (HubState.COLLECTING, Deadline): Transition("_on_deadline", HubState.DONE),
})


class PlainSumClient(Role):
    """Client ``i``: send ``x`` to the hub, receive the total."""

    TRANSITIONS = CLIENT_TABLE
    message_types = (PlainTotal,)
    patience = 3  # the hub may spend its own deadline waiting for slow clients

    def __init__(self, party_id: int, x: np.ndarray, *, run: str = "") -> None:
        super().__init__(party_id, ClientState.WAITING)
        if party_id == COORDINATOR:
            raise UsageError(f"PlainSumClient: party_id must not be the hub ({COORDINATOR})")
        self.x = np.asarray(x, dtype=np.int64)
        self.run = run

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, PlainValue(x=WireArray.from_numpy(self.x), run=self.run))]

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else ONLY_COORDINATOR

    def _on_total(self, src: int, msg: PlainTotal) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: PlainTotal from party {src}, not the hub", src)
        total = msg.total.to_numpy(dtype=np.int64, shape=self.x.shape, sender=src)
        self.finish(SumResult(total, (), -1, 0))
        return []


class PlainSumHub(Role):
    """The hub: add the clients' vectors, then broadcast the total."""

    TRANSITIONS = HUB_TABLE
    message_types = (PlainValue,)

    def __init__(
        self, n_clients: int, cells: int, *, run: str = "", proceed_on_timeout: bool = False
    ) -> None:
        super().__init__(COORDINATOR, HubState.COLLECTING)
        if int(n_clients) < 1:
            raise UsageError(f"PlainSumHub: n_clients must be >= 1, got {n_clients!r}")
        self.n_clients = int(n_clients)
        self.proceed_on_timeout = bool(proceed_on_timeout)
        self.dropped: tuple[int, ...] = ()
        self.cells = int(cells)
        self.run = run
        self._missing = set(range(1, self.n_clients + 1))
        self._sum = np.zeros(self.cells, np.int64)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self._missing

    def _on_value(self, src: int, msg: PlainValue) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected or duplicate PlainValue from party {src}", src)
        self._sum += msg.x.to_numpy(dtype=np.int64, shape=(self.cells,), sender=src)
        self._missing.discard(src)
        return []

    def _on_deadline(self) -> list[Send]:
        """Abort naming the silent clients, or (``proceed_on_timeout``) sum without them."""
        if not self.proceed_on_timeout:
            missing = sorted(self._missing)
            self.abort(f"{self.name}: timed out waiting for parties {missing}", missing)
            return []
        self.dropped = tuple(sorted(self._missing))
        return self._finish()

    def _finish(self) -> list[Send]:
        included = tuple(i for i in range(1, self.n_clients + 1) if i not in self._missing)
        self.finish(SumResult(self._sum.copy(), included, len(included), 0))
        total = PlainTotal(total=WireArray.from_numpy(self._sum), run=self.run, step=1)
        return broadcast((i for i in range(1, self.n_clients + 1) if i not in self._missing), total)


def make_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Protocol factory: the role of ``party_id`` in a deployment of ``n_parties`` (hub included).

    ``params``: ``cells`` (vector length, default 4), ``run`` (run id, default ""),
    ``proceed_on_timeout`` (hub sums the clients that answered, default false).
    """
    unknown = sorted(set(params) - {"cells", "run", "proceed_on_timeout"})
    if unknown:
        raise UsageError(
            f"plainsum params: unknown key(s) {', '.join(map(repr, unknown))}; its keys are 'cells', "
            "'proceed_on_timeout' (and 'run')"
        )
    cells = params.get("cells", 4)
    run = str(params.get("run", ""))
    proceed = bool(params.get("proceed_on_timeout", False))
    if isinstance(cells, bool) or not isinstance(cells, numbers.Integral) or cells < 1:
        raise UsageError(f"plainsum: params['cells'] must be an int >= 1, got {cells!r}")
    cells = int(cells)
    if not 0 <= party_id < n_parties:
        raise UsageError(f"plainsum: party_id must be in [0, {n_parties}), got {party_id}")
    if party_id == COORDINATOR:
        return PlainSumHub(n_parties - 1, cells, run=run, proceed_on_timeout=proceed)
    return PlainSumClient(party_id, client_input(party_id, seed, cells), run=run)


# -- the sum family's view of this protocol (:data:`~mpc_rr.secure_sum.plainsum.SPEC`) -----------


@dataclass(frozen=True)
class PlainPublic:
    """The public parameters of one plaintext sum."""

    n: int
    cells: int
    run: str
    proceed_on_timeout: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"modulus": None, "max_dropout": 0.0, "proceed_on_timeout": self.proceed_on_timeout}


def public(n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> PlainPublic:
    if n < 1 or cells < 1:
        raise UsageError(f"plainsum: need n >= 1 clients and cells >= 1, got n={n}, cells={cells}")
    proceed = bool(getattr(options, "proceed_on_timeout", False))
    return PlainPublic(int(n), int(cells), str(run), proceed)


def role(
    party_id: int, pub: PlainPublic, x: np.ndarray | None, *, entropy: object = None, identity: object = None
) -> Role:
    """The hub (party 0) or client ``party_id`` holding ``x`` (no secrets and no signatures:
    ``entropy`` and ``identity`` unused)."""
    if party_id == COORDINATOR:
        return PlainSumHub(pub.n, pub.cells, run=pub.run, proceed_on_timeout=pub.proceed_on_timeout)
    if x is None:
        raise UsageError(f"plainsum client {party_id} needs an input vector")
    return PlainSumClient(party_id, x, run=pub.run)


def messages() -> tuple[type[Message], ...]:
    return (PlainValue, PlainTotal)


def step_messages() -> Mapping[str, type[Message]]:
    return {"value": PlainValue}


def message_count(n: int, options: Any = None) -> int:
    """A value from each client, the total back to each."""
    return 2 * n


def memory_estimate(n: int, cells: int, options: Any = None) -> int:
    """Every input and every copy of the total, int64."""
    return 3 * n * cells * 8

