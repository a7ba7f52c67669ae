"""What the pipeline's roles end with: the coordinator's estimates and each party's spend."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.estimation import AdjustmentResult, Estimate, estimate_distribution, rr_adjustment
from mpc_rr.estimation._models import FactorModel, WeightedRecords
from mpc_rr.estimation._patterns import PatternCounts
from mpc_rr.mdrr import Clustering
from mpc_rr.pipeline._config import PipelineConfig

__all__ = ["PartyOutcome", "PipelineResult", "epsilons"]


def epsilons(cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...]) -> dict[str, float]:
    """Per-party epsilon of each phase and their sequential composition.

    Memoized per process on the public config and clustering (every party of a
    simulation asks the same question once the clustering is broadcast); a config
    holding an unhashable option mapping is computed each time.
    """
    key = tuple(tuple(int(i) for i in c) for c in clusters)
    try:
        return dict(_cached_epsilons(cfg, key))
    except TypeError:
        return _epsilons(cfg, key)


def _epsilons(cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...]) -> dict[str, float]:
    dep = cfg.dependence_epsilon()
    rel = math.fsum(m.epsilon for m in cfg.release_mechanisms(clusters))
    return {"dependence": dep, "release": rel, "total": dep + rel}


@lru_cache(maxsize=64)
def _cached_epsilons(cfg: PipelineConfig, clusters: tuple[tuple[int, ...], ...]) -> tuple[tuple[str, float], ...]:
    return tuple(_epsilons(cfg, clusters).items())


@dataclass(frozen=True)
class PartyOutcome:
    """What a data party ends with: the clustering it acted on and its privacy spend."""

    clusters: tuple[tuple[int, ...], ...]
    epsilon_dependence: float
    epsilon_release: float

    @property
    def epsilon_total(self) -> float:
        return self.epsilon_dependence + self.epsilon_release


@dataclass(frozen=True)
class PipelineResult:
    """The coordinator's output."""

    config: PipelineConfig
    dependences: np.ndarray
    clustering: Clustering
    parties_dependence: tuple[int, ...]  # whose submissions the dependence phase used
    parties_release: tuple[int, ...]  # whose release is in the estimates (sorted ids)
    randomized: np.ndarray | None  # (len(parties_release), m) released records in id order; None: not kept
    estimates: tuple[Estimate, ...]  # one per cluster
    adjustment: AdjustmentResult | None
    epsilon: dict[str, float]
    dependence_randomized: np.ndarray | None = None  # Sec. 4.1 records (source "rr", if kept), id order
    patterns: PatternCounts | None = None  # the releases' histogram the estimates come from
    dependence_patterns: PatternCounts | None = None  # the Sec. 4.1 records' histogram ("rr")

    def independent(self) -> tuple[tuple[Estimate, ...], WeightedRecords | None] | None:
        """RR-Independent from the Sec. 4.1 records (source ``rr`` only): marginal
        estimates and, if ``adjust``, the RR-Adjustment of those records (its passes and
        convergence: :meth:`independent_adjustment`)."""
        out = self.independent_adjustment()
        return None if out is None else out[:2]

    def independent_adjustment(
        self,
    ) -> tuple[tuple[Estimate, ...], WeightedRecords | None, AdjustmentResult | None] | None:
        """:meth:`independent` with the :class:`AdjustmentResult` of its RR-Adjustment."""
        y, hist = self.dependence_randomized, self.dependence_patterns
        if y is None and hist is None:
            return None
        cfg = self.config
        mechs = cfg.attribute_mechanisms()
        ests = tuple(
            estimate_distribution(
                m, np.bincount(y[:, j], minlength=cfg.sizes[j]) if y is not None
                else hist.joint_counts((j,)), cfg.estimator,  # type: ignore[union-attr]
            )
            for j, m in enumerate(mechs)
        )  # fmt: skip
        if not cfg.adjust:
            return ests, None, None
        singles = [(j,) for j in range(len(cfg.sizes))]
        targets = [e.distribution for e in ests]
        if y is None:  # no rows kept: the records as their histogram (mpc_rr.estimation.PatternCounts)
            assert hist is not None
            adj = hist.adjust(singles, targets, max_iter=cfg.adjust_iterations)
            return ests, WeightedRecords(cfg.sizes, hist.patterns.astype(np.int64), adj.weights), adj
        adj = rr_adjustment(y, cfg.sizes, singles, targets, max_iter=cfg.adjust_iterations)
        return ests, WeightedRecords(cfg.sizes, y, adj.weights), adj

    @property
    def model(self) -> FactorModel:
        sizes = self.config.sizes
        return FactorModel(
            sizes,
            self.clustering.clusters,
            tuple(
                e.distribution.reshape(tuple(sizes[i] for i in c))
                for c, e in zip(self.clustering.clusters, self.estimates, strict=True)
            ),
        )

    @property
    def adjusted(self) -> WeightedRecords | None:
        """RR-Adjustment's weighted records: the released rows, or (rows not kept) the distinct
        patterns, each weighted with its share of the mass (``adjustment.weights`` is per row
        or per pattern accordingly)."""
        if self.adjustment is None:
            return None
        if self.randomized is not None:
            return WeightedRecords(self.config.sizes, self.randomized, self.adjustment.weights)
        assert self.patterns is not None
        return WeightedRecords(self.config.sizes, self.patterns.patterns.astype(np.int64), self.adjustment.weights)

    def rows(self) -> np.ndarray:
        """The released records (:attr:`randomized`); a clear error if the coordinator kept none."""
        if self.randomized is None:
            raise UsageError(
                "the coordinator kept no per-party rows (keep_rows=False): its estimates come from "
                "the released records' histogram, result.patterns"
            )
        return self.randomized

