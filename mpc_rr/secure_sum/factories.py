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
:func:`~mpc_rr.secure_sum.secagg_params.secagg_public` (one place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.messages import Message
from mpc_rr.roles import COORDINATOR, Role
from mpc_rr.secure_sum import full_mesh, secagg
from mpc_rr.secure_sum.entropy import Entropy, smallest_uint
from mpc_rr.secure_sum.secagg_params import DEFAULT_FAILURE, secagg_public

__all__ = [
    "PROTOCOLS",
    "Protocol",
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
    return {"shares": full_mesh.MeshShare, "publish": full_mesh.MeshPublish}


def secure_sum_roles(
    protocol: Protocol,
    inputs: np.ndarray,
    *,
    run: str = "",
    entropy: Callable[[int], Entropy] | None = None,
    max_dropout: float | None = None,
    degree: int | None = None,
    threshold: int | None = None,
    failure: float = DEFAULT_FAILURE,
) -> tuple[dict[int, Role], dict[str, Any]]:
    """Roles and public parameters (JSON-able) of one run over the rows of ``inputs``.

    ``max_dropout``, ``degree``, ``threshold`` and ``failure`` are SecAgg+'s
    (``None`` = the documented defaults); the full mesh has no dropout
    tolerance and refuses them.
    """
    _check_protocol(protocol)
    x = np.asarray(inputs)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
        raise UsageError(f"inputs must be a (parties >= 2, cells >= 1) matrix, got {x.shape}")
    n, cells = x.shape
    if protocol != "secagg":
        given = {"max_dropout": max_dropout, "degree": degree, "threshold": threshold}
        bad = [k for k, v in given.items() if v is not None and v != 0]
        if bad:
            raise UsageError(f"{protocol} has no dropout tolerance or graph: {bad} do not apply")
        pub: full_mesh.Publication = "board" if protocol == "full-mesh-board" else "all-to-all"
        roles = full_mesh.full_mesh_roles(x, publication=pub, entropy=entropy, run=run)
        return roles, {"publication": pub, "modulus": n + 1, "max_dropout": 0.0}
    public = secagg_public(
        n, cells, run=run, max_value=max(1, int(x.max(initial=0))), degree=degree,
        threshold=threshold, max_dropout=max_dropout, failure=failure,
    )  # fmt: skip
    roles = secagg.secagg_roles(x, public, entropy=entropy)
    return roles, public.config.as_json()


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
    ``threshold``, ``max_dropout``, ``failure``.
    """
    n, cells = n_parties - 1, _cells(params)
    public = secagg_public(
        n,
        cells,
        run=str(params.get("run", f"secagg-{seed}")),
        degree=_opt(params, "degree", int),
        threshold=_opt(params, "threshold", int),
        max_dropout=_opt(params, "max_dropout", float),
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
    """Messages of one run without dropouts (full mesh: Sec. 4.2's n(n-1) shares + publication)."""
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
    per party and can have all ``n(n-1)`` shares in flight at once.
    """
    _check_protocol(protocol)
    word = 8
    wire = int(np.dtype(smallest_uint(max(2, n + 1))).itemsize)
    state = n * cells * (word + 1)
    if protocol == "secagg":
        k = degree if degree is not None else min(n - 1, 64)
        return state + n * cells * wire + 2 * (k + 1) * cells * word
    return state + n * cells * word + n * (n - 1) * cells * wire
