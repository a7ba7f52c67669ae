"""The cheats over a real deployment: one process per party over TCP + mutual TLS, the cheater a
hostile hub or party process (scenarios/workloads/hostile_hub.py) among ordinary `mpc-rr party`
processes; each honest party ends with its JSON report naming the cheater, and no honest party
is named.  Who names whom is what the one-process harness expects (`mpc_rr.adversary.active.cheat`,
docs/adversary.md): the server strategies stop every honest party (exit 1), every one of them
naming the hub with evidence (withhold-shares: its target; the others are left waiting on the hub
or told it aborted); different-aggregates is caught by two receipts the hub signed for different
totals; a client strategy is named by the aggregator, which leaves the cheater out and completes
the exact sum of the others (inconsistent-shares: after a retry with verifiable shares proves it,
the run retries once more without it)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.adversary.active import CLIENT_STRATEGIES, SERVER_STRATEGIES
from mpc_rr.secure_sum import party_input
from scenarios.workloads.hostile_hub import DeployedCheat, deploy_cheat

SLOW = 6.0  # the slow tier's step deadline (s): generous under load; where a cheat stalls someone, it waits it out
TARGET = 1  # CheatingServer's default target (equivocate, isolate, withhold-shares)
_EXCLUDED = ("forged-signature", "key-reuse", "bad-shares", "claim-sender")  # left out in the run itself


def _reported(d: DeployedCheat) -> dict[int, dict]:
    """Every honest process wrote its JSON report (none crashed or hung)."""
    assert set(d.honest) == set(d.exit_codes) - {d.cheater}, (d.exit_codes, sorted(d.reports))
    return d.honest


def _server_caught(d: DeployedCheat) -> None:
    honest = _reported(d)
    assert d.learned == 0
    assert all(set(r["culprits"]) <= {0} for r in honest.values()), honest  # no honest party named
    if d.strategy == "different-aggregates":  # nobody inside the run can tell; two signed receipts do
        assert all(r["exit"] == 0 for r in honest.values())
        assert d.receipts >= 2 and d.as_json()["culprits"] == [0]
        return
    assert all(r["exit"] == 1 and not r["ok"] for r in honest.values()), honest
    evidence = {i for i, r in honest.items() if r["culprits"] == [0] and "timed out" not in r["error"]}
    expected = {TARGET} if d.strategy in ("withhold-shares", "isolate") else set(honest)
    assert expected <= evidence, (expected, honest)


def _client_caught(d: DeployedCheat, cells: int = 4) -> None:
    honest = _reported(d)
    hub = honest[0]
    clients = {i: r for i, r in honest.items() if i != 0}
    assert hub["culprits"] == [d.cheater], hub  # the aggregator names the cheater alone
    assert all(r["culprits"] == [] for r in clients.values()), clients
    assert all(r["exit"] == 0 for r in honest.values()), honest
    if d.strategy == "inconsistent-shares" and d.protocol == "secagg":  # proven, then left out of a retry
        assert all(r["receipt"]["run"].endswith("/retry-2") for r in clients.values())
    if d.protocol == "pipeline":  # its dependence sum went on without the cheater
        assert hub["result"]["parties_dependence"] == len(clients)
    if d.protocol != "secagg":
        return
    included = hub["result"]["included"]
    assert d.cheater not in included
    want = sum(party_input(i, 1, cells) for i in included)  # the deployment's seed-1 inputs
    for r in clients.values():
        np.testing.assert_array_equal(r["result"]["total"], want)


def test_a_key_substituting_hub_is_named_by_every_honest_party(tmp_path: Path) -> None:
    d = deploy_cheat("secagg", "key-substitution", n=3, workdir=tmp_path)
    _server_caught(d)
    assert all("signature" in r["error"] for r in d.honest.values())


def test_a_client_with_inconsistent_shares_is_named_by_the_aggregator(tmp_path: Path) -> None:
    _client_caught(deploy_cheat("secagg", "inconsistent-shares", workdir=tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", [s for s in SERVER_STRATEGIES if s != "key-substitution"])
def test_every_cheating_hub_over_tcp(strategy: str, tmp_path: Path) -> None:
    _server_caught(deploy_cheat("secagg", strategy, workdir=tmp_path, step_timeout=SLOW))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", [s for s in CLIENT_STRATEGIES if s != "inconsistent-shares"])
def test_every_cheating_party_process_over_tcp(strategy: str, tmp_path: Path) -> None:
    assert strategy in _EXCLUDED
    _client_caught(deploy_cheat("secagg", strategy, workdir=tmp_path, step_timeout=SLOW))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["key-substitution", "equivocate", "forge-shares"])
def test_a_cheating_hub_in_a_pipeline_deployment(strategy: str, tmp_path: Path) -> None:
    """The pipeline's secure-sum dependence: every data party's dependence phase fails naming
    the hub, so the whole pipeline stops (exit 1) with nothing learned."""
    d = deploy_cheat("pipeline", strategy, workdir=tmp_path, step_timeout=SLOW)
    _server_caught(d)
    assert all("dependence phase failed" in r["error"] for r in d.honest.values())


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["bad-shares", "inconsistent-shares"])
@pytest.mark.parametrize("protocol", ["pipeline", "rrba"])
def test_a_cheating_party_process_in_a_pipeline_or_rrba_deployment(protocol: str, strategy: str, tmp_path: Path) -> None:
    """Its bad (or inconsistent: then through the inner sum's retries) shares in the inner
    SecAgg+: the coordinator (aggregator) names it and goes on."""
    _client_caught(deploy_cheat(protocol, strategy, workdir=tmp_path, step_timeout=SLOW))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["key-substitution", "equivocate"])
def test_a_cheating_hub_in_an_rrba_deployment(strategy: str, tmp_path: Path) -> None:
    """RRBA's secure tally: each client's block tally fails naming the aggregator; RRBA goes on
    without the block, but a client that caught the hub cheating does not call that a clean run
    (cause "cheated", exit 1): its report names the hub and says why the tally failed; nothing
    is learned."""
    d = deploy_cheat("rrba", strategy, workdir=tmp_path, step_timeout=SLOW)
    assert d.learned == 0
    for r in d.honest.values():
        assert r["exit"] == 1 and r["cause"] == "cheated" and r["culprits"] == [0], r
        assert r["result"]["tally"].startswith("secure sum failed") and "aggregator" in r["result"]["tally"]


def test_attack_cheat_over_tcp_refuses_what_it_cannot_deploy(capsys: pytest.CaptureFixture[str]) -> None:
    from scenarios.cli import main

    assert main(["attack", "cheat", "--strategy", "equivocate", "--transport", "tcp", "--broken"]) == 2
    assert "broken variants" in capsys.readouterr().err
    assert main(["attack", "cheat", "--protocol", "full-mesh-board", "--strategy", "replay", "--transport", "tcp"]) == 2
    assert "hub plays key-substitution, forge-shares, withhold-shares, different-aggregates, not replay" in (
        capsys.readouterr().err
    )


@pytest.mark.slow
def test_attack_cheat_over_tcp_reports_each_deployment(capsys: pytest.CaptureFixture[str]) -> None:
    from scenarios.cli import main

    assert main(["attack", "cheat", "--strategy", "claim-sender", "--transport", "tcp", "--trials", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["transport"] == "tcp+tls" and out["detected"] and out["culprits"] == [3] and not out["honest_blamed"]
    (run,) = out["runs"]
    assert run["named_by"] == [0] and run["exit_codes"]["3"] == 1 and run["exit_codes"]["1"] == 0


def test_the_all_to_all_full_mesh_deploys_with_a_hub_that_only_relays() -> None:
    from parties.procs import run_processes

    r = run_processes("full-mesh", 4, seed=1, params={"cells": 4}, step_timeout=10, timeout=60, linger=30)
    assert r.ok, r.errors
    assert r.results[0] is None  # the hub has no role: it relays
    want = sum(party_input(i, 1, 4) for i in (1, 2, 3)) % 4  # modulus n + 1
    assert all(r.results[i]["total"] == want.tolist() for i in (1, 2, 3))


def _mesh_as_the_harness_expects(d: DeployedCheat) -> None:
    """What the one-process harness (`mesh_cheat`, same n, cells and seed) says of this strategy:
    whom it proves (the board; in all-to-all nobody: what crossed the hub is only suspected), that
    it proves no honest party, and that every suspicion includes the cheater ("v or the relay")."""
    from mpc_rr.adversary.active import mesh_cheat

    want = mesh_cheat(d.protocol, d.strategy, broken=False, n=5, cells=4, trials=1, seed=1).as_json()
    assert want["detected"] and not want["honest_blamed"]
    assert all(d.token in g for g in want.get("suspects", []))
    honest = _reported(d)
    assert {c for r in honest.values() for c in r["culprits"]} == set(want["culprits"]), honest
    assert d.learned == 0
    for r in honest.values():
        suspects = r.get("suspects", [])
        if r["exit"] == 0:  # different-aggregates: shown the true total, nothing to suspect
            assert d.strategy == "different-aggregates" and not r["culprits"] and not suspects, r
            continue
        assert r["exit"] == 1 and (r["culprits"] == [0] or suspects), r
        assert all(d.token in g for g in suspects), r  # every suspicion includes the cheater
    assert d.as_json()["detected"]


def test_a_key_substituting_board_process_is_named_by_every_party(tmp_path: Path) -> None:
    d = deploy_cheat("full-mesh-board", "key-substitution", workdir=tmp_path)
    _mesh_as_the_harness_expects(d)
    assert all(r["exit"] == 1 and r["culprits"] == [0] for r in d.honest.values())


@pytest.mark.slow
def test_a_board_process_showing_different_totals_is_named_by_the_parties_it_fooled(tmp_path: Path) -> None:
    d = deploy_cheat("full-mesh-board", "different-aggregates", workdir=tmp_path, step_timeout=SLOW)
    _mesh_as_the_harness_expects(d)
    assert [i for i, r in d.honest.items() if r["culprits"] == [0]] == [1, 2]  # the half shown total + 1


MESH_RELAYS = ("key-substitution", "forge-shares", "withhold-shares", "different-aggregates")


def test_a_key_substituting_hub_in_an_all_to_all_deployment_is_suspected_by_every_party(tmp_path: Path) -> None:
    """All-to-all: the hub is no party of the run, so a receiver can only suspect "v or the relay"."""
    d = deploy_cheat("full-mesh", "key-substitution", workdir=tmp_path)
    _mesh_as_the_harness_expects(d)
    assert all(r["exit"] == 1 and r["suspects"] and not r["culprits"] for r in d.honest.values())


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["full-mesh", "full-mesh-board"])
@pytest.mark.parametrize("strategy", MESH_RELAYS)
def test_a_cheating_full_mesh_hub_or_board_over_tcp(protocol: str, strategy: str, tmp_path: Path) -> None:
    _mesh_as_the_harness_expects(deploy_cheat(protocol, strategy, workdir=tmp_path, step_timeout=SLOW))
