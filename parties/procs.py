"""Run every party of a named protocol as a separate OS process over TCP on localhost.

Each process is ``python -m scenarios.cli party --roster ... --id I``, exactly
what a user runs on separate hosts.  The runner creates a deployment (CA,
certificates, roster) in ``workdir``, starts the hub on an OS-chosen port,
rewrites the roster with that port, starts the other parties, waits, and
collects their JSON reports into results + a :class:`~parties.costs.CostReport`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mpc_rr.errors import UsageError
from parties.costs import CostReport, PartyStats
from transports.pki import generate_deployment

__all__ = ["ProcessRunResult", "run_processes"]


@dataclass
class ProcessRunResult:
    """Results (as JSON values), errors and costs of a multi-process run."""

    results: dict[int, Any]
    errors: dict[int, str]
    costs: CostReport
    reports: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors and len(self.results) == len(self.costs.parties)

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Transcript per link in send order (the parties must run with ``transcript=True``)."""
        out: dict[tuple[int, int], list[bytes]] = {}
        for rep in self.reports.values():
            if "transcript" not in rep:
                raise UsageError("ProcessRunResult.links: run with transcript=True")
            for s, d, h in rep["transcript"]:
                out.setdefault((int(s), int(d)), []).append(bytes.fromhex(h))
        return out


def run_processes(
    protocol: str,
    n_parties: int,
    *,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    tls: bool = True,
    workdir: Path | None = None,
    step_timeout: float = 30.0,
    timeout: float = 300.0,
    transcript: bool = False,
    python: str = sys.executable,
) -> ProcessRunResult:
    """Run ``n_parties`` processes (hub included) of ``protocol``; see the module docstring."""
    if n_parties < 2:
        raise UsageError(f"run_processes: n_parties must be >= 2, got {n_parties}")
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="mpc-rr-procs-")
        workdir = Path(tmp.name)
    try:
        return _run(
            protocol, n_parties, seed, dict(params or {}), tls, Path(workdir),
            step_timeout, timeout, transcript, python,
        )  # fmt: skip
    finally:
        if tmp is not None:
            tmp.cleanup()


def _cmd(python: str, roster: Path, pid: int, protocol: str, seed: int, params: str,
         tls: bool, step_timeout: float, timeout: float, transcript: bool, out: Path,
         ) -> list[str]:  # fmt: skip
    cmd = [
        python, "-m", "scenarios.cli", "party", "--roster", str(roster), "--id", str(pid),
        "--protocol", protocol, "--seed", str(seed), "--params", params,
        "--step-timeout", str(step_timeout), "--timeout", str(timeout), "--out", str(out),
    ]  # fmt: skip
    if not tls:
        cmd.append("--plaintext")
    if transcript:
        cmd.append("--transcript")
    return cmd


def _run(protocol: str, n: int, seed: int, params: dict[str, Any], tls: bool, workdir: Path,
         step_timeout: float, timeout: float, transcript: bool, python: str,
         ) -> ProcessRunResult:  # fmt: skip
    t0 = time.perf_counter()
    roster = generate_deployment(n, workdir / "keys", hub_port=0)
    port_file = workdir / "hub.port"
    port_file.unlink(missing_ok=True)
    pjson = json.dumps(params)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    procs: dict[int, subprocess.Popen[bytes]] = {}
    logs = {}

    def start(pid: int, roster_path: Path, extra: list[str]) -> None:
        out = workdir / f"party-{pid}.json"
        out.unlink(missing_ok=True)
        cmd = _cmd(python, roster_path, pid, protocol, seed, pjson, tls, step_timeout,
                   timeout, transcript, out) + extra  # fmt: skip
        logs[pid] = open(workdir / f"party-{pid}.log", "wb")
        procs[pid] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=logs[pid], env=env)

    try:
        start(roster.hub, workdir / "keys" / "roster.json",
              ["--port", "0", "--port-file", str(port_file), "--linger", str(timeout)])  # fmt: skip
        deadline = time.monotonic() + 60
        while not port_file.exists():
            if procs[roster.hub].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "run_processes: the hub did not start: "
                    + (workdir / f"party-{roster.hub}.log").read_text()[-2000:]
                )
            time.sleep(0.02)
        live = roster.with_hub_address("127.0.0.1", int(port_file.read_text()))
        live_path = live.save(workdir / "keys" / "roster-live.json")
        for pid in sorted(roster.ids - {roster.hub}):
            start(pid, live_path, ["--linger", str(timeout)])
        end = time.monotonic() + timeout + 30
        for p in procs.values():
            try:
                p.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        for f in logs.values():
            f.close()
    wall = time.perf_counter() - t0
    results: dict[int, Any] = {}
    errors: dict[int, str] = {}
    stats: dict[int, PartyStats] = {}
    reports: dict[int, dict[str, Any]] = {}
    for pid in sorted(roster.ids):
        path = workdir / f"party-{pid}.json"
        if not path.exists():
            log = (workdir / f"party-{pid}.log").read_text()[-1000:]
            errors[pid] = f"party {pid}: no report (exit {procs[pid].returncode}): {log}"
            stats[pid] = PartyStats(pid, "?")
            continue
        rep = json.loads(path.read_text())
        reports[pid] = rep
        stats[pid] = PartyStats.from_json(rep["stats"])
        if rep["ok"]:
            results[pid] = rep["result"]
        else:
            errors[pid] = str(rep["error"])
    costs = CostReport(stats, wall, "tcp-processes")
    return ProcessRunResult(results, errors, costs, reports)
