"""Every SecAgg+ cheat through the pipeline's secure-sum dependence and RRBA's secure tally: it
succeeds against the broken variant, and the outer workflow's parties catch and name the cheater."""

from __future__ import annotations

import json

import pytest

from mpc_rr.adversary.active import cheat_strategies, pipeline_cheat, rrba_cheat
from mpc_rr.core import UsageError, protocol_names
from scenarios.cli import main

SERVER = [s for s, side in cheat_strategies().items() if side == "server"]
CLIENT = [s for s, side in cheat_strategies().items() if side == "client"]
PLAY = {"pipeline": pipeline_cheat, "rrba": rrba_cheat}
EVERY_INPUT = {"key-substitution", "replay", "forge-shares"}  # the others target one party (and its partners)
HONEST_BLAMED = {"forged-signature", "key-reuse", "bad-shares", "claim-sender"}  # the broken variant's harm


@pytest.mark.parametrize("outer", PLAY)
@pytest.mark.parametrize("strategy", SERVER)
def test_a_cheating_inner_server_learns_from_the_broken_variant_and_is_named_by_ours(
    outer: str, strategy: str
) -> None:
    broken = PLAY[outer](strategy, broken=True, trials=1, seed=3)
    assert not broken.detected and broken.detections == 0
    if strategy == "different-aggregates":  # half the parties' totals moved, unattributably
        assert broken.wrong_totals > 0 and broken.inputs_recovered == 0
    elif strategy in EVERY_INPUT:
        assert broken.inputs_recovered == broken.inputs_total == broken.n
    else:  # the target's input exactly (checked against what it sent), where a guess is a guess
        assert broken.inputs_recovered >= 1
    ours = PLAY[outer](strategy, broken=False, trials=1, seed=3)
    assert ours.detected and ours.culprits == (0,) and ours.honest_blamed == ()
    assert ours.inputs_recovered == 0 and ours.protocol == outer and ours.side == "server"
    by_whom = " ".join(ours.notes)
    assert "named by 0 to 0" not in by_whom or "signed receipts that disagree" in by_whom
    assert "secagg-cheat" not in protocol_names()  # registered for the run only


@pytest.mark.parametrize("outer", PLAY)
@pytest.mark.parametrize("strategy", CLIENT)
def test_a_cheating_inner_client_is_named_and_the_outer_run_goes_on_without_it(outer: str, strategy: str) -> None:
    broken = PLAY[outer](strategy, broken=True, trials=1, seed=5)
    assert not broken.detected and 3 not in broken.culprits
    if strategy in HONEST_BLAMED:  # the honest parties and the aggregator blamed, the sum stopped
        assert 0 in broken.honest_blamed and {1, 2, 4} <= set(broken.honest_blamed) and broken.completed == 0
    else:  # inconsistent-shares: a total no input gives, accepted by every honest party
        assert broken.wrong_totals == broken.n // (1 if outer == "pipeline" else 2) - 1
    ours = PLAY[outer](strategy, broken=False, trials=1, seed=5)
    assert ours.detected and ours.culprits == (3,) and ours.honest_blamed == () and ours.wrong_totals == 0
    assert any("ids [0]" in note for note in ours.notes)  # the aggregator holds the evidence and names it
    assert ours.completed == 1  # excluded (inconsistent-shares: by a retry): every inner sum exact over the rest


def test_isolation_needs_a_sparse_graph_and_unknown_strategies_are_refused() -> None:
    with pytest.raises(UsageError, match="isolate needs n >= 40"):
        pipeline_cheat("isolate", broken=False, n=20)
    with pytest.raises(UsageError, match="unknown strategy 'sybil'; the strategies are: key-substitution"):
        rrba_cheat("sybil", broken=False)
    with pytest.raises(UsageError, match="trials must be >= 1"):
        pipeline_cheat("replay", broken=False, trials=0)


def test_the_command_lists_every_strategy_with_the_protocols_that_play_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["attack", "cheat", "--strategy", "list", "--json"]) == 0
    rows = {r["strategy"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == set(cheat_strategies())
    assert all({"secagg", "pipeline", "rrba"} <= set(r["protocols"]) for r in rows.values())
    assert rows["isolate"]["side"] == "server" and rows["claim-sender"]["side"] == "client"
    assert main(["attack", "cheat", "--protocol", "pipeline", "--strategy", "claim-sender", "--trials", "1",
                 "--json"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["protocol"] == "pipeline" and out["detected"] and out["culprits"] == [3]
    assert out["broken_variant"]["honest_blamed"] and not out["broken_variant"]["detected"]


@pytest.mark.slow
@pytest.mark.parametrize("outer", PLAY)
@pytest.mark.parametrize("strategy", SERVER + CLIENT)
def test_detection_is_total_over_seeded_trials_through_the_outer_workflows(outer: str, strategy: str) -> None:
    rep = PLAY[outer](strategy, broken=False, trials=5, seed=2024)
    assert rep.detections == 5 and rep.inputs_recovered == 0 and rep.honest_blamed == ()
