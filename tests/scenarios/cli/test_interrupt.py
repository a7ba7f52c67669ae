"""Ctrl-C, as a terminal sends it (SIGINT to the whole process group, workers included): one
line saying what was stopped and what was kept, exit 130, no process left, no half-written
output, the store's session closed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")

ROOT = Path(__file__).resolve().parents[3]


def _interrupt(
    argv: list[str], marker: str, cwd: Path, *, settle: float = 0.3, sig: int = signal.SIGINT,
    group: bool = True, tmp: Path | None = None,
) -> tuple[int, str, float]:  # fmt: skip
    """Start ``mpc-rr argv``, wait until its standard error shows ``marker`` (work has begun),
    press Ctrl-C (``sig`` to the whole process group; ``group=False``: to the command alone, as
    ``kill PID`` does); return (exit status, standard error, seconds from the signal to exit),
    after checking that nothing of its process group is left one second later.  ``tmp``: the
    temporary folder of the command and its workers (``TMPDIR``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if tmp is not None:
        env["TMPDIR"] = str(tmp)
    proc = subprocess.Popen(
        [sys.executable, "-m", "scenarios.cli", *argv], cwd=cwd, env=env, text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a shell's job
    )  # fmt: skip
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if marker in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert seen.wait(120), f"{marker!r} never shown:\n{''.join(lines)[-2000:]}"
        time.sleep(settle)
        assert proc.poll() is None, "finished before the Ctrl-C: the test would prove nothing"
        if group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        t0 = time.monotonic()
        code = proc.wait(30)
        took = time.monotonic() - t0
        reader.join(5)
        deadline = time.monotonic() + 10.0  # generous: the loop ends as soon as none is left
        while time.monotonic() < deadline:
            ps = subprocess.run(["ps", "-o", "pid=,stat=", "-g", str(proc.pid)], capture_output=True, text=True)
            # a zombie has ended (only its exit status waits for a parent that reaps it)
            left = [p for p, st in (ln.split() for ln in ps.stdout.splitlines()) if not st.startswith("Z")]
            if not left:
                break
            time.sleep(0.05)
        if left:
            ps = subprocess.run(["ps", "-o", "pid,args", "-p", ",".join(left)], capture_output=True, text=True)
            raise AssertionError(f"processes of the run alive 10 s after it exited:\n{ps.stdout}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return code, "".join(lines), took


def _one_line(err: str, command: str, by: str = "Ctrl-C") -> str:
    for sign in ("Traceback", "KeyboardInterrupt", "Fatal Python error", "BrokenPipeError"):
        assert sign not in err, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"mpc-rr {command}: interrupted: stopped by {by}; "), err[-2000:]
    return last


@pytest.mark.slow  # ~5 s unloaded each: Adult's 32,561 parties over two shard workers
@pytest.mark.parametrize("marker", ["building 32,561 parties", "release phase"])
def test_ctrl_c_of_run_adult_leaves_no_traceback_and_no_temp_folder(marker: str, tmp_path: Path) -> None:
    """At start-up (the fork server importing, workers starting) and mid-release: one line, and
    nothing left in the temporary folder (no ``pymp-*``, no spill folder)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "run"
    code, err, took = _interrupt(["run", "adult", "--workers", "2", "--out", str(out)], marker, tmp_path,
                                 settle=0.1, tmp=tmp)  # fmt: skip
    assert code == 130
    assert _one_line(err, "run").endswith("nothing was written")
    assert not out.exists()
    assert sorted(p.name for p in tmp.iterdir()) == []
    assert took < 5.0, took


@pytest.mark.slow  # ~6 s unloaded: data, 1,500 parties and two shard workers start first
def test_ctrl_c_stops_run_and_its_shard_workers(tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["run", "adult", "--parties", "1500", "--dependence", "secure-sum", "--workers", "2",
            "--out", str(out)]  # fmt: skip
    code, err, took = _interrupt(argv, "dependence phase (secure sum)", tmp_path)
    assert code == 130
    assert _one_line(err, "run").endswith("nothing was written")
    assert not out.exists()  # no half-written output folder
    assert took < 5.0, took  # 0.2 s measured unloaded; generous for a loaded CI machine


@pytest.mark.slow  # ~5 s unloaded: two spawned workers finish a first run first
def test_ctrl_c_stops_scenario_run_and_closes_its_session(tmp_path: Path) -> None:
    from scenarios.results.store import Store

    toml = tmp_path / "s.toml"
    toml.write_text(
        '[scenario]\nname = "stop-me"\nseed = 1\nrepeats = 1\nmetrics = ["error_clusters_0.1"]\n'
        '[data]\nsource = "adult"\n'
        '[protocol]\nkind = "pipeline"\ntransport = "harness"\nparties = 400\nqueries = 20\n'
        "[grid]\np = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]\ntd = [0.1, 0.2, 0.3]\n"
    )
    store = tmp_path / "s.db"
    code, err, took = _interrupt(["scenario", "run", str(toml), "--store", str(store), "--jobs", "2"],
                                 "stop-me: [", tmp_path)  # fmt: skip
    assert code == 130
    last = _one_line(err, "scenario")
    with Store(store, create=False) as s:
        kept = s.count()
        sessions = s.sessions()
    assert 1 <= kept < 27 and f"stop-me: {kept:,} runs are in {store}" in last
    assert [x["finished"] is not None for x in sessions] == [True]  # the session was closed
    assert took < 5.0, took


@pytest.mark.slow  # ~5 s unloaded: two spawned workers finish a first run first
def test_sigterm_stops_scenario_run_and_closes_its_session(tmp_path: Path) -> None:
    """``kill PID`` (SIGTERM to the command alone): its workers are stopped by it, the session
    is closed, and the line names the signal."""
    from scenarios.results.store import Store

    toml = tmp_path / "s.toml"
    toml.write_text(
        '[scenario]\nname = "stop-me"\nseed = 1\nrepeats = 1\nmetrics = ["error_clusters_0.1"]\n'
        '[data]\nsource = "adult"\n'
        '[protocol]\nkind = "pipeline"\ntransport = "harness"\nparties = 400\nqueries = 20\n'
        "[grid]\np = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]\ntd = [0.1, 0.2, 0.3]\n"
    )
    store = tmp_path / "s.db"
    code, err, took = _interrupt(["scenario", "run", str(toml), "--store", str(store), "--jobs", "2"],
                                 "stop-me: [", tmp_path, sig=signal.SIGTERM, group=False)  # fmt: skip
    assert code == 130
    last = _one_line(err, "scenario", by="SIGTERM")
    with Store(store, create=False) as s:
        kept = s.count()
        sessions = s.sessions()
    assert f"stop-me: {kept:,} runs are in {store}" in last
    assert [x["finished"] is not None for x in sessions] == [True]
    assert took < 5.0, took


def test_ctrl_c_stops_audit_without_a_plot(tmp_path: Path) -> None:
    out = tmp_path / "plots"
    argv = ["audit", "--mechanism", "krr", "--trials", "50000000", "--out", str(out)]
    code, err, took = _interrupt(argv, "auditing krr", tmp_path, settle=1.0)
    assert code == 130
    _one_line(err, "audit")
    assert not out.exists() or not any(out.iterdir())
    assert took < 5.0, took
