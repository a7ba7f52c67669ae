"""A full-mesh run as the sum family builds it: public parameters, roles, messages, costs.

These are the functions :class:`~mpc_rr.secure_sum.full_mesh.FullMesh` and
:class:`~mpc_rr.secure_sum.full_mesh.FullMeshBoard` call; :func:`full_mesh_roles` builds every role of one run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Message, Role, UsageError
from mpc_rr.secure_sum._entropy import Entropy, smallest_uint
from mpc_rr.secure_sum._identity import Identity
from mpc_rr.secure_sum._trust import DEFAULT_MAX_CORRUPT, SumTrust, colluders_in
from mpc_rr.secure_sum.full_mesh._board import BulletinBoard
from mpc_rr.secure_sum.full_mesh._messages import (
    MESH_MESSAGES,
    MeshKey,
    MeshPublish,
    MeshShare,
    Publication,
    check_publication,
    checked_modulus,
)
from mpc_rr.secure_sum.full_mesh._party import FullMeshParty

__all__ = ["MeshPublic", "full_mesh_roles", "trust"]


@dataclass(frozen=True)
class MeshPublic:
    """The public parameters of one full-mesh run."""

    n: int
    cells: int
    run: str
    publication: Publication
    max_value: int = 1

    @property
    def modulus(self) -> int:
        """``n max_value + 1``: the sum of ``n`` inputs in ``[0, max_value]`` never wraps --
        ``n + 1`` for the paper's 0/1 votes (Sec. 4.2); larger for noisy inputs."""
        return self.n * self.max_value + 1

    def as_json(self) -> dict[str, Any]:
        return {"publication": self.publication, "modulus": self.modulus, "max_dropout": 0.0}


def mesh_public(
    n: int, cells: int, *, run: str, publication: Publication, max_value: int = 1
) -> MeshPublic:
    """The public parameters of a run among ``n >= 2`` parties with inputs in ``[0, max_value]``
    (the modulus, ``n max_value + 1``, is checked here: at most ``2^56``)."""
    if n < 2:
        raise UsageError(f"full mesh: n must be >= 2 parties, got {n}")
    if max_value < 1:
        raise UsageError(f"full mesh: max_value must be >= 1, got {max_value}")
    check_publication(publication)
    pub = MeshPublic(int(n), int(cells), str(run), publication, int(max_value))
    checked_modulus(pub.n, pub.modulus)
    return pub


def role(
    party_id: int, pub: MeshPublic, x: np.ndarray | None, *, entropy: Entropy | None = None,
    identity: Identity | None = None,
) -> Role:  # fmt: skip
    """The board (party 0, board publication only) or data party ``party_id`` holding ``x``
    (``identity``: its signing key and roster, default :func:`~mpc_rr.secure_sum.default_identity`)."""
    if party_id == COORDINATOR:
        if pub.publication != "board":
            raise UsageError("the all-to-all full mesh has no party 0")
        return BulletinBoard(pub.n, pub.cells, modulus=pub.modulus, run=pub.run,
                             roster=None if identity is None else identity.roster)  # fmt: skip
    if x is None:
        raise UsageError(f"full-mesh data party {party_id} needs an input vector")
    return FullMeshParty(party_id, pub.n, x, modulus=pub.modulus, publication=pub.publication,
                         entropy=entropy, run=pub.run, identity=identity)  # fmt: skip


def messages() -> tuple[type[Message], ...]:
    return MESH_MESSAGES


def step_messages() -> Mapping[str, type[Message]]:
    """The message a data party sends at each step (where a dropout can strike)."""
    return {"keys": MeshKey, "shares": MeshShare, "publish": MeshPublish}


def memory_estimate(n: int, cells: int, options: object = None) -> int:
    """Rough peak bytes of one simulated run in one process.

    Per-party state holds ``cells`` uint64 words; every party draws ``n``
    share vectors, all ``n(n-1)`` shares can be in flight at once (16 bytes of
    tag, a 64-byte signature and a ``32 ceil(log2(n-1))``-byte audit path
    each), every party holds every other party's public key, and the
    signed publications (64-byte signatures) reach every party: ``n(n-1)``
    messages all-to-all, the board's total listing all ``n`` to each party.
    """
    word = 8
    wire = int(np.dtype(smallest_uint(max(2, n + 1))).itemsize)
    keys = n * n * 100  # 32-byte public keys as Python bytes in a dict, per party
    publications = n * n * (cells * wire + 64)
    share = cells * wire + 16 + 64 + 32 * max(0, n - 2).bit_length()
    return n * cells * (word + 1) + n * cells * word + n * (n - 1) * share + keys + publications


def full_mesh_roles(
    inputs: np.ndarray,
    *,
    publication: Publication = "all-to-all",
    modulus: int | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    run: str = "",
) -> dict[int, Role]:
    """Roles for one full-mesh run over the rows of ``inputs`` (party ``i`` holds row ``i-1``).

    ``entropy(party_id)`` supplies each party's source (default: system CSPRNG).
    Party 0 (the board) is included only for ``publication="board"``.
    """
    x = np.asarray(inputs)
    if x.ndim != 2:
        raise UsageError(f"inputs must be a 2-D (parties, cells) array, got shape {x.shape}")
    check_publication(publication)
    n, cells = x.shape
    roles: dict[int, Role] = {}
    if publication == "board":
        roles[COORDINATOR] = BulletinBoard(n, cells, modulus=modulus, run=run)
    for i in range(1, n + 1):
        ent = entropy(i) if entropy is not None else None
        roles[i] = FullMeshParty(
            i, n, x[i - 1], modulus=modulus, publication=publication, entropy=ent, run=run
        )
    return roles


def trust(options: Any, n: int, max_corrupt: float | None = None) -> SumTrust:
    """Sec. 4.2's coalition: every input is split into ``n`` additive shares, one per party, so a
    coalition of up to ``n - 2`` parties (with the board) learns only the sum of the others'
    inputs; ``max_corrupt`` (default :data:`~mpc_rr.secure_sum.DEFAULT_MAX_CORRUPT`) is the
    colluding fraction assumed."""
    f = DEFAULT_MAX_CORRUPT if max_corrupt is None else float(max_corrupt)
    bound = max(0, int(n) - 2)
    return SumTrust(
        "full-mesh", int(n), f, colluders_in(f, n), bound,
        "at least two of the parties are honest (shares travel encrypted to their recipients)",
        f"secure-sum channel (full mesh, Sec. 4.2): hides senders only if at most n - 2 = {bound} "
        "parties collude: a larger coalition learns the remaining input from the sum",
    )  # fmt: skip
