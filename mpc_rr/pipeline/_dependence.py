"""The dependence phase's secure sum as a sub-protocol of the pipeline roles.

``dependence="secure-sum"`` (Sec. 4.2) sums each party's one-hot pair cells
of its true record; ``"pairwise-rr"`` (Sec. 4.3) sums the one-hot cells of its
pairwise-randomized values (:func:`~mpc_rr.mdrr.perturb_pairs`).  The sum is
the run's ``sum_protocol`` (SecAgg+ by default; any registered sum protocol
whose party 0 learns the sum), built from its spec with the run's options
and run id ``<pipeline run>/dependence``, told that every input is one-hot in
each pair's block of cells (prio3 proves exactly that: a party cannot put a 1
in several cells of one pair, nor anything but 0/1 in a cell).  Every party learns the aggregate,
so it can compute the clustering itself and check the coordinator's broadcast.

With ``dp_epsilon`` (:meth:`PipelineConfig.dp_noise`, a
:class:`~mpc_rr.secure_sum._noisy_sum.NoisySum`) each party adds Skellam noise to its
one-hot cells, clipped to ``[-c, c]`` and shifted by ``c`` so every input lies in
``[0, 1 + 2c]`` (the sum's ``max_value``, which the protocol sizes its modulus for; no
longer one-hot); the aggregate is shifted back
by ``c`` per included party and the dependences come from the noisy tables with the
chi-squared debiased for the noise (:func:`mpc_rr.estimation.noisy_dependence_matrix`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Role, UsageError
from mpc_rr.estimation import noisy_dependence_matrix
from mpc_rr.mdrr import Clustering, cluster_attributes
from mpc_rr.mdrr._pair_cells import pair_layout
from mpc_rr.mdrr._pairwise import estimate_pair_tables, pair_cells, pair_dependences, perturb_pairs
from mpc_rr.pipeline._config import PipelineConfig
from mpc_rr.secure_sum import Entropy, SumProtocol, sum_protocol

__all__ = [
    "dependence_input",
    "dependence_public",
    "dependence_role",
    "dependence_sum",
    "dependences_from_aggregate",
    "local_clustering",
    "noisy_counts",
]


def dependence_sum(cfg: PipelineConfig) -> SumProtocol:
    """The spec of the run's dependence sum protocol."""
    return sum_protocol(cfg.sum_protocol)


def dependence_public(cfg: PipelineConfig) -> Any:
    """The public parameters of a pipeline run's dependence sum."""
    spec = dependence_sum(cfg)
    layout = pair_layout(cfg.sizes)
    noise = cfg.dp_noise()
    if noise is not None:  # noisy inputs in [0, 1 + 2c], sized by the protocol: not one-hot
        return noise.public(run=f"{cfg.run}/dependence")
    blocks = tuple(int(b) for b in np.diff(layout.offsets))  # each pair's cells: one-hot
    return spec.public(
        cfg.n, layout.cells, run=f"{cfg.run}/dependence", max_value=1,
        options=spec.options_for(cfg.sum_options, cfg.n, one_hot_blocks=blocks),
    )  # fmt: skip


def dependence_role(
    cfg: PipelineConfig, party_id: int, x: np.ndarray | None, entropy: Entropy | None = None
) -> Role:
    """Party ``party_id``'s role in the dependence sum (``x``: its input; ``None`` for party 0)."""
    spec = dependence_sum(cfg)
    return spec.role(party_id, dependence_public(cfg), None if party_id == COORDINATOR else x,
                     entropy=entropy)  # fmt: skip


def dependence_input(cfg: PipelineConfig, record: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A party's secure-sum input: one-hot pair cells of its true record (4.2) or of its
    pairwise-randomized values (4.3, drawn pair by pair from its own generator)."""
    layout = pair_layout(cfg.sizes)
    rec = np.asarray(record)[None, :]
    if cfg.dependence != "pairwise-rr":
        one_hot: np.ndarray = layout.one_hot(rec)[0]
        noise = cfg.dp_noise()
        if noise is not None:
            return noise.noisy_input(one_hot, rng)
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
    noise = cfg.dp_noise()
    if noise is not None:
        counts, included = noisy_counts(cfg, total)
        return noisy_dependence_matrix(layout.decode(counts), cfg.schema, included,
                                       included * noise.noise.client_variance, "debias")  # fmt: skip
    tables = layout.decode(np.asarray(total))
    if cfg.dependence == "pairwise-rr":
        tables = estimate_pair_tables(tables, cfg.pair_mechanisms(), layout, cfg.estimator).tables
    return pair_dependences(tables, cfg.schema)


def noisy_counts(cfg: PipelineConfig, total: np.ndarray) -> tuple[np.ndarray, int]:
    """The noisy pair counts (int64, may be negative) and the number of included parties,
    from the aggregate of offset noisy inputs.

    Each included party adds ``P + cells * c`` to the grand total (``P`` pairs, one 1 each,
    and the offset in every cell) and zero-mean noise far smaller than that, so the count
    of included parties is the rounded ratio.
    """
    noise = cfg.dp_noise()
    if noise is None:
        raise UsageError("noisy_counts: the run adds no noise (dp_epsilon is None)")
    t = np.asarray(total, dtype=np.int64)
    m = len(cfg.sizes)
    per_party = m * (m - 1) // 2 + t.size * noise.offset
    included = round(float(t.sum()) / per_party)
    return noise.decode(t, included), included


@lru_cache(maxsize=8)
def _local_clustering(cfg: PipelineConfig, total: bytes) -> Clustering:
    deps = dependences_from_aggregate(cfg, np.frombuffer(total, dtype=np.int64))
    return cluster_attributes(deps, cfg.sizes, cfg.tv, cfg.td)


def local_clustering(cfg: PipelineConfig, total: np.ndarray) -> Clustering:
    """A party's own clustering from the public aggregate (memoized on its exact bytes:
    a pure function, so thousands of simulated parties in one process compute it once)."""
    return _local_clustering(cfg, np.ascontiguousarray(total, dtype=np.int64).tobytes())
