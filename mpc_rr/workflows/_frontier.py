"""The trust-model frontier: count-query error at equal central epsilon, per trust model.

On one sample of ``n`` records and one set of count queries (two attributes, a share
``coverage`` of their value combinations: Domingo-Ferrer & Soria-Comas, Sec. 6.5, Eq. 16),
every trust model answers the same queries from the same bivariate counts, at the same
central ``(epsilon, delta)`` per record:

* **local RR** (nobody is trusted): each party randomizes each attribute with
  keep-or-uniform(p); the per-record epsilon is the sum of the attributes' ``ln(1 + p|A| /
  (1 - p))`` (sequential composition), and ``p`` is the largest that keeps it at
  ``epsilon``.  RR-Independent: marginals by Eq. 2 (clipped), pairs as their products.
* **shuffled RR** (the shuffler is honest; at most ``max_corrupt`` of the clients show the
  analyst their reports): the same reports through an anonymous channel, at the largest
  ``p`` whose central epsilon -- the privacy ledger's shuffle amplification, each attribute
  a k-RR release amplified by the clone reduction and composed by the PLD accountant --
  is at most ``epsilon``.  The same estimator.
* **a secure sum with distributed noise**, for every registered sum protocol that hides
  inputs and carries noise (:class:`~mpc_rr.secure_sum._protocol.DistributedNoise`): each
  party enters its one-hot pair cells plus its share of Skellam noise
  (:class:`~mpc_rr.secure_sum._noisy_sum.NoisySum`, calibrated for the fewest honest
  survivors the protocol's bounds leave); the total is decoded, each pair's noisy table
  projected onto the non-negative counts summing to ``n``, and the queries answered from
  it.  Who must be honest is the protocol's :meth:`~mpc_rr.secure_sum.SumProtocol.trust`.
  The total is the sum of the parties' noisy inputs -- what the protocol delivers (the
  conformance kit checks it for every such protocol); ``run_sums`` runs the protocol
  itself over those inputs (in the harness: small ``n`` only).
* **a trusted curator** (reference): the curator sees every record and adds ``Sk(v)`` once.

Each model is repeated ``repeats`` times (its randomness from one seed); a point reports
the mean relative error over the queries per repeat, their mean, standard deviation and
95% normal interval of the mean.  Costs are the cost model's messages (no bytes: the sums
are simulated) and the seconds the point took.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, HarnessRunner, UsageError
from mpc_rr.data import Dataset
from mpc_rr.estimation import CountQuery, make_queries, relative_error, true_count
from mpc_rr.estimation._frequencies import project_simplex
from mpc_rr.mdrr import rr_independent
from mpc_rr.mdrr._pair_cells import pair_layout
from mpc_rr.mechanisms import keep_or_uniform
from mpc_rr.privacy import Assumption, PhaseSpec, Release, build_ledger, dependence_sensitivity
from mpc_rr.privacy import skellam_epsilon as _skellam_epsilon
from mpc_rr.secure_sum import DEFAULT_MAX_CORRUPT, SecureSumPlan, SeededEntropy, sum_protocol
from mpc_rr.secure_sum._noisy_sum import (
    DEFAULT_CLIP_SHARE,
    NoisySum,
    _calibrated,
    noise_protocol_names,
    plan_noisy_sum,
)
from mpc_rr.workflows._privacy import channel_assumption

__all__ = [
    "FrontierPoint",
    "FrontierReport",
    "frontier",
    "frontier_models",
    "frontier_sums",
    "local_keep_probability",
    "noisy_inputs",
    "shuffled_keep_probability",
]

LOCAL = "local RR"
LOCAL_CLUSTERS = "local RR-Clusters"
SHUFFLED = "shuffled RR"
CURATOR = "trusted curator"
NOISY = " + noise"  # a sum's model: "<protocol> + noise"


@dataclass(frozen=True)
class FrontierPoint:
    """One trust model at one target epsilon: its errors per repeat and what it cost."""

    model: str
    trust: str
    estimator: str
    epsilon: float
    central_epsilon: float
    delta: float
    parameter: str
    value: float
    errors: tuple[float, ...]
    messages: int
    seconds: float

    @property
    def mean(self) -> float:
        return float(np.mean(self.errors))

    @property
    def sd(self) -> float:
        return float(np.std(self.errors, ddof=1)) if len(self.errors) > 1 else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95% normal interval of the mean over the repeats."""
        return 1.96 * self.sd / math.sqrt(len(self.errors))

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model, "trust": self.trust, "estimator": self.estimator,
            "epsilon": self.epsilon, "central_epsilon": self.central_epsilon, "delta": self.delta,
            "parameter": self.parameter, "value": self.value, "errors": list(self.errors), "mean": self.mean,
            "sd": self.sd, "ci95": [self.mean - self.half_width, self.mean + self.half_width],
            "messages": self.messages, "seconds": self.seconds,
        }  # fmt: skip


