"""Fixtures of the command-line tests; every module of them checks that the commands it ran
in-process left no thread running."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
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


def threads_left(before: set[threading.Thread], grace: float = 2.0) -> list[str]:
    """Names of threads started since ``before`` still alive after up to ``grace`` seconds (a
    stopped thread needs a moment to return)."""
    deadline = time.monotonic() + grace
    while True:
        left = [t.name for t in threading.enumerate() if t not in before]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.02)


@pytest.fixture(autouse=True, scope="module")
def no_thread_left_running() -> Iterator[None]:
    """The commands a test module runs in-process leave no thread behind, daemon or not: one
    alive when a worker forks shard processes makes the child unsafe (a held lock is copied
    locked), and in a notebook they pile up.  Fails the module's last test otherwise."""
    before = set(threading.enumerate())
    yield
    left = threads_left(before)
    assert not left, f"threads left running by this module's commands: {left}"
