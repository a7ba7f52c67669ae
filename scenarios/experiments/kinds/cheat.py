"""Scenario kind ``cheat``: an active SecAgg+ server or client cheats; caught and named?

As ``mpc-rr attack cheat`` (:func:`mpc_rr.adversary.active.cheat`): ``strategy``
played over ``trials`` seeded runs (seeded by the run's seed) against our
roles, or against the broken variant with ``broken = true`` (so a grid over
``broken`` shows both).  Metrics: ``detected`` (every trial), detections,
``culprit_named``, honest parties blamed, ``inputs_recovered`` against the
``baseline`` of a guess, totals moved, runs completed exactly.  ``protocol``
``pipeline`` or ``rrba`` plays it inside their inner SecAgg+
(:func:`mpc_rr.adversary.active.pipeline_cheat`, :func:`mpc_rr.adversary.active.rrba_cheat`);
``full-mesh`` or ``full-mesh-board`` plays it against the full mesh through a
relay (:func:`mpc_rr.adversary.active.mesh_cheat`; equivocate, isolate and
inconsistent-shares have no analogue there and are refused with the reason);
``prio3``: a leader that isolates a report or fills the batch with made-up ones
(:func:`mpc_rr.adversary.active.prio3_cheat`: isolate, forge-shares).
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["CheatParams"]

Strategy = Literal[
    "key-substitution", "equivocate", "isolate", "replay", "forge-shares", "withhold-shares",
    "different-aggregates", "forged-signature", "key-reuse", "bad-shares", "inconsistent-shares",
    "claim-sender",
]  # fmt: skip


class CheatParams(msgspec.Struct, tag="cheat", tag_field="kind", forbid_unknown_fields=True, kw_only=True):
    # pipeline/rrba: through their inner SecAgg+; full-mesh(-board): through a relay (mesh_cheat)
    protocol: Literal["secagg", "pipeline", "rrba", "full-mesh", "full-mesh-board", "prio3"] = "secagg"
    strategy: Strategy = "key-substitution"
    trials: Annotated[int, Meta(ge=1)] = 5
    broken: bool = False


METRICS: tuple[str, ...] = (
    "detected", "detections", "culprit_named", "honest_blamed", "inputs_recovered", "inputs_total",
    "baseline", "wrong_totals", "completed", "trials", "wall_s",
)  # fmt: skip


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.adversary.active import cheat, mesh_cheat, pipeline_cheat, prio3_cheat, rrba_cheat

    prm: CheatParams = ctx.params
    t0 = time.perf_counter()
    through = {"pipeline": pipeline_cheat, "rrba": rrba_cheat, "prio3": prio3_cheat}.get(prm.protocol)
    if prm.protocol in ("full-mesh", "full-mesh-board"):
        rep = mesh_cheat(prm.protocol, prm.strategy, trials=prm.trials, seed=ctx.seed, broken=prm.broken)
    elif through is not None:
        rep = through(prm.strategy, trials=prm.trials, seed=ctx.seed, broken=prm.broken)
    else:
        rep = cheat(prm.strategy, protocol=prm.protocol, trials=prm.trials, seed=ctx.seed, broken=prm.broken)
    doc: dict[str, Any] = rep.as_json()
    metrics: dict[str, Scalar] = {
        "detected": rep.detected, "detections": rep.detections, "culprit_named": rep.culprit_named,
        "honest_blamed": len(rep.honest_blamed), "inputs_recovered": rep.inputs_recovered,
        "inputs_total": rep.inputs_total, "baseline": rep.baseline, "wrong_totals": rep.wrong_totals,
        "completed": rep.completed, "trials": rep.trials, "wall_s": time.perf_counter() - t0,
    }  # fmt: skip
    return Outcome("ok", metrics, doc)


register(
    Kind(
        name="cheat",
        params=CheatParams,
        run=run,
        metrics=METRICS,
        default_metrics=("detected", "culprit_named", "honest_blamed", "inputs_recovered", "baseline", "completed"),
        data="none",
        summary="an active SecAgg+ server or client cheats: detected, named, learned (mpc-rr attack cheat)",
    )
)
