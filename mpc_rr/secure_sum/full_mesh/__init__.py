"""The modular secure sum of Domingo-Ferrer & Soria-Comas, Section 4.2 (full mesh).

Shares mod ``n + 1`` between every pair of parties, encrypted end to end,
published all-to-all (the paper) or through a bulletin board (party 0).  How
it works, the threat model and the wire format: :mod:`._party`'s docstring
(:class:`FullMeshParty`); the state diagrams are the tables right under
:class:`MeshState` (:mod:`._party`) and :class:`BoardState` (:mod:`._board`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "BOARD_SPEC",
    "KEY_LEN",
    "MESH_MESSAGES",
    "PROTOCOL",
    "SPEC",
    "TAG_LEN",
    "BoardState",
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
    "MeshState",
    "MeshTotal",
    "Publication",
    "check_publication",
    "checked_modulus",
    "frame_digest",
    "full_mesh_message_count",
    "full_mesh_roles",
    "open_share",
    "share_aad",
    "share_index",
    "share_key",
    "share_signed",
    "sign_shares",
]

_HOME = {
    "FullMeshProtocol": "mpc_rr.secure_sum.full_mesh._spec",
    "FullMeshBoardProtocol": "mpc_rr.secure_sum.full_mesh._spec",
    "BOARD_SPEC": "mpc_rr.secure_sum.full_mesh._spec",
    "BoardState": "mpc_rr.secure_sum.full_mesh._board",
    "BulletinBoard": "mpc_rr.secure_sum.full_mesh._board",
    "FullMeshParty": "mpc_rr.secure_sum.full_mesh._party",
    "KEY_LEN": "mpc_rr.secure_sum.full_mesh._messages",
    "MESH_MESSAGES": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshAbort": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshKey": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshKeys": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshPublic": "mpc_rr.secure_sum.full_mesh._run",
    "MeshPublish": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshShare": "mpc_rr.secure_sum.full_mesh._messages",
    "MeshState": "mpc_rr.secure_sum.full_mesh._party",
    "MeshTotal": "mpc_rr.secure_sum.full_mesh._messages",
    "PROTOCOL": "mpc_rr.secure_sum.full_mesh._messages",
    "Publication": "mpc_rr.secure_sum.full_mesh._messages",
    "SPEC": "mpc_rr.secure_sum.full_mesh._spec",
    "TAG_LEN": "mpc_rr.secure_sum.full_mesh._messages",
    "check_publication": "mpc_rr.secure_sum.full_mesh._messages",
    "checked_modulus": "mpc_rr.secure_sum.full_mesh._messages",
    "frame_digest": "mpc_rr.secure_sum.full_mesh._messages",
    "full_mesh_message_count": "mpc_rr.secure_sum.full_mesh._messages",
    "full_mesh_roles": "mpc_rr.secure_sum.full_mesh._run",
    "open_share": "mpc_rr.secure_sum.full_mesh._messages",
    "share_aad": "mpc_rr.secure_sum.full_mesh._messages",
    "share_index": "mpc_rr.secure_sum.full_mesh._messages",
    "share_key": "mpc_rr.secure_sum.full_mesh._messages",
    "share_signed": "mpc_rr.secure_sum.full_mesh._messages",
    "sign_shares": "mpc_rr.secure_sum.full_mesh._messages",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.full_mesh._board import (
        BoardState,
        BulletinBoard,
    )
    from mpc_rr.secure_sum.full_mesh._messages import (
        KEY_LEN,
        MESH_MESSAGES,
        PROTOCOL,
        TAG_LEN,
        MeshAbort,
        MeshKey,
        MeshKeys,
        MeshPublish,
        MeshShare,
        MeshTotal,
        Publication,
        check_publication,
        checked_modulus,
        frame_digest,
        full_mesh_message_count,
        open_share,
        share_aad,
        share_index,
        share_key,
        share_signed,
        sign_shares,
    )
    from mpc_rr.secure_sum.full_mesh._party import (
        FullMeshParty,
        MeshState,
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
