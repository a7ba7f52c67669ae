"""Protocol factories so each party can run in its own OS process (``mpc-rr party``).

``make_role(party_id, n_parties, seed, params)`` builds one party's role from
public parameters only (``n_parties`` counts the aggregator / board, party 0):

* ``params["cells"]`` -- vector length D (default 1,582);
* each data party's input is a random one-hot vector derived from
  ``SeedSequence(seed, spawn_key=(party_id,))`` (reproducible, O(1) per party),
  so any process can compute the expected total with :func:`expected_total`;
* secrets (keys, seeds, shares) come from the OS CSPRNG, never from the seed;
* SecAgg+ also reads ``degree``, ``threshold``, ``max_dropout``, ``failure``;
  the public graph is drawn from ``seed`` (every process builds the same one).

Registered as ``secagg`` and ``full-mesh-board`` in :data:`parties.registry.BUILTIN`
(specs in :mod:`scenarios.secure_sum_protocols`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.roles import COORDINATOR, Role
from mpc_rr.secure_sum.full_mesh import BulletinBoard, FullMeshParty
from mpc_rr.secure_sum.graph import Graph
from mpc_rr.secure_sum.secagg import SecAggClient, SecAggConfig, SecAggServer

__all__ = ["expected_total", "make_board_role", "make_secagg_role", "party_input"]


def party_input(party_id: int, seed: int, cells: int) -> np.ndarray:
    """The one-hot input of data party ``party_id`` (uint8, length ``cells``)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(party_id,)))
    x = np.zeros(cells, np.uint8)
    x[int(rng.integers(cells))] = 1
    return x


def expected_total(n_data: int, seed: int, cells: int) -> np.ndarray:
    """Plain sum of the inputs of parties ``1..n_data``."""
    return sum((party_input(i, seed, cells).astype(np.int64) for i in range(1, n_data + 1)),
               np.zeros(cells, np.int64))  # fmt: skip


def _cells(params: Mapping[str, Any]) -> int:
    cells = int(params.get("cells", 1582))
    if cells < 1:
        raise UsageError(f"params.cells must be >= 1, got {cells}")
    return cells


def make_secagg_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """SecAgg+ role of ``party_id`` (0 = aggregator) among ``n_parties - 1`` data parties."""
    n, cells = n_parties - 1, _cells(params)
    cfg = SecAggConfig.create(
        n,
        cells,
        degree=params.get("degree"),
        threshold=params.get("threshold"),
        max_dropout=float(params.get("max_dropout", 0.1)),
        failure=float(params.get("failure", 1e-6)),
        run=str(params.get("run", "")),
    )
    graph = Graph.random_regular(n, cfg.degree, np.random.default_rng(seed))
    if party_id == COORDINATOR:
        return SecAggServer(cfg, graph)
    return SecAggClient(party_id, cfg, graph, party_input(party_id, seed, cells))


def make_board_role(party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
    """Section 4.2 full mesh with board publication (0 = the board)."""
    n, cells = n_parties - 1, _cells(params)
    if party_id == COORDINATOR:
        return BulletinBoard(n, cells)
    return FullMeshParty(party_id, n, party_input(party_id, seed, cells), publication="board")
