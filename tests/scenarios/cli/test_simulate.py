"""``mpc-rr simulate``: schedules of a protocol, a broken variant found and its seed replayed bit
for bit, bad flags refused, and the same report over the cores as in one process."""

from __future__ import annotations

import json

import pytest

from scenarios import cli

BROKEN = ["simulate", "--protocol", "full-mesh-board", "--broken", "unsigned-keys", "--parties", "5",
          "--byzantine", "1", "--seed", "5", "--schedules", "1"]  # fmt: skip


def test_an_honest_protocol_passes_its_schedules(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--protocol", "plainsum", "--schedules", "30", "--parties", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("plainsum: 30 schedules (seeds 0-29), 4 data parties, 1 byzantine: 0 violating")


def test_a_broken_variant_is_found_and_its_seed_replays_bit_for_bit(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(BROKEN) == 1
    first = capsys.readouterr().out
    assert "seed 5:\n  blamed-honest" in first and "shrunk to 1 fault" in first
    assert "party 0 cheats: key-swap" in first
    assert f"replay: mpc-rr {' '.join([*BROKEN[:1], '--protocol', 'full-mesh-board', '--seed', '5'])}" in first
    assert cli.main(BROKEN) == 1
    assert capsys.readouterr().out == first
    assert cli.main([*BROKEN, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["violating_seeds"] == [5] and report["broken"] == "unsigned-keys"
    assert [f["fault"] for f in report["violations"][0]["shrunk"]["schedule"]["faults"]] == ["cheat"]


def test_a_replay_without_violation_shows_its_schedule(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["simulate", "--protocol", "secagg", "--seed", "3", "--schedules", "1"]) == 0
    out = capsys.readouterr().out
    assert "(seed 3)" in out and "how each party ended:" in out and "party 0:" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--protocol", "secagg", "--broken", "nope"], "secagg has no broken variant 'nope'"),
        (["--protocol", "nope"], "invalid choice: 'nope'"),
        (["--protocol", "plainsum", "--byzantine", "9", "--parties", "3"], "byzantine must be in"),
        (["--protocol", "plainsum", "--schedules", "0"], "--schedules"),
    ],
)
def test_bad_flags_are_refused_before_any_work(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = cli.main(["simulate", *argv])
    except SystemExit as done:
        code = int(done.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_the_cores_give_the_report_one_process_gives() -> None:
    from mpc_rr.simulation import simulate
    from scenarios.simulation import PARALLEL_FROM, simulate_over_cores

    options = {"parties": 4, "byzantine": 1}
    many = simulate_over_cores("full-mesh", PARALLEL_FROM, workers=2, **options)
    one = simulate("full-mesh", PARALLEL_FROM, **options)
    assert many.to_json() == one.to_json()
