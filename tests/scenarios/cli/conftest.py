"""Fixtures of the command-line tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from scenarios import cli


@pytest.fixture
def audit_and_attack_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parser holds only ``audit`` and ``attack`` (the other subcommands are not built)."""
    monkeypatch.setattr(cli, "COMMANDS", ("audit", "attack"))


@pytest.fixture
def cli_json(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], Any]:
    """``cli_json(argv)``: runs ``mpc-rr argv``, which must exit with 0; its JSON output."""

    def run(argv: list[str]) -> Any:
        assert cli.main(argv) == 0
        return json.loads(capsys.readouterr().out)

    return run
