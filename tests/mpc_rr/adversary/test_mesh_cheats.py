"""Key substitution by the relay of the full mesh: it reads every input from the broken variant
(no signature check), and ours refuses the substituted key in every trial, recovering nothing."""

from __future__ import annotations

import json

import pytest

from mpc_rr.adversary import mesh_cheat
from scenarios.cli import main


@pytest.mark.parametrize("protocol", ["full-mesh", "full-mesh-board"])
def test_key_substitution_reads_the_broken_mesh_and_is_caught_by_ours(protocol: str) -> None:
    broken = mesh_cheat(protocol, broken=True, n=6, cells=3, seed=4, trials=3)
    assert broken["inputs_recovered"] == broken["inputs_total"] == 18 and broken["detections"] == 0
    assert broken["wrong_totals"] == 0  # undetectable: every total is right
    ours = mesh_cheat(protocol, broken=False, n=6, cells=3, seed=4, trials=3)
    assert ours["detected"] and ours["detections"] == 3 and ours["inputs_recovered"] == 0
    if protocol == "full-mesh-board":
        assert ours["culprits"] == [0] and ours["culprit_named"]  # the board is named
    else:  # no relay among the parties: the key's apparent sender is named, and a note says so
        assert ours["culprits"] and 0 not in ours["culprits"] and ours["notes"]


def test_the_command_plays_the_mesh_and_refuses_other_strategies(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["attack", "cheat", "--protocol", "full-mesh-board", "--strategy", "key-substitution", "--trials", "2"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["detected"] and out["culprits"] == [0] and out["inputs_recovered"] == 0
    assert out["broken_variant"]["inputs_recovered"] == out["broken_variant"]["inputs_total"] > 0
    assert main(["attack", "cheat", "--protocol", "full-mesh", "--strategy", "equivocate"]) == 2
    assert "key-substitution" in capsys.readouterr().err
