"""`mpc-rr ping`, `keys init` and `party`: JSON and text reports, deployment keys and
certificates, a bad roster, a hub process that dies."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import textwrap

import pytest

from scenarios.cli import main
from transports.pki import Roster, cert_party_id, fingerprint


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


def test_ping_reports_a_dead_hub_as_a_transport_error_not_a_bug() -> None:
    code = """
        import sys
        import parties.procs as procs
        real = procs.run_with_hub_process
        procs.run_with_hub_process = lambda *a, **k: real(*a, **{**k, "python": "/bin/false"})
        from scenarios.cli import main
        sys.exit(main(["ping", "--transport", "tcp", "--hub-process", "--parties", "3"]))
    """
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1, out.stderr[-2000:]
    assert "mpc-rr ping: transport error: run_with_hub_process: the hub's process exited" in out.stderr
    assert "internal error" not in out.stderr
