"""What long commands print besides results: progress that covers every phase, warnings on
standard error whatever the format, and TCP wire bytes next to payload bytes."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from scenarios.cli import main
from scenarios.cli.commands.ping import ping
from scenarios.cli.progress import Phases


def test_phases_close_each_bar_when_complete_and_time_the_gaps() -> None:
    f = io.StringIO()
    ph = Phases(f, enabled=True)
    ph.start("loading")
    for i in range(1, 301):
        ph.count("A", i, 300, desc="phase A", unit="party")
    ph.start("between")  # the silent work between two counted phases gets its own line
    ph.count("B", 10, 20, desc="phase B", unit="party")
    ph.count("A", 300, 300, desc="phase A", unit="party")  # a late report of a closed phase
    ph.count("B", 20, 20, desc="phase B", unit="party")
    ph.close()
    out = f.getvalue()
    assert re.search(r"^loading \.\.\. done in \d+\.\d s\n", out)
    assert "between ... done in" in out
    assert out.index("between ...") < out.index("phase B")
    a_final = [ln for ln in out.replace("\r", "\n").split("\n") if ln.startswith("phase A: 100%")]
    assert a_final and all("300/300" in ln for ln in a_final)  # closed at completion
    assert out.count("phase A:   0%") == 1  # the late report did not reopen it
    assert set(ph.timings) == {"loading", "between"}


def test_phases_print_lines_with_totals_and_eta_when_stderr_is_not_a_terminal() -> None:
    f = io.StringIO()  # not a terminal: a CI or nohup log gets lines, not silence
    ph = Phases(f, interval=0.0)
    ph.start("loading x")
    ph.count("A", 0, 4, desc="phase A", unit="party")
    ph.count("A", 2, 4, desc="phase A", unit="party")
    ph.count("A", 4, 4, desc="phase A", unit="party")
    ph.close()
    lines = f.getvalue().splitlines()
    assert lines[0] == "loading x ..." and re.match(r"loading x: done in \d+\.\d s", lines[1])
    assert lines[2] == "phase A: started (0/4 party (0%))"
    assert re.match(r"phase A: 2/4 party \(50%\), [\d,]+ party/s, ETA \d+ s$", lines[3])
    assert re.match(r"phase A: 4/4 party \(100%\), [\d,]+ party/s, done in \d+\.\d s$", lines[4])
    assert "loading x" in ph.timings
    silent = io.StringIO()
    Phases(silent, enabled=False).start("y")
    assert silent.getvalue() == ""


def test_run_warns_on_stderr_also_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "adult", "--parties", "60", "--out", str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["warnings"]
    assert any(w.startswith("tiny sample:") for w in result["warnings"])
    for w in result["warnings"]:
        assert f"mpc-rr run: warning: {w}" in err
    assert json.loads((tmp_path / "results.json").read_text())["warnings"] == result["warnings"]


def test_tcp_reports_wire_bytes_next_to_payload_bytes() -> None:
    plain, _ = ping("tcp", 4, tls=False, timeout=60)
    assert plain["ok"] and plain["handshakes"] == 4 and plain["tls"] is False
    # plaintext: every message crosses one hop (the hub is party 0) with an 8-byte frame header
    assert plain["wire_bytes"] - plain["wire_bytes_setup"] == plain["bytes"] + 8 * plain["messages"]
    tls, _ = ping("tcp", 4, timeout=60)
    assert tls["ok"] and tls["bytes"] == plain["bytes"]
    assert tls["wire_bytes_setup"] > 4 * 1000  # certificates both ways, per connection
    assert tls["wire_bytes"] - tls["wire_bytes_setup"] > plain["wire_bytes"] - plain["wire_bytes_setup"]
    mem, _ = ping("memory", 4)
    assert "wire_bytes" not in mem and mem["bytes"] == plain["bytes"]


def test_ping_prints_the_wire_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ping", "--transport", "tcp", "--parties", "2", "--plaintext"]) == 0
    assert re.search(r"wire \(plaintext over TCP, hop by hop\): [\d,]+ bytes", capsys.readouterr().out)


def test_rrba_warns_on_stderr_also_with_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rrba", "--data", "survey", "--clients", "120", "--block", "40", "--out", str(tmp_path)]
    assert main([*args, "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert any("true epsilon is infinite" in w for w in doc["warnings"])
    for w in doc["warnings"]:
        assert f"mpc-rr rrba: warning: {w}" in err
    assert main([*args, "--t-floor", "0.01", "--json"]) == 0  # a floor: finite epsilon, no such warning
    assert not any("infinite" in w for w in json.loads(capsys.readouterr().out)["warnings"])


def test_run_keeps_a_previous_run_of_its_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for _ in range(2):  # `make demo` twice
        assert main(["run", "adult", "--parties", "60", "--json"]) == 0
    capsys.readouterr()
    assert (tmp_path / "results/run-adult-1/results.json").exists()
    assert (tmp_path / "results/run-adult-1-2/results.json").exists()
    assert main(["run", "adult", "--parties", "60", "--out", "results/run-adult-1", "--json"]) == 0
    assert "holds a previous run" in capsys.readouterr().err  # an explicit --out is replaced, said so


def test_a_quiet_phase_says_it_is_still_running_when_stderr_is_not_a_terminal() -> None:
    """`make demo > log` sat 49 s on "building 32,561 parties ..." with nothing after it."""
    import time

    f = io.StringIO()
    ph = Phases(f, heartbeat=0.3)
    ph.start("building 30 parties")
    # two beats, however long a loaded machine takes to give the heartbeat its turns (a fixed
    # 1.2 s saw fewer at load 10)
    waited = time.monotonic() + 60
    while f.getvalue().count("still running") < 2 and time.monotonic() < waited:
        time.sleep(0.05)
    ph.end()
    time.sleep(0.5)  # nothing more once the phase ended
    ph.close()
    lines = f.getvalue().splitlines()
    beats = [ln for ln in lines if ln.startswith("building 30 parties: still running, ")]
    assert 2 <= len(beats) <= 3, lines
    assert lines[-1].startswith("building 30 parties: done in") and lines.index(beats[-1]) < len(lines) - 1
    on_tty = io.StringIO()
    on_tty.isatty = lambda: True  # type: ignore[method-assign]
    bar = Phases(on_tty, heartbeat=0.2)
    bar.start("x")
    time.sleep(0.5)
    bar.close()
    assert "still running" not in on_tty.getvalue()  # a terminal shows "x ..." until done
