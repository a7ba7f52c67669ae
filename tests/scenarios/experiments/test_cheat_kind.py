"""The ``cheat`` scenario kind plays the pipeline's and RRBA's inner SecAgg+ too."""

from __future__ import annotations

import msgspec
import pytest

from scenarios.experiments.kinds import RunContext, get


def test_the_cheat_kind_plays_a_client_cheat_through_the_pipeline() -> None:
    kind = get("cheat")  # through the registry: importing the kind's module first would reorder it
    prm = msgspec.convert({"kind": "cheat", "protocol": "pipeline", "strategy": "claim-sender", "trials": 1},
                          kind.params)  # fmt: skip
    out = kind.run(RunContext(prm, 5, 0))
    assert out.status == "ok" and out.result["protocol"] == "pipeline"
    assert out.metrics["detected"] and out.metrics["honest_blamed"] == 0 and out.metrics["completed"] == 1
    assert out.result["culprits"] == [3]


@pytest.mark.parametrize(("protocol", "strategy"), [("full-mesh-board", "replay"), ("prio3", "forge-shares")])
def test_the_cheat_kind_plays_a_cheating_relay_or_leader(protocol: str, strategy: str) -> None:
    """The full mesh's board replaying keys; a prio3 leader filling the batch with made-up reports."""
    kind = get("cheat")
    prm = msgspec.convert({"kind": "cheat", "protocol": protocol, "strategy": strategy, "trials": 1}, kind.params)
    out = kind.run(RunContext(prm, 5, 0))
    assert out.status == "ok" and out.result["protocol"] == protocol
    assert out.metrics["detected"] and out.metrics["culprit_named"] and out.metrics["inputs_recovered"] == 0
    assert out.result["culprits"] == [0]
