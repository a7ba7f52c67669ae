"""A command refused mid-way stops the threads it started (tqdm's monitor, the heartbeat of
:class:`~scenarios.cli.progress.Phases`); see also ``no_thread_left_running`` in conftest."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from scenarios.cli import main
from scenarios.cli.progress import Phases, progress_bar
from tests.scenarios.cli.conftest import threads_left


@pytest.mark.parametrize(
    "argv",
    [
        ["rrba", "--t-floor", "0.5"],  # its block bar existed, disabled (no terminal)
        ["run", "{csv}", "--infer-schema", "--ordinal", "nosuch"],  # refused after its phases began
    ],
)
def test_a_refused_command_leaves_no_thread(
    argv: list[str], write_csv: Callable[..., Path], people: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = write_csv(people)
    before = set(threading.enumerate())
    assert main([a.replace("{csv}", str(csv)) for a in argv]) == 2
    assert "error" in capsys.readouterr().err
    assert threads_left(before) == []


def test_a_disabled_bar_starts_no_monitor() -> None:
    before = set(threading.enumerate())
    with progress_bar(total=3, disable=True) as bar:
        bar.update(3)
        assert threads_left(before, grace=0.0) == []


def test_phases_stop_their_heartbeat_when_the_block_raises() -> None:
    before = set(threading.enumerate())
    with pytest.raises(RuntimeError), Phases(enabled=None, heartbeat=0.05) as ph:
        ph.start("loading")
        assert any(t.name == "phases-heartbeat" for t in threading.enumerate())
        raise RuntimeError("refused")
    assert threads_left(before) == []
