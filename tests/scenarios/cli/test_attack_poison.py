"""``mpc-rr attack poison``: the JSON names the rejected clients, the shift and the bound."""

from __future__ import annotations

import json

import pytest

from scenarios import cli


def test_attack_poison_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["attack", "poison", "--protocol", "prio3", "--parties", "8", "--cells", "4",
            "--malicious", "1", "--strategy", "out-of-range", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["rejected"] == {"count": 1, "ids": [8]} and "target_shift" in out and out["bound"] == 1
    )
