"""Every role of one SecAgg+ run at once (simulations; :func:`secagg_roles`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mpc_rr.core import COORDINATOR, Role, UsageError
from mpc_rr.secure_sum._entropy import Entropy
from mpc_rr.secure_sum.secagg._client import SecAggClient
from mpc_rr.secure_sum.secagg._params import (
    SecAggPublic,
)
from mpc_rr.secure_sum.secagg._server import SecAggServer

__all__ = ["secagg_roles"]


def secagg_roles(
    inputs: np.ndarray,
    public: SecAggPublic,
    *,
    entropy: Callable[[int], Entropy] | None = None,
) -> dict[int, Role]:
    """Aggregator and data parties of one run; party ``i`` holds ``inputs[i - 1]``.

    ``entropy(party_id)`` supplies each party's cryptographic source (default:
    the OS CSPRNG; a seeded source only in tests and teaching traces).
    """
    cfg, graph = public.config, public.graph
    x = np.asarray(inputs)
    if x.shape != (cfg.n, cfg.cells):
        raise UsageError(f"inputs must have shape ({cfg.n}, {cfg.cells}), got {x.shape}")
    roles: dict[int, Role] = {COORDINATOR: SecAggServer(cfg, graph)}
    for i in range(1, cfg.n + 1):
        ent = entropy(i) if entropy is not None else None
        roles[i] = SecAggClient(i, cfg, graph, x[i - 1], entropy=ent)
    return roles
