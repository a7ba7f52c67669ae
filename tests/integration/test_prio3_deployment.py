"""A deployment built by ``mpc-rr keys init`` runs prio3 across processes: the helper's key pair
is generated with the certificates, pinned for every party, its private half read by party 1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mpc_rr.secure_sum import expected_total
from parties.protocol_keys import protocol_params
from scenarios.cli import main

PARTY = [sys.executable, "-m", "scenarios.cli", "party"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_keys_init_writes_the_prio3_helper_key_pair(tmp_path: Path, capsys) -> None:
    out = tmp_path / "dep"
    assert main(["keys", "init", "--parties", "3", "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert any("prio3-helper.key" in n and "party 1" in n for n in report["notes"])
    params = protocol_params(out, "prio3")
    secret = Path(params["helper_secret"])
    assert secret == out / "prio3-helper.key" and secret.stat().st_mode & 0o077 == 0
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    sk = X25519PrivateKey.from_private_bytes(secret.read_bytes())
    assert sk.public_key().public_bytes_raw().hex() == params["helper_key"]
    assert protocol_params(out, "secagg") == {}  # a protocol without deployment keys


@pytest.mark.slow  # ~10 s: four fresh interpreters (the default tier runs the forked launcher below)
def test_a_keys_init_deployment_runs_prio3_over_tcp_one_process_per_party(tmp_path: Path) -> None:
    n, cells, seed = 4, 6, 3  # the leader (hub) and 3 clients, party 1 the helper
    dep = tmp_path / "dep"
    assert main(["keys", "init", "--parties", str(n), "--out", str(dep), "--hub", f"127.0.0.1:{_free_port()}"]) == 0
    argv = [*PARTY, "--roster", str(dep / "roster.json"), "--protocol", "prio3", "--seed", str(seed),
            "--params", json.dumps({"cells": cells}), "--step-timeout", "20", "--timeout", "120",
            "--linger", "60"]  # fmt: skip
    procs = [
        subprocess.Popen(
            [*argv, "--id", str(pid), "--out", str(tmp_path / f"r{pid}.json")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for pid in range(n)
    ]
    errs = [p.communicate(timeout=180)[1] for p in procs]
    reports = [json.loads((tmp_path / f"r{pid}.json").read_text()) for pid in range(n)]
    assert all(r["ok"] for r in reports), (reports, errs)
    want = expected_total(n - 1, seed, cells).tolist()
    for r in reports:  # every party holds the exact total; nobody rejected
        assert r["result"]["total"] == want and r["result"]["rejected"] == []


def test_the_local_process_runner_writes_the_same_keys_so_prio3_runs_there_too() -> None:
    """One process per party over TCP + TLS, each reading protocols.json as after keys init."""
    from parties.procs import run_processes

    r = run_processes("prio3", 4, seed=2, params={"cells": 5}, step_timeout=20, timeout=120)
    assert r.ok, r.errors
    assert r.results[0]["total"] == expected_total(3, 2, 5).tolist() and r.results[0]["rejected"] == []


@pytest.mark.slow  # ~10 s: six pipeline processes
def test_a_pipeline_deployment_runs_its_dependence_sum_over_prio3(tmp_path: Path) -> None:
    """An outer protocol's inner sum gets the deployment's keys in its sum_options."""
    from mpc_rr.pipeline import new_coordinator_key
    from parties.procs import run_processes

    key = new_coordinator_key(tmp_path / "coord.key")
    params = {"coordinator_key": key, "signing_key": str(tmp_path / "coord.key"),
              "dependence": "secure-sum", "sum_protocol": "prio3"}  # fmt: skip
    r = run_processes("pipeline", 6, seed=1, params=params, step_timeout=20, timeout=120, linger=60)
    assert r.ok, r.errors
    assert r.results[0]["parties_dependence"] == 5  # every party's pair cells in the prio3 sum
