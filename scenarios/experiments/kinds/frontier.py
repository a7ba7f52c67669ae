"""Scenario kind ``frontier``: one trust model's count-query error at one central epsilon.

As ``mpc-rr frontier`` (:func:`mpc_rr.workflows._frontier.frontier`), one point per run:
``model`` (``local RR``, ``shuffled RR``, ``<sum> + noise`` for every registered sum that
carries distributed noise, ``trusted curator``) at ``epsilon``.  The sample (``parties``
records) and the queries come from ``sample_seed``, the same for every grid point and
repeat, so a ``[grid]`` over ``model`` and ``epsilon`` compares the models on the same
counts; each run's randomness comes from its own seed.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.core import UsageError
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["FrontierParams"]


def _models() -> tuple[str, ...]:
    from mpc_rr.workflows._frontier import frontier_models

    return frontier_models()


class FrontierParams(
    msgspec.Struct, tag="frontier", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    model: str = "local RR"  # one of the frontier's models (checked with the point)
    epsilon: Annotated[float, Meta(gt=0)] = 1.0
    parties: Annotated[int, Meta(ge=10)] = 2000
    queries: Annotated[int, Meta(ge=1)] = 200
    coverage: Annotated[float, Meta(gt=0, le=1)] = 0.1
    delta: Annotated[float, Meta(gt=0, lt=1)] = 1e-6
    max_corrupt: Annotated[float, Meta(ge=0, lt=1)] = 0.1
    sample_seed: Annotated[int, Meta(ge=0)] = 0


METRICS: tuple[str, ...] = ("error", "central_epsilon", "delta", "messages", "point_s", "wall_s")


def check(prm: FrontierParams, source: Any) -> None:
    records = source.records
    if records is not None and prm.parties > records:
        raise UsageError(f"parties must be at most the {records:,} records of {source.name}, got {prm.parties}")
    if len(source.schema) < 2:
        raise UsageError("the frontier's count queries need at least two attributes")


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.workflows._frontier import frontier

    prm: FrontierParams = ctx.params
    t0 = time.perf_counter()
    sample = ctx.source.draw(prm.parties, np.random.default_rng(np.random.SeedSequence([prm.sample_seed, 0xF1])))
    rep = frontier(sample, [prm.epsilon], repeats=1, queries=prm.queries, coverage=prm.coverage,
                   delta=prm.delta, max_corrupt=prm.max_corrupt, models=[prm.model],
                   seed=prm.sample_seed, repeat_seed=ctx.seed)  # fmt: skip
    pt = rep.point(prm.model, prm.epsilon)
    metrics: dict[str, Scalar] = {
        "error": pt.errors[0], "central_epsilon": pt.central_epsilon, "delta": pt.delta,
        "messages": pt.messages, "point_s": pt.seconds, "wall_s": time.perf_counter() - t0,
    }  # fmt: skip
    return Outcome("ok", metrics, {**rep.to_json(), "dataset": sample.name})


register(
    Kind(
        name="frontier",
        params=FrontierParams,
        run=run,
        metrics=METRICS,
        default_metrics=("error", "central_epsilon", "messages", "wall_s"),
        data="table",
        check=check,
        summary="one trust model's count-query error at one central epsilon (mpc-rr frontier)",
        choices={"model": _models},
    )
)
