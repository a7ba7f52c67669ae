"""A cheating Prio3 leader: it learns the target's input from the broken helper, nothing from ours."""

from __future__ import annotations

import json

import pytest

from mpc_rr.adversary.active import prio3_cheat
from mpc_rr.adversary.active._prio3_cheats import PRIO3_CHEATS
from mpc_rr.core import UsageError
from scenarios.cli import main


@pytest.mark.parametrize("strategy", sorted(PRIO3_CHEATS))
def test_a_leader_isolating_a_report_learns_it_only_from_the_broken_helper(strategy: str) -> None:
    broken = prio3_cheat(strategy, broken=True, trials=2, seed=3)
    assert broken.inputs_recovered == 2 and broken.detections == 0  # the attack works, unseen
    assert broken.wrong_totals == 2 * broken.n  # every client took the target's input for the sum
    ours = prio3_cheat(strategy, broken=False, trials=2, seed=3)
    assert ours.inputs_recovered == 0 and ours.detected and ours.wrong_totals == 0
    assert ours.honest_blamed == ()
    # made-up reports carry no client's signature: the helper names the leader; an omission
    # looks like dropouts: refused, nobody named
    assert ours.culprits == ((0,) if strategy == "forge-shares" else ())


def test_prio3_refuses_strategies_it_does_not_play() -> None:
    with pytest.raises(UsageError, match="pinned"):
        prio3_cheat("key-substitution", broken=False)


def test_the_cheat_command_plays_prio3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["attack", "cheat", "--protocol", "prio3", "--strategy", "forge-shares", "--trials", "1",
                 "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["culprits"] == [0] and out["inputs_recovered"] == 0
    assert out["broken_variant"]["inputs_recovered"] == 1 and not out["broken_variant"]["detected"]
    assert main(["attack", "cheat", "--protocol", "prio3", "--strategy", "replay"]) == 2
    assert main(["attack", "cheat", "--strategy", "list", "--json"]) == 0
    rows = {r["strategy"]: r["protocols"] for r in json.loads(capsys.readouterr().out)}
    assert "prio3" in rows["isolate"] and "prio3" in rows["forge-shares"] and "prio3" not in rows["replay"]
