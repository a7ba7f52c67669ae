"""Runners over memory, TCP in one process and TCP across OS processes; the CLI commands."""

from __future__ import annotations

import json
import ssl

import numpy as np
import pytest

from mpc_rr.secure_sum.plainsum import expected_total, make_role
from parties.procs import run_processes
from parties.runner import run_memory_sync
from parties.tcp_runner import run_tcp_sync
from scenarios.cli import main
from transports.pki import Roster, cert_party_id, fingerprint


def roles(n: int, seed: int) -> dict:
    return {i: make_role(i, n, seed, {"cells": 3, "run": "t"}) for i in range(n)}


def test_same_seed_same_results_and_transcript_over_memory_tcp_and_processes(tmp_path) -> None:
    n, seed = 5, 21
    mem = run_memory_sync(roles(n, seed), transcript=True)
    tcp = run_tcp_sync(roles(n, seed), transcript=True)
    procs = run_processes(
        "plainsum", n, seed=seed, params={"cells": 3, "run": "t"}, transcript=True,
        workdir=tmp_path, timeout=60,
    )  # fmt: skip
    assert mem.ok and tcp.ok and procs.ok, (mem.errors, tcp.errors, procs.errors)
    want = expected_total(n - 1, seed, 3)
    for res in (mem.results(), tcp.results()):
        assert all(np.array_equal(r.total, want) for r in res.values())
    assert all(r["total"] == want.tolist() for r in procs.results.values())
    assert mem.links() == tcp.links() == procs.links()
    assert len(mem.links()) == 2 * (n - 1)
    for key in ("messages", "bytes", "rounds"):
        assert mem.costs.to_json()[key] == tcp.costs.to_json()[key] == procs.costs.to_json()[key]
    other = run_memory_sync(roles(n, seed + 1), transcript=True)
    assert other.links() != mem.links()  # the comparison can fail


@pytest.mark.parametrize("transport", ["memory", "tcp"])
def test_ping_cli_json(transport: str, capsys) -> None:
    assert main(["ping", "--transport", transport, "--parties", "7", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ok"] is True and rep["parties"] == 8 and rep["messages"] == 14
    assert rep["bytes"] > 0 and rep["wall_s"] > 0 and rep["transport"] == transport


def test_ping_cli_text(capsys) -> None:
    assert main(["ping", "--parties", "3"]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "6 messages" in out and "PlainSumHub" in out


def test_keys_init_writes_ca_certs_and_roster(tmp_path, capsys) -> None:
    out = tmp_path / "dep"
    argv = ["keys", "init", "--parties", "4", "--out", str(out), "--hub", "10.0.0.1:7400"]
    assert main(argv) == 0
    roster = Roster.load(out / "roster.json")
    assert sorted(roster.ids) == [0, 1, 2, 3]
    assert (roster.parties[0].host, roster.parties[0].port) == ("10.0.0.1", 7400)
    for pid in roster.ids:
        der = ssl.PEM_cert_to_DER_cert((out / f"party-{pid}.pem").read_text())
        assert cert_party_id(der) == pid
        assert fingerprint(der) == roster.parties[pid].fingerprint
    assert (out / "party-1.key").stat().st_mode & 0o077 == 0


def test_bad_roster_is_a_usage_error(tmp_path, capsys) -> None:
    bad = tmp_path / "roster.json"
    bad.write_text('{"version": 9, "parties": []}')
    assert main(["party", "--roster", str(bad), "--id", "1"]) == 2
    assert "version 9, expected 1" in capsys.readouterr().err
