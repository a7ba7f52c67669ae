"""``mpc-rr secure-sum``: JSON keys, exit status on exact / aborted runs, usage errors."""

from __future__ import annotations

import json

import pytest

from scenarios.cli import main


@pytest.mark.parametrize("protocol", ["full-mesh", "full-mesh-board", "secagg"])
def test_json_report_is_exact(protocol: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["secure-sum", "--protocol", protocol, "--parties", "12", "--cells", "30", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["exact"] is True
    for key in ("exact", "protocol", "parties", "survivors", "messages", "bytes", "wall_s"):
        assert key in out
    assert out["protocol"] == protocol and out["parties"] == 12 and out["survivors"] == 12
    expected = {"full-mesh": 2 * 12 * 11, "full-mesh-board": 12 * 11 + 24, "secagg": 8 * 12}
    assert out["messages"] == expected[protocol]


def test_dropouts_within_and_beyond_tolerance(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["secure-sum", "--parties", "40", "--cells", "10", "--json", "--drop-step", "masked"]
    assert main([*args, "--dropout", "0.1", "--max-dropout", "0.2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["survivors"] == 36
    assert main([*args, "--dropout", "0.2", "--max-dropout", "0.1"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert not out["exact"] and "8 of 40 parties dropped out" in out["aborted"]


@pytest.mark.parametrize("transport", ["harness", "tcp"])
def test_transports(transport: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["secure-sum", "--parties", "6", "--cells", "8", "--transport", transport, "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["transport"] == transport and out["messages"] == 48


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["secure-sum", "--parties", "1"]) == 2
    assert "--parties must be >= 2" in capsys.readouterr().err
    assert main(["secure-sum", "--parties", "5", "--dropout", "1.5"]) == 2
    assert "--dropout must be in [0, 1)" in capsys.readouterr().err