@dataclass(frozen=True)
class FrontierReport:
    """Every point of one frontier (module docstring)."""

    dataset: str
    parties: int
    attributes: int
    queries: int
    coverage: float
    repeats: int
    delta: float
    max_corrupt: float
    points: tuple[FrontierPoint, ...]

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.model for p in self.points))

    @property
    def epsilons(self) -> tuple[float, ...]:
        return tuple(sorted({p.epsilon for p in self.points}))

    def point(self, model: str, epsilon: float) -> FrontierPoint:
        for p in self.points:
            if p.model == model and p.epsilon == epsilon:
                return p
        raise UsageError(f"no point for {model!r} at epsilon {epsilon}")

    def best(self, epsilon: float, *, reference: bool = False) -> FrontierPoint:
        """The model with the smallest mean error at ``epsilon`` (the curator only with
        ``reference``)."""
        pts = [p for p in self.points if p.epsilon == epsilon and (reference or p.model != CURATOR)]
        return min(pts, key=lambda p: p.mean)

    def to_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "parties": self.parties, "attributes": self.attributes,
            "queries": self.queries, "coverage": self.coverage, "repeats": self.repeats,
            "delta": self.delta, "max_corrupt": self.max_corrupt, "epsilons": list(self.epsilons),
            "models": list(self.models), "points": [p.to_json() for p in self.points],
            "best": {str(e): self.best(e).model for e in self.epsilons},
        }  # fmt: skip


# -- the equal-epsilon parameters ---------------------------------------------------------------
def local_keep_probability(sizes: Sequence[int], epsilon: float) -> float:
    """The ``p`` at which keep-or-uniform(p) on every attribute spends ``epsilon`` per record
    (``sum ln(1 + p |A| / (1 - p)) = epsilon``; bisection, the sum increases with ``p``)."""
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise UsageError(f"epsilon must be finite and > 0, got {epsilon}")

    def spent(p: float) -> float:
        return math.fsum(math.log1p(p * s / (1 - p)) for s in sizes)

    lo, hi = 0.0, 1.0 - 1e-12
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spent(mid) <= epsilon else (lo, mid)
    return lo


def _shuffled_central(sizes: Sequence[int], p: float, n: int, delta: float, assumption: Assumption) -> float:
    rels = tuple(Release(math.log1p(p * s / (1 - p)), int(s)) for s in sizes)
    led = build_ledger([PhaseSpec(SHUFFLED, "anonymous", n, rels, assumption=assumption)], delta)
    eps = led.entries[0].central_epsilon
    return math.inf if eps is None else float(eps)


@lru_cache(maxsize=64)
def shuffled_keep_probability(
    sizes: tuple[int, ...], n: int, epsilon: float, delta: float, max_corrupt: float = DEFAULT_MAX_CORRUPT,
    *, steps: int = 7,
) -> tuple[float, float]:  # fmt: skip
    """``(p, central)``: the largest ``p`` found (bisection, ``steps`` ledger evaluations of
    about a second each on Adult: memoized) whose shuffled central epsilon is at most
    ``epsilon``, and that central epsilon."""
    assumption = channel_assumption("anonymous", n, max_corrupt)
    lo = local_keep_probability(sizes, epsilon)  # amplification never hurts: central <= local
    central_lo = _shuffled_central(sizes, lo, n, delta, assumption)
    hi = local_keep_probability(sizes, 40 * epsilon)
    central_hi = _shuffled_central(sizes, hi, n, delta, assumption)
    if central_hi <= epsilon:
        return hi, central_hi
    for _ in range(steps):
        mid = (lo + hi) / 2
        c = _shuffled_central(sizes, mid, n, delta, assumption)
        if c <= epsilon:
            lo, central_lo = mid, c
        else:
            hi = mid
    return lo, central_lo


