"""The modular secure sum of Domingo-Ferrer & Soria-Comas, Section 4.2 (full mesh).

Shares mod ``n + 1`` between every pair of parties, encrypted end to end,
published all-to-all (the paper) or through a bulletin board (party 0).  How
it works, the threat model and the wire format: :mod:`._party`'s docstring
(:class:`FullMeshParty`); the state diagrams are the tables right under
:class:`MeshState` (:mod:`._party`) and :class:`BoardState` (:mod:`._board`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "BOARD_SPEC",
    "MESH_MESSAGES",
    "SPEC",
    "BulletinBoard",
    "FullMeshBoardProtocol",
    "FullMeshParty",
    "FullMeshProtocol",
    "MeshAbort",
    "MeshKey",
    "MeshKeys",
    "MeshPublic",
    "MeshPublish",
    "MeshShare",
    "MeshTotal",
    "Publication",
    "full_mesh_roles",
]

_HOME = {
    "BulletinBoard": "mpc_rr.secure_sum.full_mesh._board",
    "MESH_MESSAGES": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshAbort": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshKey": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshKeys": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshPublish": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshShare": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshTotal": "mpc_rr.secure_sum.full_mesh._messages",
    "Publication": "mpc_rr.secure_sum.full_mesh._messages",
    "FullMeshParty": "mpc_rr.secure_sum.full_mesh._party",
    "MeshPublic": "mpc_rr.secure_sum.full_mesh._run",
    "full_mesh_roles": "mpc_rr.secure_sum.full_mesh._run",
    "BOARD_SPEC": "mpc_rr.secure_sum.full_mesh._spec",
    "FullMeshBoardProtocol": "mpc_rr.secure_sum.full_mesh._spec",
    "FullMeshProtocol": "mpc_rr.secure_sum.full_mesh._spec",
    "SPEC": "mpc_rr.secure_sum.full_mesh._spec",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.full_mesh._board import (
        BulletinBoard,
    )
    from mpc_rr.secure_sum.full_mesh._messages import (
        MESH_MESSAGES,
        MeshAbort,
        MeshKey,
        MeshKeys,
        MeshPublish,
        MeshShare,
        MeshTotal,
        Publication,
    )
    from mpc_rr.secure_sum.full_mesh._party import (
        FullMeshParty,
    )
    from mpc_rr.secure_sum.full_mesh._run import (
        MeshPublic,
        full_mesh_roles,
    )
    from mpc_rr.secure_sum.full_mesh._spec import (
        BOARD_SPEC,
        SPEC,
        FullMeshBoardProtocol,
        FullMeshProtocol,
    )
