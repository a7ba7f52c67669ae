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

from mpc_rr.secure_sum import DEFAULT_SUM
from scenarios.experiments.kinds import Kind, Outcome, RunContext, Scalar, register

__all__ = ["CheatParams"]

Strategy = Literal[
    "key-substitution", "equivocate", "isolate", "replay", "forge-shares", "withhold-shares",
    "different-aggregates", "forged-signature", "key-reuse", "bad-shares", "inconsistent-shares",
    "claim-sender",
]  # fmt: skip


class CheatParams(msgspec.Struct, tag="cheat", tag_field="kind", forbid_unknown_fields=True, kw_only=True):
    # any protocol the adversary module plays cheats against (mpc_rr.adversary.attacked("cheats"))
    protocol: str = DEFAULT_SUM
    strategy: Strategy = "key-substitution"
    trials: Annotated[int, Meta(ge=1)] = 5
    broken: bool = False


METRICS: tuple[str, ...] = (
    "detected", "detections", "culprit_named", "honest_blamed", "inputs_recovered", "inputs_total",
    "baseline", "wrong_totals", "completed", "trials", "wall_s",
)  # fmt: skip


def run(ctx: RunContext) -> Outcome:
    from mpc_rr.adversary import attacks_for

    prm: CheatParams = ctx.params
    t0 = time.perf_counter()
    play = attacks_for(prm.protocol).cheats
    assert play is not None  # check() refused the point
    rep = play(prm.protocol, prm.strategy, trials=prm.trials, seed=ctx.seed, broken=prm.broken)
    doc: dict[str, Any] = rep.as_json()
    metrics: dict[str, Scalar] = {
        "detected": rep.detected, "detections": rep.detections, "culprit_named": rep.culprit_named,
        "honest_blamed": len(rep.honest_blamed), "inputs_recovered": rep.inputs_recovered,
        "inputs_total": rep.inputs_total, "baseline": rep.baseline, "wrong_totals": rep.wrong_totals,
        "completed": rep.completed, "trials": rep.trials, "wall_s": time.perf_counter() - t0,
    }  # fmt: skip
    return Outcome("ok", metrics, doc)


def _cheated() -> tuple[str, ...]:
    from mpc_rr.adversary import attacked

    return attacked("cheats")


register(
    Kind(
        name="cheat",
        params=CheatParams,
        run=run,
        metrics=METRICS,
        default_metrics=("detected", "culprit_named", "honest_blamed", "inputs_recovered", "baseline", "completed"),
        data="none",
        summary="an active server, relay, leader or client cheats: detected, named, learned (mpc-rr attack cheat)",
        choices={"protocol": _cheated},
    )
)
