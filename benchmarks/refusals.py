"""How fast a refused command line prints its refusal (exit 2), each in a fresh process.

Run: ``python -m benchmarks.refusals [--repeat R] [--ref PATH]``.

Every case is a bad input a new user types; each must be refused before any
work, so its wall time is the interpreter, the parser and the check: the goal
is well under 0.5 s on a quiet machine.  Each case runs ``--repeat`` times
(interleaved) as ``python -m scenarios.cli ARGS`` in an empty folder; printed:
the median wall time, the median CPU time of the child (user + system: less
sensitive to a loaded machine than the wall time), the exit status and the
first words of the message.  ``--ref PATH``: also time the same cases with
the code at PATH (another checkout) on ``PYTHONPATH``, side by side.

Also printed: the interpreter alone (``python -c pass``) and the parser built
for ``--help``, the floor under every refusal.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES: list[tuple[str, list[str]]] = [
    ("run nosuch.csv --infer-schema", ["run", "nosuch.csv", "--infer-schema"]),
    ("run FOLDER --infer-schema", ["run", "{tmp}", "--infer-schema"]),
    ("run adult --network nosuch", ["run", "adult", "--network", "nosuch"]),
    ("run adult --engine ray --transport harness", ["run", "adult", "--engine", "ray", "--transport", "harness"]),
    ('run adult --name ""', ["run", "adult", "--name", ""]),
    ("run adult --name ../../evil", ["run", "adult", "--name", "../../evil"]),
    ("run adult --workers 100000", ["run", "adult", "--parties", "500", "--workers", "100000"]),
    ("run adult --parties 10^10", ["run", "adult", "--parties", "10000000000"]),
    ("privacy --parties 10^12 (anonymous)", ["privacy", "--epsilon0", "1", "--parties", "1000000000000",
                                             "--channel", "anonymous"]),
    ("privacy --epsilon0 1e308 (anonymous)", ["privacy", "--epsilon0", "1e308", "--parties", "1000",
                                              "--channel", "anonymous"]),
    ("classroom full-mesh --options 9", ["classroom", "full-mesh", "--options", "9"]),
]  # fmt: skip
"""(label, argv) of each refusal; ``{tmp}`` is a folder passed where a CSV file is expected."""

FLOOR: list[tuple[str, list[str]]] = [("python -c pass", ["-c", "pass"]), ("mpc-rr --help", ["-m", "scenarios.cli", "--help"])]


TIMEOUT = 20.0
"""Seconds after which a case counts as not refused (it was accepted and is working)."""


def _time(args: list[str], cwd: Path, code: Path) -> tuple[float, float, int, str]:
    """(wall s, child CPU s, exit status, last line of stderr) of ``python ARGS``."""
    env = {**os.environ, "PYTHONPATH": str(code), "MPC_RR_DATA": os.environ.get("MPC_RR_DATA", "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:  # accepted and working (a refusal that never came)
        os.killpg(proc.pid, signal.SIGKILL)  # with any worker it started
        proc.communicate()
        return TIMEOUT, float("nan"), -1, f"still running after {TIMEOUT:.0f} s: not refused"
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = err.strip().splitlines()
    return wall, cpu, proc.returncode, lines[-1] if lines else ""


def measure(repeat: int, code: Path) -> dict[str, tuple[float, float, int, str]]:
    """Median wall and CPU seconds, the exit status and the message of every case and floor."""
    with tempfile.TemporaryDirectory(prefix="mpc-rr-refusals-") as tmp:
        cwd = Path(tmp) / "cwd"
        cwd.mkdir()
        folder = Path(tmp) / "a-folder.csv"
        folder.mkdir()
        runs: dict[str, list[tuple[float, float, int, str]]] = {}
        todo = [(label, ["-m", "scenarios.cli", *argv]) for label, argv in CASES] + FLOOR
        for _ in range(repeat):  # interleaved: a load spike hits every case alike
            for label, args in todo:
                args = [a.replace("{tmp}", str(folder)) for a in args]
                runs.setdefault(label, []).append(_time(args, cwd, code))
        return {
            label: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs),
                    rs[-1][2], rs[-1][3])
            for label, rs in runs.items()
        }  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each case (medians)")
    ap.add_argument("--ref", type=Path, default=None, help="another checkout to time side by side")
    a = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"refusals: {a.repeat} runs each, fresh processes; load average {load:.2f} on "
          f"{os.cpu_count()} CPU(s); medians (wall s / child CPU s)")  # fmt: skip
    here = measure(a.repeat, ROOT)
    ref = measure(a.repeat, a.ref) if a.ref is not None else None
    head = f"  {'case':<42}{'wall':>7}{'cpu':>7}" + (f"{'ref wall':>10}{'ref cpu':>9}" if ref else "")
    print(head + "  exit  message")
    for label, (wall, cpu, code, msg) in here.items():
        extra = ""
        if ref is not None:
            rw, rc, rcode, _ = ref[label]
            extra = f"{rw:>10.2f}{rc:>9.2f}" + ("" if rcode == code else f" (ref exit {rcode})")
        print(f"  {label:<42}{wall:>7.2f}{cpu:>7.2f}{extra}  {code:>4}  {msg[:90]}", flush=True)
    slow = [label for label, (w, *_rest) in here.items() if w >= 0.5 and label not in dict(FLOOR)]
    refused = all(code == 2 for label, (_w, _c, code, _m) in here.items() if label not in dict(FLOOR))
    print(f"  every case refused with exit 2: {refused}; at or above 0.5 s wall: {', '.join(slow) or 'none'}")


if __name__ == "__main__":
    main()
