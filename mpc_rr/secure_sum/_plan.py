"""Build the roles of a secure sum: all parties at once, or one party (its own process).

* :func:`secure_sum_roles` -- every role of one run over the rows of an input
  matrix (simulations, tests, the ``secure-sum`` command);
* :func:`make_secagg_role` / :func:`make_board_role` -- protocol factories
  ``make_role(party_id, n_parties, seed, params)`` for ``mpc-rr party``: one
  party's role from public parameters only (``n_parties`` counts party 0).
  Each data party's input is a random one-hot vector derived from
  ``SeedSequence(seed, spawn_key=(party_id,))`` (:func:`party_input`), so any
  process can compute the expected total (:func:`expected_total`).  Secrets
  (keys, seeds, shares) come from the OS CSPRNG, never from the seed.

SecAgg+ public parameters always come from
:func:`~mpc_rr.secure_sum.secagg.secagg_public` (one place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from mpc_rr.core import COORDINATOR, Message, Progress, Role, RolePlan, UsageError
from mpc_rr.secure_sum import full_mesh, secagg
from mpc_rr.secure_sum._entropy import Entropy, smallest_uint
from mpc_rr.secure_sum.secagg import DEFAULT_FAILURE, secagg_public

__all__ = [
    "PROTOCOLS",
    "Protocol",
    "SecureSumPlan",
    "expected_total",
    "make_board_role",
    "make_secagg_role",
    "memory_estimate",
    "message_count",
    "party_input",
    "secure_sum_roles",
    "step_messages",
]

Protocol = Literal["full-mesh", "full-mesh-board", "secagg"]
PROTOCOLS: tuple[Protocol, ...] = ("full-mesh", "full-mesh-board", "secagg")


def _check_protocol(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise UsageError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")


def step_messages(protocol: str) -> dict[str, type[Message]]:
    """The message a data party sends at each named step (where a dropout can strike)."""
    _check_protocol(protocol)
    if protocol == "secagg":
        return {
            "keys": secagg.AdvertiseKeys,
            "shares": secagg.EncryptedShares,
            "masked": secagg.MaskedInput,
            "unmask": secagg.UnmaskShares,
        }
    return {"keys": full_mesh.MeshKey, "shares": full_mesh.MeshShare, "publish": full_mesh.MeshPublish}


def secure_sum_roles(
    protocol: Protocol,
    inputs: np.ndarray,
    *,
    run: str = "",
    entropy: Callable[[int], Entropy] | None = None,
    max_dropout: float | None = None,
    max_corrupt: float | None = None,
    degree: int | None = None,
    threshold: int | None = None,
    failure: float = DEFAULT_FAILURE,
) -> tuple[dict[int, Role], dict[str, Any]]:
    """Roles and public parameters (JSON-able) of one run over the rows of ``inputs``.

    ``max_dropout``, ``max_corrupt``, ``degree``, ``threshold`` and ``failure`` are SecAgg+'s
    (``None`` = the documented defaults); the full mesh has no dropout
    tolerance and refuses them.  (:class:`SecureSumPlan` builds the same roles
    where they run.)
    """
    plan = SecureSumPlan(
        protocol, inputs, run=run, entropy=entropy, max_dropout=max_dropout,
        max_corrupt=max_corrupt, degree=degree, threshold=threshold, failure=failure,
    )  # fmt: skip
    return plan.build(), plan.public_params()


class SecureSumPlan(RolePlan):
    """The roles of one secure sum as a :class:`~mpc_rr.core.RolePlan`.

    Party ``i`` holds ``inputs[i - 1]``; a subset carries only its parties'
    rows (and ``n``, ``cells``, ``max_value`` of the whole run).  ``entropy``
    (``party -> Entropy``; ``None`` = the OS CSPRNG) must be picklable for a
    sharded run, e.g. ``SeededEntropy(seed).spawn`` in tests.  Other
    parameters are :func:`secure_sum_roles`'.
    """

    def __init__(
        self,
        protocol: Protocol,
        inputs: np.ndarray,
        *,
        run: str = "",
        entropy: Callable[[int], Entropy] | None = None,
        max_dropout: float | None = None,
        max_corrupt: float | None = None,
        degree: int | None = None,
        threshold: int | None = None,
        failure: float = DEFAULT_FAILURE,
        ids: Sequence[int] | None = None,
        shape: tuple[int, int, int] | None = None,
    ) -> None:
        _check_protocol(protocol)
        x = np.asarray(inputs)
        if shape is None:  # the whole run
            if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
                raise UsageError(f"inputs must be a (parties >= 2, cells >= 1) matrix, got {x.shape}")
            shape = (x.shape[0], x.shape[1], max(1, int(x.max(initial=0))))
        self.protocol: Protocol = protocol
        self.n, self.cells, self.max_value = shape
        self.run = run
        self.entropy = entropy
        self.options: dict[str, Any] = {
            "max_dropout": max_dropout, "max_corrupt": max_corrupt, "degree": degree,
            "threshold": threshold,
        }  # fmt: skip
        self.failure = failure
        first = 0 if protocol != "full-mesh" else 1
        self._ids = tuple(range(first, self.n + 1)) if ids is None else tuple(sorted(ids))
        n_data = sum(1 for i in self._ids if i != COORDINATOR)
        if x.shape != (n_data, self.cells):
            raise UsageError(f"inputs must have shape ({n_data}, {self.cells}), got {x.shape}")
        self.inputs = x
        if protocol != "secagg":
            bad = [k for k, v in self.options.items() if v is not None and v != 0]
            if bad:
                raise UsageError(f"{protocol} has no dropout tolerance or graph: {bad} do not apply")

    @property
    def parties(self) -> tuple[int, ...]:
        return self._ids

    def subset(self, ids: Sequence[int]) -> SecureSumPlan:
        ids_t = self._check_subset(ids)
        row = {p: k for k, p in enumerate(i for i in self._ids if i != COORDINATOR)}
        rows = [row[i] for i in ids_t if i != COORDINATOR]
        return SecureSumPlan(
            self.protocol, self.inputs[rows], run=self.run, entropy=self.entropy,
            failure=self.failure, ids=ids_t, shape=(self.n, self.cells, self.max_value),
            **self.options,
        )  # fmt: skip

    def _secagg(self) -> secagg.SecAggPublic:
        return secagg_public(
            self.n, self.cells, run=self.run, max_value=self.max_value, failure=self.failure,
            **self.options,
        )  # fmt: skip

    def public_params(self) -> dict[str, Any]:
        """The run's public parameters (JSON-able)."""
        if self.protocol == "secagg":
            return self._secagg().config.as_json()
        pub = "board" if self.protocol == "full-mesh-board" else "all-to-all"
        return {"publication": pub, "modulus": self.n + 1, "max_dropout": 0.0}

    def build(self, progress: Progress | None = None) -> dict[int, Role]:
        roles: dict[int, Role] = {}
        ent = self.entropy
        rows = iter(self.inputs)
        if self.protocol == "secagg":
            public = self._secagg()
            for i in self._ids:
                if i == COORDINATOR:
                    roles[i] = secagg.SecAggServer(public.config, public.graph)
                else:
                    roles[i] = secagg.SecAggClient(
                        i, public.config, public.graph, next(rows),
                        entropy=ent(i) if ent is not None else None,
                    )  # fmt: skip
            return roles
        pub: full_mesh.Publication = "board" if self.protocol == "full-mesh-board" else "all-to-all"
        for i in self._ids:
            if i == COORDINATOR:
                roles[i] = full_mesh.BulletinBoard(self.n, self.cells, run=self.run)
            else:
                roles[i] = full_mesh.FullMeshParty(
                    i, self.n, next(rows), publication=pub,
                    entropy=ent(i) if ent is not None else None, run=self.run,
                )  # fmt: skip
        return roles


