"""The dependence phase's secure sum as a sub-protocol of the pipeline roles.

``dependence="secure-sum"`` (Sec. 4.2) sums each party's one-hot pair cells
of its true record; ``"pairwise-rr"`` (Sec. 4.3) sums the one-hot cells of its
pairwise-randomized values (:mod:`mpc_rr.mdrr._pairwise`).  The sum runs as
SecAgg+ with the run's public parameters from
:func:`~mpc_rr.secure_sum.secagg.secagg_public` (the one place), run
id ``<pipeline run>/dependence``.  Every party learns the aggregate, so it can
compute the clustering itself and check the coordinator's broadcast.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from mpc_rr.core import COORDINATOR, Role
from mpc_rr.mdrr import (
    Clustering,
    cluster_attributes,
    estimate_pair_tables,
    pair_cells,
    pair_dependences,
    pair_layout,
    perturb_pairs,
)
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.secure_sum import Entropy
from mpc_rr.secure_sum.secagg import (
    DEFAULT_FAILURE,
    SecAggClient,
    SecAggPublic,
    SecAggServer,
    secagg_public,
)

__all__ = [
    "SubFactory",
    "dependence_input",
    "dependences_from_aggregate",
    "local_clustering",
    "secagg_dependence",
    "secagg_public_for",
]

SubFactory = Callable[[PipelineConfig, int, np.ndarray | None], Role]
"""Builds the sub-protocol role of ``party id`` with its input vector (``None`` for party 0)."""


def secagg_public_for(cfg: PipelineConfig) -> SecAggPublic:
    """The SecAgg+ public parameters of a pipeline run's dependence phase."""
    return secagg_public(
        cfg.n,
        pair_layout(cfg.sizes).cells,
        run=f"{cfg.run}/dependence",
        degree=cfg.secagg_degree,
        max_dropout=cfg.secagg_max_dropout,
        max_corrupt=cfg.secagg_max_corrupt,
        failure=DEFAULT_FAILURE if cfg.secagg_failure is None else cfg.secagg_failure,
    )


def secagg_dependence(entropy: Callable[[int], Entropy] | None = None) -> SubFactory:
    """The default sub-protocol: SecAgg+ (``entropy(party)``: tests inject a seeded source)."""

    def factory(cfg: PipelineConfig, pid: int, x: np.ndarray | None) -> Role:
        pub = secagg_public_for(cfg)
        if pid == COORDINATOR:
            return SecAggServer(pub.config, pub.graph)
        ent = entropy(pid) if entropy is not None else None
        return SecAggClient(pid, pub.config, pub.graph, np.asarray(x), entropy=ent)

    return factory


def dependence_input(cfg: PipelineConfig, record: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A party's secure-sum input: one-hot pair cells of its true record (4.2) or of its
    pairwise-randomized values (4.3, drawn pair by pair from its own generator)."""
    layout = pair_layout(cfg.sizes)
    rec = np.asarray(record)[None, :]
    if cfg.dependence != "pairwise-rr":
        one_hot: np.ndarray = layout.one_hot(rec)[0]
        return one_hot
    drawn = perturb_pairs(rec, layout, cfg.pair_mechanisms(), rng)
    x = np.zeros(layout.cells, np.uint8)
    x[pair_cells(drawn, layout)[0]] = 1
    return x


def dependences_from_aggregate(cfg: PipelineConfig, total: np.ndarray) -> np.ndarray:
    """Dependence matrix from the secure-sum aggregate of pair cells.

    ``secure-sum``: the aggregate holds the exact bivariate tables.
    ``pairwise-rr``: it holds the tables of randomized pairs, each estimated by
    Eq. 2 with the configured repair (:func:`mpc_rr.mdrr.estimate_pair_tables`).
    """
    layout = pair_layout(cfg.sizes)
    tables = layout.decode(np.asarray(total))
    if cfg.dependence == "pairwise-rr":
        tables = estimate_pair_tables(tables, cfg.pair_mechanisms(), layout, cfg.estimator).tables
    return pair_dependences(tables, cfg.schema)


@lru_cache(maxsize=8)
def _local_clustering(cfg: PipelineConfig, total: bytes) -> Clustering:
    deps = dependences_from_aggregate(cfg, np.frombuffer(total, dtype=np.int64))
    return cluster_attributes(deps, cfg.sizes, cfg.tv, cfg.td)


def local_clustering(cfg: PipelineConfig, total: np.ndarray) -> Clustering:
    """A party's own clustering from the public aggregate (memoized on its exact bytes:
    a pure function, so thousands of simulated parties in one process compute it once)."""
    return _local_clustering(cfg, np.ascontiguousarray(total, dtype=np.int64).tobytes())