def frontier_sums() -> tuple[str, ...]:
    """The registered sums a frontier compares: those that hide inputs, carry noise, and give
    party 0 the total (a server or leader)."""
    return tuple(
        name for name in noise_protocol_names()
        if sum_protocol(name).hides_inputs and sum_protocol(name).total_at_coordinator
    )  # fmt: skip


def frontier_models(sums: Sequence[str] | None = None, *, curator: bool = True) -> tuple[str, ...]:
    """The models of a frontier over ``sums`` (default :func:`frontier_sums`), in its order."""
    names = frontier_sums() if sums is None else tuple(sums)
    return (LOCAL, LOCAL_CLUSTERS, SHUFFLED, *(f"{s}{NOISY}" for s in names),
            *((CURATOR,) if curator else ()))  # fmt: skip


# -- the estimates ------------------------------------------------------------------------------
class _PairModel:
    """Pair tables as distributions (``marginal((a, b))`` for ``a < b``: what a query reads)."""

    def __init__(self, tables: dict[tuple[int, int], np.ndarray]) -> None:
        self.tables = tables

    def marginal(self, attrs: Sequence[int]) -> np.ndarray:
        a, b = (int(x) for x in attrs)
        return self.tables[(a, b)] if a < b else self.tables[(b, a)].T


def _errors(model: Any, queries: Sequence[CountQuery], truth: Sequence[int], n: int) -> float:
    est = [float(n * model.marginal(q.attrs)[q.mask].sum()) for q in queries]
    return float(np.mean([relative_error(e, t) for e, t in zip(est, truth, strict=True)]))


def _rr_clusters(sample: Dataset, p: float, rng: np.random.Generator) -> tuple[Any, float]:
    """The pipeline's Sec. 4.1 run, centralized: per-attribute keep-or-uniform(p) reports give
    the dependences and Algorithm 1's clusters (its default Tv, Td), then each cluster is
    released at equal risk (k-RR on its joint domain, epsilon the sum of its attributes') and
    estimated by Eq. 2.  Returns the model and the per-record epsilon of both phases."""
    from mpc_rr.estimation import dependence_matrix
    from mpc_rr.mdrr import cluster_attributes, rr_clusters
    from mpc_rr.pipeline import PipelineConfig

    sizes = tuple(sample.schema.sizes)
    cfg = PipelineConfig(schema=sample.schema, n=sample.n, p=p, dependence="rr", coordinator_key=bytes(32))
    first = rr_independent(sample.codes, sizes, cfg.attribute_mechanisms(), rng)
    clusters = cluster_attributes(dependence_matrix(first.randomized, sample.schema), sizes, cfg.tv, cfg.td).clusters
    mechs = cfg.release_mechanisms(tuple(tuple(c) for c in clusters))
    release = rr_clusters(sample.codes, sizes, clusters, mechs, rng)
    spent = cfg.dependence_epsilon() + math.fsum(m.epsilon for m in mechs)
    return release.model, spent


def _consistent_pairs(total: np.ndarray, sizes: tuple[int, ...], n: int) -> _PairModel:
    """Each pair's noisy counts divided by ``n`` and projected onto the simplex."""
    layout = pair_layout(sizes)
    tables = layout.decode(np.asarray(total, dtype=float))
    return _PairModel({pair: project_simplex(t / n) for pair, t in tables.items()})


