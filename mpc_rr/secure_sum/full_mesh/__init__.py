"""The modular secure sum of Domingo-Ferrer & Soria-Comas, Section 4.2 (full mesh).

Shares mod ``n + 1`` between every pair of parties, encrypted end to end,
published all-to-all (the paper) or through a bulletin board (party 0).  How
it works, the threat model and the wire format: :mod:`._protocol`'s docstring
(:class:`FullMeshParty`, :class:`BulletinBoard`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "KEY_LEN",
    "MESH_MESSAGES",
    "TAG_LEN",
    "BulletinBoard",
    "FullMeshParty",
    "MeshKey",
    "MeshKeys",
    "MeshPublish",
    "MeshShare",
    "MeshTotal",
    "Publication",
    "full_mesh_message_count",
    "full_mesh_roles",
    "open_share",
    "share_aad",
    "share_key",
]

_HOME = {
    "BulletinBoard": "mpc_rr.secure_sum.full_mesh._protocol",
    "FullMeshParty": "mpc_rr.secure_sum.full_mesh._protocol",
    "KEY_LEN": "mpc_rr.secure_sum.full_mesh._protocol",
    "MESH_MESSAGES": "mpc_rr.secure_sum.full_mesh._protocol",
    "MeshKey": "mpc_rr.secure_sum.full_mesh._protocol",
    "MeshKeys": "mpc_rr.secure_sum.full_mesh._protocol",
    "MeshPublish": "mpc_rr.secure_sum.full_mesh._protocol",
    "MeshShare": "mpc_rr.secure_sum.full_mesh._protocol",
    "MeshTotal": "mpc_rr.secure_sum.full_mesh._protocol",
    "Publication": "mpc_rr.secure_sum.full_mesh._protocol",
    "TAG_LEN": "mpc_rr.secure_sum.full_mesh._protocol",
    "full_mesh_message_count": "mpc_rr.secure_sum.full_mesh._protocol",
    "full_mesh_roles": "mpc_rr.secure_sum.full_mesh._protocol",
    "open_share": "mpc_rr.secure_sum.full_mesh._protocol",
    "share_aad": "mpc_rr.secure_sum.full_mesh._protocol",
    "share_key": "mpc_rr.secure_sum.full_mesh._protocol",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum.full_mesh._protocol import (
        KEY_LEN,
        MESH_MESSAGES,
        TAG_LEN,
        BulletinBoard,
        FullMeshParty,
        MeshKey,
        MeshKeys,
        MeshPublish,
        MeshShare,
        MeshTotal,
        Publication,
        full_mesh_message_count,
        full_mesh_roles,
        open_share,
        share_aad,
        share_key,
    )
