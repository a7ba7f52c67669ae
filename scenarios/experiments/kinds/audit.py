"""Scenario kind ``audit``: empirical epsilon of a mechanism, black box (``mpc-rr audit``).

The mechanism is built as ``mpc-rr audit`` builds it
(:func:`mpc_rr.workflows.build_mechanism`: krr, keep-uniform, cluster,
lambda, optimized; not ``rrba`` nor ``pipeline``, whose audits run a collection
or the real roles: ``mpc-rr audit``), audited with
``trials`` runs drawn from the run's seed; the Clopper-Pearson lower bound is
reported next to the true and the claimed epsilon (the builder's claim, or
``claimed_epsilon``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    from mpc_rr.workflows import MechanismParams
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["AuditParams"]

MECHANISMS = ("krr", "keep-uniform", "cluster", "lambda", "optimized")


class AuditParams(
    msgspec.Struct, tag="audit", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    mechanism: Literal["krr", "keep-uniform", "cluster", "lambda", "optimized"] = "keep-uniform"
    trials: Annotated[int, Meta(ge=1)] = 100_000
    confidence: Annotated[float, Meta(gt=0, lt=1)] = 0.95
    black_box: bool = False
    claimed_epsilon: Annotated[float, Meta(ge=0)] | None = None
    k: Annotated[int, Meta(ge=2)] = 2
    epsilon: Annotated[float, Meta(gt=0)] = 1.0
    size: Annotated[int, Meta(ge=2)] = 2
    p: Annotated[float, Meta(gt=0, lt=1)] = 0.5
    sizes: Annotated[list[Annotated[int, Meta(ge=2)]], Meta(min_length=1)] | None = None
    lambdas: Annotated[list[float], Meta(min_length=1)] = msgspec.field(
        default_factory=lambda: [0.6, 0.7, 0.4]
    )
    eps: Annotated[list[Annotated[float, Meta(gt=0)]], Meta(min_length=1)] = msgspec.field(
        default_factory=lambda: [2.0, 3.0, 4.0]
    )
    method: Literal["lp", "heuristic"] = "lp"


METRICS: tuple[str, ...] = (
    "epsilon_lower", "epsilon_estimate", "epsilon_true", "epsilon_claimed", "violation",
    "success", "baseline", "ci_low", "ci_high", "trials", "guesses", "wall_s",
)  # fmt: skip


def _params(prm: AuditParams) -> MechanismParams:
    from mpc_rr.workflows import MechanismParams

    return MechanismParams(
        k=prm.k, epsilon=prm.epsilon, size=prm.size, p=prm.p,
        sizes=None if prm.sizes is None else tuple(prm.sizes), lambdas=tuple(prm.lambdas),
        eps=tuple(prm.eps), method=prm.method,
    )  # fmt: skip


def check(prm: AuditParams, source: object) -> None:
    mp = _params(prm)
    sizes = mp.sizes_of(prm.mechanism)
    if prm.mechanism == "lambda" and len(mp.lambdas) != len(sizes):
        raise UsageError(
            f"lambdas needs one value per size: {len(sizes)} sizes, {len(mp.lambdas)} lambdas"
        )
    if prm.mechanism == "optimized" and len(mp.eps) != len(sizes):
        raise UsageError(f"eps needs one value per size: {len(sizes)} sizes, {len(mp.eps)} eps")


def _finite(x: float | None) -> float | None:
    return None if x is None or math.isinf(x) else float(x)


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.adversary import AuditResult, audit
    from mpc_rr.workflows._audit import build_mechanism

    prm: AuditParams = ctx.params
    built = build_mechanism(prm.mechanism, _params(prm))
    claimed = built.claimed if prm.claimed_epsilon is None else prm.claimed_epsilon
    rng = np.random.default_rng(np.random.SeedSequence([ctx.seed, 0xA0D]))
    res = audit(built.mechanism, prm.trials, rng, confidence=prm.confidence, claimed=claimed,
                black_box=prm.black_box)  # fmt: skip
    if prm.black_box:  # the auditor did not use it; the report shows it
        res = AuditResult(**{**res.__dict__, "epsilon_true": float(built.mechanism.epsilon)})
    doc = res.to_dict() | {"label": built.label, "claim_source": built.claim_source
                           if prm.claimed_epsilon is None else "claimed_epsilon"}  # fmt: skip
    metrics: dict[str, Scalar] = {
        "epsilon_lower": _finite(res.epsilon_lower), "epsilon_estimate": _finite(res.epsilon_estimate),
        "epsilon_true": _finite(res.epsilon_true), "epsilon_claimed": _finite(claimed),
        "violation": res.violation, "success": res.success, "baseline": res.baseline,
        "ci_low": res.ci[0], "ci_high": res.ci[1], "trials": res.trials, "guesses": res.guesses,
        "wall_s": res.seconds,
    }  # fmt: skip
    return Outcome("ok", metrics, doc)


register(
    Kind(
        name="audit",
        params=AuditParams,
        run=run,
        metrics=METRICS,
        default_metrics=(
            "epsilon_lower",
            "epsilon_true",
            "epsilon_claimed",
            "violation",
            "success",
            "wall_s",
        ),
        data="none",
        check=check,
        summary="empirical epsilon of a mechanism: Clopper-Pearson lower bound vs true and claimed",
    )
)