def party_input(party_id: int, seed: int, cells: int) -> np.ndarray:
    """The one-hot input of data party ``party_id`` (uint8, length ``cells``)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(party_id,)))
    x = np.zeros(cells, np.uint8)
    x[int(rng.integers(cells))] = 1
    return x


def expected_total(n_data: int, seed: int, cells: int) -> np.ndarray:
    """Plain sum of the inputs of parties ``1..n_data``."""
    total = np.zeros(cells, np.int64)
    for i in range(1, n_data + 1):
        total += party_input(i, seed, cells)
    return total


def _cells(params: Mapping[str, Any]) -> int:
    cells = params.get("cells", 1582)
    if not isinstance(cells, int) or isinstance(cells, bool) or cells < 1:
        raise UsageError(f"params.cells must be an integer >= 1, got {cells!r}")
    return cells


def _opt(params: Mapping[str, Any], key: str, kind: type) -> Any:
    v = params.get(key)
    if v is not None and (not isinstance(v, kind | int) or isinstance(v, bool)):
        raise UsageError(f"params.{key} must be a {kind.__name__}, got {v!r}")
    return v


def make_secagg_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """SecAgg+ role of ``party_id`` (0 = aggregator) among ``n_parties - 1`` data parties.

    ``params``: ``cells``, ``run`` (default ``"secagg-<seed>"``), ``degree``,
    ``threshold``, ``max_dropout``, ``max_corrupt``, ``failure``.
    """
    n, cells = n_parties - 1, _cells(params)
    public = secagg_public(
        n,
        cells,
        run=str(params.get("run", f"secagg-{seed}")),
        degree=_opt(params, "degree", int),
        threshold=_opt(params, "threshold", int),
        max_dropout=_opt(params, "max_dropout", float),
        max_corrupt=_opt(params, "max_corrupt", float),
        failure=float(_opt(params, "failure", float) or DEFAULT_FAILURE),
    )
    if party_id == COORDINATOR:
        return secagg.SecAggServer(public.config, public.graph)
    return secagg.SecAggClient(
        party_id, public.config, public.graph, party_input(party_id, seed, cells)
    )


def make_board_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Section 4.2 full mesh with board publication (0 = the board)."""
    n, cells = n_parties - 1, _cells(params)
    run = str(params.get("run", f"board-{seed}"))
    if party_id == COORDINATOR:
        return full_mesh.BulletinBoard(n, cells, run=run)
    return full_mesh.FullMeshParty(
        party_id, n, party_input(party_id, seed, cells), publication="board", run=run
    )


