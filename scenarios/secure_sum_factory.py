"""Builds the secure-sum sub-protocol roles of the pipeline's dependence phase (SecAgg+).

The public parameters (config, communication graph) are derived once per
run and shared by every role built in this process: the graph comes from a
public seed (SHA-256 of the run id), so separate processes build the same
graph.  Keys, seeds and shares come from each party's cryptographic entropy
(``SystemEntropy`` unless a test injects one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.pair_cells import PairLayout
from mpc_rr.pipeline import PipelineConfig
from mpc_rr.roles import COORDINATOR, Role
from mpc_rr.secure_sum.entropy import Entropy
from mpc_rr.secure_sum.graph import Graph
from mpc_rr.secure_sum.secagg import SecAggClient, SecAggConfig, SecAggServer

__all__ = ["sub_factory_for"]


def sub_factory_for(
    source: str,
    *,
    max_dropout: float = 1 / 3,
    degree: int | None = None,
    failure: float = 1e-6,
    entropy: Callable[[int], Entropy] | None = None,
) -> Callable[[PipelineConfig, int, np.ndarray | None], Role]:
    """SecAgg+ roles for the pipeline; ``max_dropout``, ``degree`` and ``failure`` are
    :meth:`SecAggConfig.create`'s (a smaller degree is faster but gives a smaller
    Shamir threshold or dropout tolerance: the caller's trade-off)."""
    if source not in ("secure-sum", "pairwise-rr"):
        raise UsageError(f"no secure-sum sub-protocol for dependence source {source!r}")
    cache: dict[tuple[str, int], tuple[SecAggConfig, Graph]] = {}

    def public(cfg: PipelineConfig) -> tuple[SecAggConfig, Graph]:
        key = (cfg.run, cfg.n)
        if key not in cache:
            sa = SecAggConfig.create(
                cfg.n,
                PairLayout(cfg.sizes).cells,
                max_dropout=max_dropout,
                degree=degree,
                failure=failure,
                run=f"{cfg.run}/dependence",
            )
            seed = int.from_bytes(
                hashlib.sha256(f"graph|{cfg.run}|{cfg.n}".encode()).digest()[:8], "little"
            )
            cache[key] = (sa, Graph.random_regular(cfg.n, sa.degree, np.random.default_rng(seed)))
        return cache[key]

    def factory(cfg: PipelineConfig, pid: int, x: np.ndarray | None) -> Role:
        sa, graph = public(cfg)
        if pid == COORDINATOR:
            return SecAggServer(sa, graph)
        return SecAggClient(
            pid, sa, graph, x, entropy=entropy(pid) if entropy is not None else None
        )

    return factory
