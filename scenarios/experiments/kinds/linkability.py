"""Scenario kind ``linkability``: can the aggregator regroup pairwise-RR submissions? (Sec. 4.3)

As ``mpc-rr attack linkability`` (:mod:`mpc_rr.adversary._linkability`):
``parties`` records (a subsample drawn with the run's seed, or sampled from a
network) release every attribute pair with the pipeline's pair mechanisms at
``p``; the reports reach the aggregator over ``channel``; the attack
regroups them.  Metrics: linkage ``success`` against the random
``baseline`` (with its confidence interval), full re-linking, degree of
anonymity, and attribute inference from the linked groups against the prior.
Re-identification (it needs an auxiliary table) stays in the command.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
from msgspec import Meta

from mpc_rr.adversary import LINK_CHANNELS
from mpc_rr.core import UsageError
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["LinkabilityParams"]


class LinkabilityParams(
    msgspec.Struct, tag="linkability", tag_field="kind", forbid_unknown_fields=True, kw_only=True
):
    parties: Annotated[int, Meta(ge=2)] = 1000
    p: Annotated[float, Meta(gt=0, le=1)] = 0.5
    channel: Literal[LINK_CHANNELS] = "anonymous"  # type: ignore[valid-type]
    sweeps: Annotated[int, Meta(ge=0)] = 0
    confidence: Annotated[float, Meta(gt=0, lt=1)] = 0.95


METRICS: tuple[str, ...] = (
    "success", "baseline", "ci_low", "ci_high", "fully_relinked", "fully_relinked_baseline",
    "degree_of_anonymity", "anonymity_set", "inference_success", "inference_single",
    "inference_baseline", "pairs", "parties", "attack_s", "wall_s",
)  # fmt: skip


def check(prm: LinkabilityParams, source: Any) -> None:
    records = source.records
    if records is not None and prm.parties > records:
        raise UsageError(
            f"parties must be at most the {records:,} records of {source.name}, got {prm.parties}"
        )
    if len(source.schema) < 3:
        raise UsageError(
            f"linkability needs at least 3 attributes (2 pairs); {source.name} has {len(source.schema)}"
        )


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.adversary import attack, attribute_inference, release_pairs
    from mpc_rr.pipeline import PipelineConfig

    prm: LinkabilityParams = ctx.params
    t0 = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence([ctx.seed, 0x11C]))
    data = ctx.source.draw(prm.parties, rng)
    cfg = PipelineConfig(
        data.schema, n=data.n, p=prm.p, dependence="pairwise-rr", coordinator_key=bytes(32)
    )
    rel = release_pairs(data.codes, cfg.sizes, cfg.pair_mechanisms(), rng)
    lr = attack(rel, prm.channel, rng, sweeps=prm.sweeps, confidence=prm.confidence)
    res = lr.result
    inf = attribute_inference(rel, data.codes, lr.owners, lr.grouping, names=data.schema.names,
                              confidence=prm.confidence)  # fmt: skip
    wall = time.perf_counter() - t0
    doc: dict[str, Any] = res.to_dict() | {"dataset": data.name, "p": prm.p, "inference": inf.to_dict(),
                                           "pipeline_accounting": cfg.dependence_epsilons_per_attribute()}  # fmt: skip
    metrics: dict[str, Scalar] = {
        "success": res.success, "baseline": res.baseline, "ci_low": res.ci[0], "ci_high": res.ci[1],
        "fully_relinked": res.fully_relinked, "fully_relinked_baseline": res.fully_relinked_baseline,
        "degree_of_anonymity": res.degree_of_anonymity, "anonymity_set": res.anonymity_set,
        "inference_success": inf.success, "inference_single": inf.single_mean,
        "inference_baseline": inf.baseline, "pairs": res.pairs, "parties": res.parties,
        "attack_s": res.seconds, "wall_s": wall,
    }  # fmt: skip
    return Outcome("ok", metrics, doc)


register(
    Kind(
        name="linkability",
        params=LinkabilityParams,
        run=run,
        metrics=METRICS,
        default_metrics=(
            "success",
            "baseline",
            "ci_low",
            "ci_high",
            "degree_of_anonymity",
            "inference_success",
            "wall_s",
        ),
        data="table",
        check=check,
        summary="linkability of pairwise-RR submissions per channel (mpc-rr attack linkability)",
    )
)
