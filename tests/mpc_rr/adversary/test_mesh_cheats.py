"""The full mesh against every cheat that applies to it: each succeeds against its broken
variant (inputs recovered or totals moved, undetected) and is caught by our roles, recovering
nothing and moving no total; the strategies with no analogue are refused with the reason; the
gap in attribution (a forged share blamed on its apparent sender) is pinned as it is."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mpc_rr.adversary import MESH_CHEATS, mesh_cheat
from mpc_rr.adversary._mesh_cheats import MeshRelay, ShareWithholdingRelay, relay_run
from mpc_rr.core import COORDINATOR, UsageError
from mpc_rr.secure_sum import SeededEntropy, simulated_pki
from mpc_rr.secure_sum.full_mesh import FullMeshParty
from scenarios.cli import main

PROTOCOLS = ["full-mesh", "full-mesh-board"]
N, CELLS = 8, 3


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
    if protocol == "full-mesh-board":
        assert ours.culprits == (COORDINATOR,) and ours.culprit_named and not ours.honest_blamed
    else:  # no relay among the parties: the key's apparent sender is named, and a note says so
        assert ours.culprits and COORDINATOR not in ours.culprits and ours.notes


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", ["forge-shares", "bad-shares"])
def test_broken_shares_move_the_lenient_total_and_stop_ours(protocol: str, strategy: str) -> None:
    broken, ours = _both(protocol, strategy)
    assert broken.detections == 0 and broken.wrong_totals >= N - 1  # every honest total moved, silently
    assert ours.detected and ours.wrong_totals == 0 and ours.completed == 0
    if strategy == "bad-shares" and protocol == "full-mesh":
        assert ours.culprits == (3,) and not ours.honest_blamed  # the cheating client, alone
    if strategy == "forge-shares":  # unattributable: the share is not signed by its sender
        assert ours.honest_blamed and any("not signed by its sender" in n for n in ours.notes)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("strategy", ["forged-signature", "key-reuse", "claim-sender"])
def test_a_client_key_without_its_signature_for_this_run_is_refused_naming_the_client(
    protocol: str, strategy: str
) -> None:
    broken, ours = _both(protocol, strategy)
    assert broken.detections == 0 and broken.completed == 1  # accepted, undetected
    assert ours.detected and 3 in ours.culprits and ours.culprit_named and ours.wrong_totals == 0
    if protocol == "full-mesh":
        assert not ours.honest_blamed
    else:  # the board refuses the key naming 3; the parties, told nothing, time out on the board
        assert ours.honest_blamed == (COORDINATOR,)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_different_totals_fool_the_trusting_parties_and_the_signed_publications_expose_them(protocol: str) -> None:
    broken, ours = _both(protocol, "different-aggregates")
    assert broken.detections == 0 and broken.wrong_totals == N // 2  # half the parties fooled, silently
    assert ours.detected and ours.wrong_totals == 0
    # all-to-all: the changed publication's apparent sender; board mode: the board
    assert ours.culprits == ((N,) if protocol == "full-mesh" else (COORDINATOR,))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_withheld_shares_stop_the_run_and_move_nothing(protocol: str) -> None:
    _, ours = _both(protocol, "withhold-shares")
    assert ours.detected and ours.wrong_totals == 0 and ours.inputs_recovered == 0 and ours.completed == 0


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
    assert set(stalled[1].error.culprits) == set(range(2, n + 1))  # the target names the silent senders


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
    assert ours.inputs_recovered == 0
    assert ours.detections == 5 and ours.wrong_totals == 0
    if strategy != "withhold-shares":  # withholding: no broken variant, the mesh has nothing to exploit
        assert broken.detections == 0 and (broken.inputs_recovered == broken.inputs_total
                                           or broken.wrong_totals > 0 or broken.completed == 5)  # fmt: skip
