"""A hostile hub process over TCP + TLS, one process per party: the honest parties name it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from transports.pki import generate_deployment

PARTY = [sys.executable, "-m", "scenarios.cli", "party"]
HUB = [sys.executable, "-m", "scenarios.workloads.hostile_hub"]


def _deploy(tmp_path: Path, n: int, strategy: str) -> tuple[list[dict], dict]:
    roster = generate_deployment(n + 1, tmp_path / "keys", hub_port=0)  # the hub and n parties
    port_file = tmp_path / "port"
    params = json.dumps({"cells": 4})
    hub = subprocess.Popen([*HUB, "--roster", str(tmp_path / "keys" / "roster.json"), "--strategy", strategy,
                            "--port", "0", "--port-file", str(port_file), "--params", params, "--step-timeout", "3",
                            "--linger", "30"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    clients = []
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        live = roster.with_hub_address("127.0.0.1", int(port_file.read_text())).save(tmp_path / "keys" / "live.json")
        for i in range(1, n + 1):
            clients.append(subprocess.Popen(
                [*PARTY, "--roster", str(live), "--id", str(i), "--protocol", "secagg", "--params", params,
                 "--step-timeout", "10", "--out", str(tmp_path / f"r{i}.json")],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))  # fmt: skip
        codes = [c.wait(timeout=240) for c in clients]
        out, _ = hub.communicate(timeout=120)
    finally:
        for proc in (hub, *clients):
            if proc.poll() is None:
                proc.kill()
    reports = [json.loads((tmp_path / f"r{i}.json").read_text()) | {"exit": codes[i - 1]} for i in range(1, n + 1)]
    return reports, json.loads(out.strip().splitlines()[-1])


def _caught(strategy: str, tmp_path: Path, n: int) -> None:
    reports, hub = _deploy(tmp_path, n, strategy)
    named = [r for r in reports if r["exit"] == 1 and not r["ok"] and r["culprits"] == [0]]
    assert len(named) >= 1, reports  # someone caught it, with its JSON report and exit 1
    assert all(set(r["culprits"]) <= {0} for r in reports)  # and no honest party is ever named
    assert hub["learned"] == 0


def test_a_key_substituting_hub_is_named_by_every_honest_party(tmp_path: Path) -> None:
    reports, hub = _deploy(tmp_path, 3, "key-substitution")
    assert all(r["exit"] == 1 and r["culprits"] == [0] and "signature" in r["error"] for r in reports), reports
    assert hub["learned"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("strategy", ["equivocate", "forge-shares", "withhold-shares"])
def test_more_cheating_hubs_over_tcp(strategy: str, tmp_path: Path) -> None:
    _caught(strategy, tmp_path, 6)
