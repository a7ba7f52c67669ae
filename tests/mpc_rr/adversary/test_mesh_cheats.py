"""The full mesh against every cheat that applies to it: each succeeds against its broken
variant (inputs recovered or totals moved, undetected) and is caught by our roles, recovering
nothing and moving no total; the strategies with no analogue are refused with the reason.

Who is named, exactly: in board mode the board (a relay strategy) or client 3 alone, proven;
in all-to-all mode a client that signed garbage is proven, and everything that crossed the
hub (a protocol-less relay) only suspected as ``{v, relay}``; never an honest party proven."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mpc_rr.adversary.active import mesh_cheat
from mpc_rr.adversary.active._mesh_cheat_runs import MESH_CHEATS
from mpc_rr.adversary.active._mesh_cheats import MeshRelay, ShareWithholdingRelay, relay_run
from mpc_rr.core import COORDINATOR, UsageError
from mpc_rr.core._errors import RELAY
from mpc_rr.secure_sum import SeededEntropy, simulated_pki
from mpc_rr.secure_sum.full_mesh import FullMeshParty
from scenarios.cli import main

PROTOCOLS = ["full-mesh", "full-mesh-board"]
N, CELLS = 8, 3


def _only_relay_suspected(rep) -> bool:
    """All-to-all against a relay: nobody proven, and every suspect group holds the relay."""
    return rep.culprits == () and rep.suspected and all(RELAY in g for g in rep.suspects)


def _both(protocol: str, strategy: str, trials: int = 1, seed: int = 4) -> tuple:
    kw = {"n": N, "cells": CELLS, "seed": seed, "trials": trials}
    return mesh_cheat(protocol, strategy, broken=True, **kw), mesh_cheat(protocol, strategy, broken=False, **kw)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", ["key-substitution", "replay"])
def test_a_relay_that_shows_other_keys_reads_the_broken_mesh_and_is_caught_by_ours(protocol: str, strategy: str) -> None:
    broken, ours = _both(protocol, strategy)
    assert broken.inputs_recovered == broken.inputs_total == N and broken.detections == 0
    assert broken.wrong_totals == 0 and broken.completed == 1  # undetectable: every total is right
    assert ours.detected and ours.inputs_recovered == 0 and ours.wrong_totals == 0
    assert ours.honest_blamed == ()
    if protocol == "full-mesh-board":
        assert ours.culprits == (COORDINATOR,) and ours.culprit_named and ours.suspects == ()
    else:  # no relay among the parties: {the key's apparent owner, relay}, and a note says so
        assert _only_relay_suspected(ours) and ours.notes


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", ["forge-shares", "bad-shares"])
def test_broken_shares_move_the_lenient_total_and_stop_ours(protocol: str, strategy: str) -> None:
    broken, ours = _both(protocol, strategy)
    assert broken.detections == 0 and broken.wrong_totals >= N - 1  # every honest total moved, silently
    assert ours.detected and ours.wrong_totals == 0 and ours.completed == 0
    assert ours.honest_blamed == ()
    if strategy == "bad-shares":  # it signed its garbage: the cheating client alone, in both modes
        assert ours.culprits == (3,) and all(3 in g for g in ours.suspects)
    elif protocol == "full-mesh-board":  # the path no longer fits, and the board relayed it
        assert ours.culprits == (COORDINATOR,)
    else:
        assert _only_relay_suspected(ours)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", ["forged-signature", "key-reuse", "claim-sender"])
def test_a_client_key_without_its_signature_for_this_run_is_refused_naming_the_client(
    protocol: str, strategy: str
) -> None:
    broken, ours = _both(protocol, strategy)
    assert broken.detections == 0 and broken.completed == 1  # accepted, undetected
    assert ours.detected and ours.wrong_totals == 0 and ours.honest_blamed == ()
    if protocol == "full-mesh":  # the key crossed the hub: 3 forged it or the hub changed it
        assert ours.culprits == () and ours.suspects == ((RELAY, 3),) and ours.suspected
    else:  # the board refuses the key naming 3 and tells everyone, who suspect {board, 3}
        assert ours.culprits == (3,) and ours.culprit_named and ours.suspects == ((COORDINATOR, 3),)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_different_totals_fool_the_trusting_parties_and_the_signed_publications_expose_them(protocol: str) -> None:
    broken, ours = _both(protocol, "different-aggregates")
    assert broken.detections == 0 and broken.wrong_totals == N // 2  # half the parties fooled, silently
    assert ours.detected and ours.wrong_totals == 0 and ours.honest_blamed == ()
    # all-to-all: the changed publication's apparent sender or the hub; board mode: the board
    if protocol == "full-mesh":
        assert ours.culprits == () and ours.suspects == ((RELAY, N),)
    else:
        assert ours.culprits == (COORDINATOR,)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_withheld_shares_stop_the_run_and_move_nothing(protocol: str) -> None:
    _, ours = _both(protocol, "withhold-shares")
    assert ours.detected and ours.wrong_totals == 0 and ours.inputs_recovered == 0 and ours.completed == 0
    assert ours.honest_blamed == ()
    if protocol == "full-mesh":  # silence across the hub: each silent sender, or the hub
        assert _only_relay_suspected(ours)
    else:  # the target knows the board never passed its shares on (and the board blamed it)
        assert ours.culprits == (COORDINATOR,)


def test_an_honest_relay_changes_nothing_and_a_withholding_one_makes_every_party_abort() -> None:
    n, ids = 5, simulated_pki(range(6), SeededEntropy(1, "pki"))
    x = np.random.default_rng(1).integers(0, 2, (n, 2))

    def roles() -> dict:
        return {j: FullMeshParty(j, n, x[j - 1], run="r", identity=ids[j], entropy=SeededEntropy(1, f"p{j}"))
                for j in range(1, n + 1)}  # fmt: skip

    honest = roles()
    relay_run(honest, MeshRelay())
    assert all(np.array_equal(r.result.total, x.sum(axis=0)) for r in honest.values())
    stalled = roles()
    relay_run(stalled, ShareWithholdingRelay(1))
    assert all(r.error is not None for r in stalled.values())
    # the target suspects each silent sender together with the hub, and proves nobody
    assert stalled[1].error.culprits == () and stalled[1].error.suspects == tuple((RELAY, v) for v in range(2, n + 1))


@pytest.mark.parametrize("strategy", ["equivocate", "isolate", "inconsistent-shares"])
def test_strategies_without_an_analogue_are_refused_with_the_reason(strategy: str) -> None:
    with pytest.raises(UsageError, match=r"survivor|neighbour|commits to nothing"):
        mesh_cheat("full-mesh", strategy, broken=False)
    assert strategy not in MESH_CHEATS


def test_the_command_plays_the_mesh_and_refuses_other_strategies(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["attack", "cheat", "--protocol", "full-mesh-board", "--strategy", "replay", "--trials", "1"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["detected"] and out["culprits"] == [0] and out["inputs_recovered"] == 0
    assert out["broken_variant"]["inputs_recovered"] == out["broken_variant"]["inputs_total"] > 0
    assert main(["attack", "cheat", "--protocol", "full-mesh", "--strategy", "key-reuse", "--json", "--trials", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["culprits"] == [] and out["suspects"] == [["relay", 3]] and out["suspected"] and not out["honest_blamed"]
    assert main(["attack", "cheat", "--protocol", "full-mesh", "--strategy", "key-reuse", "--trials", "1"]) == 0
    assert "suspects (at least one of each group cheated): {relay, 3}" in capsys.readouterr().out
    assert main(["attack", "cheat", "--protocol", "full-mesh", "--strategy", "equivocate"]) == 2
    assert "survivor set" in capsys.readouterr().err
    assert main(["attack", "cheat", "--strategy", "list", "--json"]) == 0
    rows = {r["strategy"]: r["protocols"] for r in json.loads(capsys.readouterr().out)}
    assert "full-mesh-board" in rows["forge-shares"] and "full-mesh" not in rows["isolate"]


@pytest.mark.slow
@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", sorted(MESH_CHEATS))
def test_five_trials_per_strategy(protocol: str, strategy: str) -> None:
    broken, ours = _both(protocol, strategy, trials=5, seed=2024)
    assert ours.inputs_recovered == 0 and ours.honest_blamed == ()
    assert ours.detections == 5 and ours.wrong_totals == 0
    assert ours.culprit_named or (protocol == "full-mesh" and ours.suspected)
    if strategy != "withhold-shares":  # withholding: no broken variant, the mesh has nothing to exploit
        assert broken.detections == 0 and (broken.inputs_recovered == broken.inputs_total
                                           or broken.wrong_totals > 0 or broken.completed == 5)  # fmt: skip