def message_count(protocol: Protocol, n: int, degree: int | None = None) -> int:
    """Messages of one run without dropouts (full mesh: keys, Sec. 4.2's n(n-1) shares, publication)."""
    _check_protocol(protocol)
    if protocol == "secagg":
        return 8 * n
    pub: full_mesh.Publication = "board" if protocol == "full-mesh-board" else "all-to-all"
    return full_mesh.full_mesh_message_count(n, pub)


def memory_estimate(protocol: Protocol, n: int, cells: int, degree: int | None = None) -> int:
    """Rough peak bytes of one simulated run in one process (all parties' state and traffic).

    Inputs and per-party state hold ``cells`` uint64 words per party; SecAgg+
    adds one masked vector per party in flight and a party's ``degree + 1``
    mask streams while it computes; the full mesh draws ``n`` share vectors
    per party, can have all ``n(n-1)`` shares in flight at once (16 bytes of
    tag each) and every party holds every other party's public key.
    """
    _check_protocol(protocol)
    word = 8
    wire = int(np.dtype(smallest_uint(max(2, n + 1))).itemsize)
    state = n * cells * (word + 1)
    if protocol == "secagg":
        k = degree if degree is not None else min(n - 1, 64)
        return state + n * cells * wire + 2 * (k + 1) * cells * word
    keys = n * n * 100  # 32-byte public keys as Python bytes in a dict, per party
    return state + n * cells * word + n * (n - 1) * (cells * wire + 16) + keys
