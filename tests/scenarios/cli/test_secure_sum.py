"""``mpc-rr secure-sum``: JSON keys, exit status on exact / aborted runs, usage errors, sharded
over workers."""

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
    # full mesh: keys + shares + publications (3n(n-1)); with the board 2n + 2n(n-1) (each share
    # through the board) + 2n; SecAgg+: 6 rounds each way (keys, the draw, shares, masked input, consistency,
    # unmasking)
    expected = {"full-mesh": 3 * 12 * 11, "full-mesh-board": 2 * 12 * 11 + 48, "secagg": 12 * 12}
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
    assert out["exact"] and out["transport"] == transport and out["messages"] == 72  # 6 rounds each way


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse refuses a bad flag with status 2
        return int(exc.code or 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--parties", "1"], "argument --parties: must be an integer >= 2, got 1"),
        (["--parties", "5", "--dropout", "1.5"], "argument --dropout: must be in [0, 1), got 1.5"),
        (["--parties", "5", "--failure", "5"], "argument --failure: must be in (0, 1), got 5.0"),
        (["--parties", "50", "--degree", "100000"], "--degree must be at most --parties - 1 = 49"),
        (["--parties", "5", "--protocol", "full-mesh", "--max-dropout", "0.1"],
         "--max-dropout only apply to --protocol secagg"),
        (["--parties", "100", "--cells", "1000000000"], "needs about"),
        (["--parties", "3000", "--protocol", "full-mesh"], "Use fewer parties or cells, or --protocol secagg"),  # SecAgg+ counts its consistency round
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_any_work(argv, message, capsys) -> None:
    import time

    t0 = time.perf_counter()
    assert _exit_code(["secure-sum", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert time.perf_counter() - t0 < 5  # refused up front, not after allocating or running


def test_the_memory_refusal_states_the_estimate(capsys) -> None:
    assert _exit_code(["secure-sum", "--parties", "100", "--cells", "1000000000"]) == 2
    err = capsys.readouterr().err
    assert "GiB" in err and "messages" in err


def test_secure_sum_command_shards(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["secure-sum", "--parties", "30", "--cells", "5", "--workers", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["cost"]["workers"] == 2 and "2 shards" in out["transport"]


def test_dropouts_after_the_input_agree_between_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    """Parties that leave after sending their input are in the sum and listed as dropped; the cost
    report counts messages to a party that had left, under its own name."""
    args = ["secure-sum", "--parties", "40", "--cells", "10", "--dropout", "0.1", "--workers", "2"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["inputs_in_sum"] == 40 and out["dropped_count"] == len(out["dropped"]) == 4
    assert out["survivors"] == 36  # the parties that did not drop out; the 4 left after their input
    assert "dropped" not in out["cost"] and out["cost"]["messages_undelivered"] >= 0
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "40 of 40 inputs in the sum (4 parties dropped out at the last step: after sending their inputs)" in text
