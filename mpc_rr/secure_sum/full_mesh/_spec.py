"""The Sec. 4.2 full mesh as registered sum protocols: all-to-all (the paper) and board (import-light)."""

from __future__ import annotations

from mpc_rr.core import lazy
from mpc_rr.secure_sum._family import SumSpec

__all__ = ["BOARD_SPEC", "SPEC"]

_RUN = "mpc_rr.secure_sum.full_mesh._run"
_STEPS = ("keys", "shares", "publish")
_HOOKS = {
    "offline": "mpc_rr.adversary:full_mesh_offline",
    "recover": "mpc_rr.adversary:recover_full_mesh",
    "plants": "mpc_rr.adversary:FULL_MESH_PLANTS",
    "coalition": "mpc_rr.adversary:full_mesh_coalition",
}

SPEC = SumSpec(
    name="full-mesh",
    summary="Sec. 4.2 with all-to-all publication: shares mod n+1 between every pair, no dropouts",
    steps=_STEPS,
    public=lazy(f"{_RUN}:public_all_to_all"),
    role=lazy(f"{_RUN}:role"),
    messages=lazy(f"{_RUN}:messages"),
    step_messages=lazy(f"{_RUN}:step_messages"),
    message_count=lazy(f"{_RUN}:message_count_all_to_all"),
    memory_estimate=lazy(f"{_RUN}:memory_estimate"),
    trust=lazy(f"{_RUN}:trust"),
    coordinator=False,
    total_at_coordinator=False,
    hooks={**_HOOKS, "lesson": "scenarios.classroom.secure_sums:full_mesh_lesson"},
)

BOARD_SPEC = SumSpec(
    name="full-mesh-board",
    summary="Sec. 4.2 with publication through a bulletin board (party 0)",
    steps=_STEPS,
    public=lazy(f"{_RUN}:public_board"),
    role=lazy(f"{_RUN}:role"),
    messages=lazy(f"{_RUN}:messages"),
    step_messages=lazy(f"{_RUN}:step_messages"),
    message_count=lazy(f"{_RUN}:message_count_board"),
    memory_estimate=lazy(f"{_RUN}:memory_estimate"),
    trust=lazy(f"{_RUN}:trust"),
    run_label="board-{seed}",
    hooks={**_HOOKS, "lesson": "scenarios.classroom.secure_sums:board_lesson"},
)
