"""The Sec. 4.2 full mesh as sum protocols: all-to-all (the paper) and board (import-light)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mpc_rr.secure_sum._protocol import SumProtocol, SumPublic

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.core import DropPoint, Message, Role
    from mpc_rr.secure_sum._entropy import Entropy
    from mpc_rr.secure_sum._identity import Identity
    from mpc_rr.secure_sum._trust import SumTrust
    from mpc_rr.secure_sum.full_mesh._messages import Publication

__all__ = ["BOARD_SPEC", "SPEC", "FullMeshBoardProtocol", "FullMeshProtocol"]


class FullMeshProtocol(SumProtocol):
    """Sec. 4.2 with all-to-all publication (:mod:`~mpc_rr.secure_sum.full_mesh._run`): no party 0."""

    name = "full-mesh"
    max_modulus = 2**56
    summary = "Sec. 4.2 with all-to-all publication: shares mod n+1 (n max_value + 1) between every pair, no dropouts"
    steps = ("keys", "shares", "publish")
    coordinator = False
    total_at_coordinator = False
    publication: Publication = "all-to-all"

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> SumPublic:
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.mesh_public(n, cells, run=run, publication=self.publication, max_value=max_value)

    def role(
        self, party_id: int, public: Any, x: np.ndarray | None, *, entropy: Entropy | None = None,
        identity: Identity | None = None,
    ) -> Role:  # fmt: skip
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.role(party_id, public, x, entropy=entropy, identity=identity)

    def message_types(self) -> tuple[type[Message], ...]:
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.messages()

    def step_messages(self) -> Mapping[str, DropPoint]:
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.step_messages()

    def message_count(self, n: int, options: Any) -> int:
        from mpc_rr.secure_sum.full_mesh import _messages

        return _messages.full_mesh_message_count(n, self.publication)

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.memory_estimate(n, cells, options)

    def noise_bounds(self, options: Any, n: int) -> tuple[int, int]:
        """Distributed noise: no party may be missing (a run needs every share), colluders as
        :meth:`trust` counts them."""
        return 0, self.trust_of(options, n).colluders

    def noisy_modulus(self, public: Any) -> int | None:
        """``n max_value + 1`` (:attr:`~mpc_rr.secure_sum.full_mesh.MeshPublic.modulus`)."""
        return int(public.modulus)

    def trust(self, options: Any, n: int, max_corrupt: float | None) -> SumTrust:
        """The full mesh hides each input while one other party is honest (n - 2 colluders)."""
        from mpc_rr.secure_sum.full_mesh import _run

        return _run.trust(options, n, max_corrupt)


class FullMeshBoardProtocol(FullMeshProtocol):
    """Sec. 4.2 with publication through a bulletin board (party 0)."""

    name = "full-mesh-board"
    summary = "Sec. 4.2 with publication through a bulletin board (party 0)"
    coordinator = True
    total_at_coordinator = True
    publication: Publication = "board"
    run_label = "board-{seed}"


SPEC = FullMeshProtocol()
BOARD_SPEC = FullMeshBoardProtocol()
