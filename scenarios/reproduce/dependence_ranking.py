"""How well each dependence source ranks attribute pairs and recovers the clusters.

For every p and run, the three sources of the pipeline's dependence phase are
computed with the centralized functions (the distributed roles give identical
values for the same draws: ``tests/mpc_rr/pipeline/test_roles.py``):

* ``rr`` (4.1): dependences on per-attribute keep-or-uniform(p) data;
* ``secure-sum`` (4.2): the exact pair tables (what the secure sum returns);
* ``pairwise-rr`` (4.3): each pair randomized with keep-or-uniform(p) over the
  pair's domain, the table estimated by Eq. 2 (clip), then dependence.

Reported per source and p: the Spearman correlation between the source's
pairwise dependences and the exact ones (mean and minimum over runs), and
the share of runs whose Algorithm 1 clustering equals the one from exact
dependences.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.stats import spearmanr

from mpc_rr.data import Dataset
from mpc_rr.estimation import (
    contingency,
    dependence_matrix,
    dependence_matrix_from_tables,
    estimate_distribution,
)
from mpc_rr.mdrr import PairLayout, cluster_attributes, rr_independent
from mpc_rr.mechanisms import keep_or_uniform

__all__ = ["SOURCES", "dependence_ranking"]

SOURCES = ("rr", "secure-sum", "pairwise-rr")


def _source(data: Dataset, source: str, p: float, rng: np.random.Generator) -> np.ndarray:
    sizes = data.schema.sizes
    if source == "rr":
        rel = rr_independent(data.codes, sizes, [keep_or_uniform(s, p) for s in sizes], rng)
        return dependence_matrix(rel.randomized, data.schema)
    layout = PairLayout(sizes)
    if source == "secure-sum":
        return dependence_matrix_from_tables(
            layout.decode(layout.aggregate(data.codes)), data.schema
        )
    tables = {}
    for i, j in layout.pairs:
        mech = keep_or_uniform((sizes[i], sizes[j]), p)
        y = mech.perturb(data.codes[:, [i, j]], rng)
        t = contingency(y[:, 0], y[:, 1], sizes[i], sizes[j])
        tables[(i, j)] = estimate_distribution(mech, t, "clip").distribution * data.n
    return dependence_matrix_from_tables(tables, data.schema)


def dependence_ranking(
    data: Dataset,
    runs: int,
    seed: int,
    *,
    p_values: Sequence[float] = (0.1, 0.3, 0.5, 0.7),
    tv: int = 100,
    td: float = 0.1,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, float | str]]:
    exact = dependence_matrix(data.codes, data.schema)
    iu = np.triu_indices(len(data.schema), 1)
    exact_clusters = cluster_attributes(exact, data.schema.sizes, tv, td).clusters
    rows: list[dict[str, float | str]] = []
    for p, ss in zip(p_values, np.random.SeedSequence(seed).spawn(len(p_values)), strict=True):
        rhos: dict[str, list[float]] = {s: [] for s in SOURCES}
        same: dict[str, int] = dict.fromkeys(SOURCES, 0)
        for run_ss in ss.spawn(runs):
            rng = np.random.default_rng(run_ss)
            for s in SOURCES:
                d = _source(data, s, p, rng)
                rhos[s].append(float(spearmanr(d[iu], exact[iu]).statistic))
                same[s] += (
                    cluster_attributes(d, data.schema.sizes, tv, td).clusters == exact_clusters
                )
            if progress:
                progress(1)
        for s in SOURCES:
            rows.append(
                {"p": p, "source": s, "spearman_mean": float(np.mean(rhos[s])), "spearman_min": float(np.min(rhos[s])),
                 "same_clusters": same[s] / runs}
            )  # fmt: skip
    return rows
