"""The ``cheat`` scenario kind plays the pipeline's and RRBA's inner SecAgg+ too."""

from __future__ import annotations

import msgspec

from scenarios.experiments.kinds import RunContext, get


def test_the_cheat_kind_plays_a_client_cheat_through_the_pipeline() -> None:
    kind = get("cheat")  # through the registry: importing the kind's module first would reorder it
    prm = msgspec.convert({"kind": "cheat", "protocol": "pipeline", "strategy": "claim-sender", "trials": 1},
                          kind.params)  # fmt: skip
    out = kind.run(RunContext(prm, 5, 0))
    assert out.status == "ok" and out.result["protocol"] == "pipeline"
    assert out.metrics["detected"] and out.metrics["honest_blamed"] == 0 and out.metrics["completed"] == 1
    assert out.result["culprits"] == [3]


def test_the_cheat_kind_plays_a_relay_cheat_against_the_full_mesh_board() -> None:
    kind = get("cheat")
    prm = msgspec.convert({"kind": "cheat", "protocol": "full-mesh-board", "strategy": "replay", "trials": 1},
                          kind.params)  # fmt: skip
    out = kind.run(RunContext(prm, 5, 0))
    assert out.status == "ok" and out.result["protocol"] == "full-mesh-board"
    assert out.metrics["detected"] and out.metrics["culprit_named"] and out.metrics["inputs_recovered"] == 0
    assert out.result["culprits"] == [0]


def test_the_cheat_kind_plays_a_prio3_leader_that_forges_reports() -> None:
    kind = get("cheat")
    prm = msgspec.convert({"kind": "cheat", "protocol": "prio3", "strategy": "forge-shares", "trials": 1},
                          kind.params)  # fmt: skip
    out = kind.run(RunContext(prm, 5, 0))
    assert out.status == "ok" and out.result["protocol"] == "prio3"
    assert out.metrics["detected"] and out.metrics["culprit_named"] and out.metrics["inputs_recovered"] == 0
    assert out.result["culprits"] == [0]
