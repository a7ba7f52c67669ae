"""Public parameters of one pipeline run, shared by every role (and every process)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mpc_rr.core import UsageError
from mpc_rr.data import Schema
from mpc_rr.estimation import ESTIMATORS
from mpc_rr.mdrr import DEPENDENCE_SOURCES, MECHANISMS, composed_epsilons
from mpc_rr.mdrr._pairwise import pair_mechanisms
from mpc_rr.mechanisms import JointMechanism, LambdaRandomization, cluster_matrix, keep_or_uniform
from mpc_rr.privacy import dependence_sensitivity
from mpc_rr.secure_sum import (
    DEFAULT_SUM,
    check_inner_sum,
    sum_options,
    sum_protocol,
)
from mpc_rr.secure_sum._family import given_options
from mpc_rr.secure_sum._noisy_sum import NoisySum, plan_noisy_sum

__all__ = ["DEPENDENCE_SOURCES", "MECHANISMS", "DependenceNoise", "PipelineConfig"]



@dataclass(frozen=True)
class PipelineConfig:
    """Everything public about a run.

    Parameters
    ----------
    schema:
        Attributes (names, categories, ordinal/nominal).
    n:
        Number of data parties (ids ``1..n``); the coordinator is party 0.
    p:
        Keep probability of the per-attribute keep-or-uniform mechanism
        (Corollary 1); it fixes the per-attribute epsilons eps_A =
        ln(1 + p|A|/(1-p)) that the release matches (Sec. 6.3).
    tv, td:
        Algorithm 1 thresholds.
    dependence:
        ``rr`` (Sec. 4.1), ``secure-sum`` (4.2) or ``pairwise-rr`` (4.3).
    mechanism:
        Release mechanism per cluster, all at the per-attribute epsilons
        eps_A: ``cluster`` (Sec. 6.3.2 matrix, k-RR on the cluster's joint
        domain at eps_C = sum of eps_A), ``lambda`` (Ruiz: the Kronecker
        product of keep-or-uniform(p) factors, estimated jointly with the exact
        axis-wise inverse), ``optimized`` (Yamamoto & Shibuya: the
        privacy-optimized matrix meeting every eps_A with the least overall
        epsilon; exact LP up to 12 attributes, else the heuristic, which
        refuses rather than weakening a request).
    estimator:
        Repair of Eq. 2 estimates (``clip``, ``project``, ``ibu``, ``none``).
    adjust:
        Run RR-Adjustment on the clustered release (``adjust_iterations`` passes at most).
    coordinator_key:
        Raw Ed25519 public key of the coordinator (32 bytes); parties verify
        the clustering broadcast with it.
    min_parties:
        Fewest parties whose submissions a phase needs to go on after a
        timeout; fewer aborts the run.
    sum_protocol, sum_options:
        The secure sum of the ``secure-sum`` and ``pairwise-rr`` dependence
        sources: any registered sum protocol whose party 0 learns the sum
        (:func:`~mpc_rr.secure_sum.sum_protocol_names`), and its options (a
        mapping or its options struct; ``None`` values: the protocol's
        defaults), validated here once.  Options are refused with
        ``dependence="rr"``, where no secure sum runs.
    dp_epsilon, dp_delta:
        ``dependence="secure-sum"`` only: every party adds Skellam noise to its pair cells
        inside the sum, calibrated so that the honest survivors' noise alone gives the
        published counts central ``(dp_epsilon, dp_delta)``-DP for the dropouts and
        colluders the sum protocol states it allows
        (:class:`~mpc_rr.secure_sum._protocol.DistributedNoise`): :meth:`dp_noise`,
        :mod:`mpc_rr.secure_sum._noisy_sum`.
    """

    schema: Schema
    n: int
    p: float = 0.5
    tv: int = 100
    td: float = 0.1
    dependence: str = "rr"
    mechanism: str = "cluster"
    estimator: str = "clip"
    adjust: bool = True
    adjust_iterations: int = 50
    run: str = "pipeline"
    coordinator_key: bytes = field(default=b"", repr=False)
    min_parties: int = 2
    sum_protocol: str = DEFAULT_SUM
    sum_options: Any = None
    dp_epsilon: float | None = None
    dp_delta: float = 1e-6

    def __post_init__(self) -> None:
        if self.n < 2:
            raise UsageError(f"pipeline needs at least 2 data parties, got n={self.n}")
        keep_or_uniform(2, self.p)  # validates p in (0, 1]
        if self.dependence not in DEPENDENCE_SOURCES:
            raise UsageError(
                f"dependence must be one of {DEPENDENCE_SOURCES}, got {self.dependence!r}"
            )
        if self.mechanism not in MECHANISMS:
            raise UsageError(f"mechanism must be one of {MECHANISMS}, got {self.mechanism!r}")
        if self.estimator not in ESTIMATORS:
            raise UsageError(f"estimator must be one of {ESTIMATORS}, got {self.estimator!r}")
        if self.tv < 1 or not 0 <= self.td <= 1:
            raise UsageError(f"need tv >= 1 and 0 <= td <= 1, got tv={self.tv}, td={self.td}")
        if len(self.coordinator_key) != 32:
            raise UsageError("coordinator_key must be a 32-byte raw Ed25519 public key")
        if not 1 <= self.min_parties <= self.n:
            raise UsageError(f"min_parties must be in 1..{self.n}, got {self.min_parties}")
        if not 1 <= self.adjust_iterations <= 100_000:
            raise UsageError(
                f"adjust_iterations must be in 1..100000, got {self.adjust_iterations}"
            )
        check_inner_sum(self.sum_protocol)
        given = given_options(self.sum_options)
        if given and self.dependence == "rr":
            raise UsageError(
                f"sum options {given} only apply to the secure-sum dependence sources; dependence "
                f"'rr' runs no secure sum"
            )
        parsed = sum_options(self.sum_protocol, given or {}) if isinstance(given, Mapping | None) else (
            sum_protocol(self.sum_protocol).parse_options(given)
        )  # fmt: skip
        object.__setattr__(self, "sum_options", parsed)
        if self.dp_epsilon is not None:
            if self.dependence != "secure-sum":
                raise UsageError(
                    f"dp_epsilon applies to the secure-sum dependence (noise inside the sum), "
                    f"got dependence {self.dependence!r}"
                )
            if not (math.isfinite(self.dp_epsilon) and self.dp_epsilon > 0):
                raise UsageError(f"dp_epsilon must be finite and > 0, got {self.dp_epsilon}")
            if not 0 < self.dp_delta < 1:
                raise UsageError(f"dp_delta must be in (0, 1), got {self.dp_delta}")
            self.dp_noise()  # calibrate now (cached): refuses bounds that leave no honest survivor

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.schema.sizes

    def dp_noise(self) -> DependenceNoise | None:
        """The dependence sum's noise (``None`` without ``dp_epsilon``): its calibration, the
        offset ``c`` each party's clipped noise is shifted by, and the split of ``dp_delta``
        (99% the Skellam accountant's, 1% the chance that a draw is clipped)."""
        if self.dp_epsilon is None:
            return None
        return _dependence_noise(float(self.dp_epsilon), float(self.dp_delta), self.n, self.sizes,
                                 self.sum_protocol, self.sum_options)  # fmt: skip

    def attribute_mechanisms(self) -> list[JointMechanism]:
        """Per-attribute keep-or-uniform(p): the Sec. 4.1 dependence release and RR-Independent."""
        return list(_attribute_mechanisms(self.sizes, self.p))

    def attribute_epsilons(self) -> list[float]:
        return [m.epsilon for m in _attribute_mechanisms(self.sizes, self.p)]

    def release_mechanisms(self, clusters: tuple[tuple[int, ...], ...]) -> list[JointMechanism]:
        """One joint mechanism per cluster at equal risk to RR-Independent (Sec. 6.3.2).

        Memoized per process: every party of a simulation builds the same
        mechanisms (an LP solve for ``optimized``) from the same public inputs.
        """
        return list(
            _release_mechanisms(
                self.mechanism, self.sizes, self.p, tuple(tuple(c) for c in clusters)
            )
        )

    def dependence_epsilon(self) -> float:
        """Per-party epsilon spent by the dependence phase.

        ``rr``: the per-attribute releases compose sequentially (sum of eps_A).
        ``secure-sum``: exact counts are not differentially private (inf); the
        paper protects them by the secure sum and unlinkability instead.  With
        ``dp_epsilon``: the central epsilon of the noisy counts.
        ``pairwise-rr``: sequential composition of the party's m(m-1)/2 pair
        releases (see :meth:`dependence_epsilons_per_attribute` for the
        paper's parallel-composition figure next to it).
        """
        if self.dependence == "rr":
            return math.fsum(self.attribute_epsilons())
        if self.dependence == "secure-sum":
            return math.inf if self.dp_epsilon is None else float(self.dp_epsilon)
        return math.fsum(m.epsilon for m in self.pair_mechanisms())

    def pair_mechanisms(self) -> list[JointMechanism]:
        """Sec. 4.3: keep-or-uniform(p) over each attribute pair's joint domain, pairs (i<j) in order."""
        return list(_pair_mechanisms(self.sizes, self.p))

    def dependence_epsilons_per_attribute(self) -> dict[str, list[float]]:
        """Sec. 4.3 accounting per attribute, side by side.

        ``sequential``: attribute A appears in m - 1 pair releases of the same
        party, which compose: the sum of their epsilons.  ``parallel``: the
        paper's argument -- the secure sum makes the pair releases unlinkable,
        so each is treated as a release about a different individual and A's
        epsilon is the largest pair epsilon involving A.  (Only as good as the
        unlinkability; the adversary module measures that.)
        """
        m = len(self.sizes)
        pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
        seq, par = composed_epsilons(
            dict(zip(pairs, (x.epsilon for x in self.pair_mechanisms()), strict=True)), m
        )
        return {"sequential": seq.tolist(), "parallel": par.tolist()}


DependenceNoise = NoisySum
"""Skellam noise in the dependence sum (:class:`~mpc_rr.secure_sum._noisy_sum.NoisySum`):
``noise`` (calibration), ``offset`` (``c``: each party sends ``x + clip(z, -c, c) + c``),
``clip_delta`` (the chance any draw is clipped), ``delta`` (the release's)."""


@lru_cache(maxsize=16)
def _dependence_noise(
    epsilon: float, delta: float, n: int, sizes: tuple[int, ...], protocol: str, options: Any
) -> NoisySum:
    cells = sum(a * b for i, a in enumerate(sizes) for b in sizes[i + 1 :])
    return plan_noisy_sum(protocol, n, cells=cells, epsilon=epsilon, delta=delta,
                          sensitivity=dependence_sensitivity(len(sizes)), options=options)  # fmt: skip


@lru_cache(maxsize=16)
def _pair_mechanisms(sizes: tuple[int, ...], p: float) -> tuple[JointMechanism, ...]:
    return tuple(pair_mechanisms(sizes, p))


@lru_cache(maxsize=64)
def _attribute_mechanisms(sizes: tuple[int, ...], p: float) -> tuple[JointMechanism, ...]:
    return tuple(keep_or_uniform(s, p) for s in sizes)


@lru_cache(maxsize=64)
def _release_mechanisms(
    mechanism: str, all_sizes: tuple[int, ...], p: float, clusters: tuple[tuple[int, ...], ...]
) -> tuple[JointMechanism, ...]:
    eps = [m.epsilon for m in _attribute_mechanisms(all_sizes, p)]
    out: list[JointMechanism] = []
    for c in clusters:
        sizes = [all_sizes[i] for i in c]
        if mechanism == "cluster" or (mechanism == "optimized" and len(c) == 1):
            out.append(cluster_matrix(sizes, math.fsum(eps[i] for i in c)))
        elif mechanism == "lambda":
            out.append(LambdaRandomization(sizes, [p] * len(c)))
        else:
            from mpc_rr.mechanisms.optimized import (
                optimize,  # scipy.optimize: only for this mechanism
            )

            out.append(optimize(sizes, [eps[i] for i in c], method="auto", on_mismatch="raise"))
    return tuple(out)