def noisy_inputs(noise: NoisySum, one_hot: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The parties' noisy inputs ``x + clip(z, -c, c) + c`` (rows: parties, in one draw)."""
    from mpc_rr.privacy import skellam_noise

    z = np.clip(skellam_noise(noise.noise.client_variance, one_hot.shape, rng), -noise.offset, noise.offset)
    out: np.ndarray = one_hot.astype(np.int64) + z + noise.offset
    return out


def _sum_total(
    noise: NoisySum, sizes: tuple[int, ...], codes: np.ndarray, rng: np.random.Generator, run_sums: bool,
    run: str, entropy_seed: int,
) -> np.ndarray:  # fmt: skip
    """The decoded noisy total of every party's pair cells: the sum of their noisy inputs
    (drawn 4,096 parties at a time), or (``run_sums``) the protocol's own total over them."""
    layout = pair_layout(sizes)
    chunks = (noisy_inputs(noise, layout.one_hot(codes[i : i + 4096]), rng) for i in range(0, codes.shape[0], 4096))
    if not run_sums:
        return noise.decode(sum(x.sum(axis=0) for x in chunks), codes.shape[0])
    x = np.concatenate(list(chunks))
    plan = SecureSumPlan(noise.spec if noise.spec is not None else noise.protocol, x, run=run,
                         entropy=SeededEntropy(entropy_seed).spawn, options=noise.options,
                         shape=(x.shape[0], x.shape[1], noise.input_max))  # fmt: skip
    res = HarnessRunner()(plan)
    if res.errors:
        raise UsageError(f"frontier: the {noise.protocol} sum aborted: {res.errors}")
    hub = res.roles[COORDINATOR].result
    return noise.decode(np.asarray(hub.total, dtype=np.int64), len(hub.included))


def frontier(
    data: Dataset,
    epsilons: Sequence[float],
    *,
    parties: int | None = None,
    repeats: int = 5,
    queries: int = 200,
    coverage: float = 0.1,
    delta: float = 1e-6,
    sums: Sequence[str] | None = None,
    max_corrupt: float = DEFAULT_MAX_CORRUPT,
    curator: bool = True,
    run_sums: bool = False,
    seed: int = 0,
    models: Sequence[str] | None = None,
    repeat_seed: int | None = None,
) -> FrontierReport:
    """The frontier of ``data`` (module docstring): ``parties`` records drawn from ``seed``
    (``None``: all), ``queries`` count queries of ``coverage``, each model ``repeats`` times at
    each of ``epsilons``; ``sums``: the sum protocols (default :func:`frontier_sums`).

    ``models``: compute only these (:func:`frontier_models`; default all); ``repeat_seed``:
    the models' randomness from this seed instead of ``seed``'s (the sample and the queries
    stay ``seed``'s: a study's repeats of one grid point).
    """
    eps_list = sorted({float(e) for e in epsilons})
    if not eps_list or not all(math.isfinite(e) and e > 0 for e in eps_list):
        raise UsageError(f"epsilons must be finite and > 0, got {list(epsilons)}")
    if repeats < 1 or queries < 1:
        raise UsageError(f"repeats and queries must be >= 1, got {repeats}, {queries}")
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")
    names = tuple(frontier_sums() if sums is None else sums)
    for name in names:
        if name not in noise_protocol_names():
            raise UsageError(f"{name!r} cannot carry distributed noise; the sums that can: "
                             f"{', '.join(noise_protocol_names())}")  # fmt: skip
    sizes = tuple(data.schema.sizes)
    if len(sizes) < 2:
        raise UsageError("the frontier's count queries need at least two attributes")
    data_ss, query_ss, model_ss = np.random.SeedSequence(seed).spawn(3)
    if repeat_seed is not None:
        model_ss = np.random.SeedSequence([int(repeat_seed), 0xF0])
    known = frontier_models(names, curator=curator)
    wanted = set(known if models is None else models)
    if wanted - set(known):
        raise UsageError(f"unknown frontier model(s) {sorted(wanted - set(known))}; the models: {', '.join(known)}")
    sample = data if parties is None else data.subsample(int(parties), np.random.default_rng(data_ss))
    n, codes = sample.n, sample.codes
    qs = make_queries(codes, sizes, queries, coverage, np.random.default_rng(query_ss))
    truth = [true_count(codes, q) for q in qs]
    layout = pair_layout(sizes)
    exact = layout.one_hot(codes).sum(axis=0, dtype=np.int64)
    sens = dependence_sensitivity(len(sizes))

    shuffle_trust = channel_assumption("anonymous", n, max_corrupt).honest
    points: list[FrontierPoint] = []
    streams = iter(model_ss.spawn(len(eps_list) * (3 + len(names))))
    cluster_streams = iter(model_ss.spawn(len(eps_list)))  # spawned after: the others' streams unchanged
    for eps in eps_list:
        # local RR and shuffled RR: the same estimator at their own p
        p_local = local_keep_probability(sizes, eps)
        t0 = time.perf_counter()
        p_shuf, c_shuf = (shuffled_keep_probability(sizes, n, eps, delta, max_corrupt)
                          if SHUFFLED in wanted else (math.nan, math.nan))  # fmt: skip
        solve = time.perf_counter() - t0
        for model, p, central, trust, messages, extra in (
            (LOCAL, p_local, eps, "nobody: each party randomizes its own record", n, 0.0),
            (SHUFFLED, p_shuf, c_shuf, shuffle_trust, 2 * n, solve),
        ):
            rng = np.random.default_rng(next(streams))
            if model not in wanted:
                continue
            t0 = time.perf_counter()
            mechs = [keep_or_uniform(s, p) for s in sizes]
            errs = tuple(_errors(rr_independent(codes, sizes, mechs, rng).model, qs, truth, n)
                         for _ in range(repeats))  # fmt: skip
            local_eps = math.fsum(m.epsilon for m in mechs)
            points.append(FrontierPoint(model, trust, "RR-Independent", eps, min(central, local_eps),
                                        0.0 if model == LOCAL else delta,
                                        f"p = {p:.4g} (local epsilon {local_eps:.3g})", p, errs, messages,
                                        time.perf_counter() - t0 + extra))  # fmt: skip
        rng = np.random.default_rng(next(cluster_streams))
        if LOCAL_CLUSTERS in wanted:
            t0 = time.perf_counter()
            p_half = local_keep_probability(sizes, eps / 2)
            per_repeat: list[float] = []
            spent = 0.0
            for _ in range(repeats):
                model, spent = _rr_clusters(sample, p_half, rng)
                per_repeat.append(_errors(model, qs, truth, n))
            points.insert(-1 if SHUFFLED in wanted else len(points), FrontierPoint(
                LOCAL_CLUSTERS, "nobody: each party randomizes its own record", "RR-Clusters (Sec. 4.1 dependences)",
                eps, spent, 0.0, f"p = {p_half:.4g}: E/2 for the dependence phase, E/2 for the clustered release",
                p_half, tuple(per_repeat), 3 * n, time.perf_counter() - t0,  # reports, clustering, release
            ))  # fmt: skip
        # secure sums with distributed noise
        for name in names:
            rng = np.random.default_rng(next(streams))
            if f"{name}{NOISY}" not in wanted:
                continue
            t0 = time.perf_counter()
            spec = sum_protocol(name)
            noise = plan_noisy_sum(spec, n, cells=layout.cells, epsilon=eps, delta=delta, sensitivity=sens)
            noise.public(run="frontier")  # its modulus holds the noisy inputs (or a clear refusal)
            errs = tuple(
                _errors(_consistent_pairs(_sum_total(noise, sizes, codes, rng, run_sums, f"frontier-{name}-{r}", r),
                                          sizes, n), qs, truth, n)
                for r in range(repeats)
            )  # fmt: skip
            trust = spec.trust_of(noise.options, n).honest
            points.append(FrontierPoint(
                f"{name}{NOISY}", trust, "noisy pair counts, projected", eps, noise.noise.epsilon,
                noise.delta, f"Sk({noise.noise.client_variance:.4g}) per party and cell "
                f"({noise.noise.honest_min} honest survivors of {n}; clipped at {noise.offset})",
                noise.noise.client_variance, errs, spec.message_count(n, noise.options), time.perf_counter() - t0,
            ))  # fmt: skip
        if CURATOR in wanted:
            rng = np.random.default_rng(next(streams))
            t0 = time.perf_counter()
            v, _ = _calibrated(eps, (1 - DEFAULT_CLIP_SHARE) * delta, sens.cells)  # the sums' accountant share
            from mpc_rr.privacy import skellam_noise

            errs = tuple(_errors(_consistent_pairs(exact + skellam_noise(v, exact.size, rng), sizes, n),
                                 qs, truth, n) for _ in range(repeats))  # fmt: skip
            points.append(FrontierPoint(CURATOR, "the curator, who sees every record", "noisy pair counts, projected",
                                        eps, _skellam_epsilon(v, sens.cells, delta), delta,
                                        f"Sk({v:.4g}) per cell, added once", v, errs, n,
                                        time.perf_counter() - t0))  # fmt: skip
        else:
            next(streams)
    return FrontierReport(sample.name or "data", n, len(sizes), len(qs), float(coverage), int(repeats),
                          float(delta), float(max_corrupt), tuple(points))  # fmt: skip
