"""Run every party of a named protocol as a separate OS process over TCP on localhost.

Each process runs ``mpc-rr party --roster ... --id I``, exactly what a user
runs on separate hosts, started as a fork of this process or of a
pre-imported server (``launch="auto"``, the default) or as a fresh
interpreter (``launch="exec"``; see :mod:`parties.launch`).
The runner creates a deployment (CA,
certificates, roster) in ``workdir``, binds the hub's listening socket on an
OS-chosen port, writes the roster with that port, starts the hub (which
inherits the socket: ``--listen-fd``) and every other party at once, waits,
and collects their JSON reports into results + a
:class:`~mpc_rr.core.CostReport`.  Starting everyone at once takes the
hub's start-up off the critical path; a party that is up before the hub waits
in the listen backlog.

Endings: the data parties are waited for first; the hub, which keeps
relaying until the others are gone, then gets its linger time to write its
report.  A process still running at the deadline gets SIGTERM (it writes a
report with cause ``terminated``), then SIGKILL; no process is left behind.
If the hub's process exits while others still run (it crashed, or never got
to listen), they get a few seconds to notice, then are stopped the same way,
and the hub's error (its report, or the tail of its log) says why.

Fault injection: ``crash={pid: "MessageType"}`` makes party ``pid`` kill
itself with SIGKILL right before it would send that message (a real
``kill -9`` at that protocol step).
"""

from __future__ import annotations

import contextlib
import json
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError
from parties.launch import (
    PartyProcess,
    launch_party,
    preload_modules,
    resolve_launch,
    start_launcher,
)

if TYPE_CHECKING:  # imported where used: the fork server starts first and imports them meanwhile
    from mpc_rr.core import CostReport, RegisteredProtocol, Transcript
    from transports.pki import Roster

__all__ = ["ProcessRunResult", "run_processes", "run_with_hub_process"]


@dataclass
class ProcessRunResult:
    """Results (as JSON values), errors, exit codes and costs of a multi-process run."""

    results: dict[int, Any]
    errors: dict[int, str]
    costs: CostReport
    reports: dict[int, dict[str, Any]] = field(default_factory=dict)
    exit_codes: dict[int, int | None] = field(default_factory=dict)
    transcript: Transcript | None = None

    @property
    def ok(self) -> bool:
        return not self.errors and len(self.results) == len(self.costs.parties)

    def links(self) -> dict[tuple[int, int], list[bytes]]:
        """Payloads per link in send order (the run must record transcripts)."""
        if self.transcript is None:
            raise UsageError("ProcessRunResult.links: run with transcript=True")
        return self.transcript.links()


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
    linger: float = 30.0,
    transcript: bool = False,
    crash: Mapping[int, str] | None = None,
    python: str = sys.executable,
    launch: str = "auto",
    entries: Mapping[int, Sequence[str]] | None = None,
    keys: Path | None = None,
    party_budget: str = "default",
) -> ProcessRunResult:
    """Run ``n_parties`` processes (hub included) of ``protocol``; see the module docstring.

    ``launch``: ``"auto"``, ``"fork"``, ``"fork-server"`` or ``"exec"`` (see
    :mod:`parties.launch`; ``python`` is the interpreter of ``exec``).  ``entries``:
    party id -> the interpreter arguments that run that party instead of ``mpc-rr party``,
    given the same flags in a fresh interpreter (a hostile process among honest ones:
    ``scenarios.workloads.hostile_hub``).  ``keys``: the folder of an existing deployment
    (``keys init``'s, with its ``roster.json``) to run again, instead of a fresh one.
    ``party_budget``: every party's ``--party-budget`` (``"none"``: no budget).
    """
    if n_parties < 2:
        raise UsageError(f"run_processes: n_parties must be >= 2, got {n_parties}")
    try:
        launch = resolve_launch(launch)
    except UsageError as exc:
        raise UsageError(f"run_processes: {exc}") from None
    start_launcher(launch, preload_modules(protocol))  # imports in the server while we go on
    with _work_folder(workdir, "mpc-rr-procs-") as folder:
        run = _Processes(
            protocol, n_parties, seed, dict(params or {}), tls, folder, step_timeout,
            timeout, linger, transcript, dict(crash or {}), python, launch,
        )  # fmt: skip
        run.entries = {int(k): list(v) for k, v in (entries or {}).items()}
        run.keys = keys
        run.party_budget = str(party_budget)
        return run.run()


@contextlib.contextmanager
def _work_folder(workdir: Path | None, prefix: str) -> Iterator[Path]:
    """``workdir``, or a temporary folder removed on the way out."""
    if workdir is not None:
        yield Path(workdir)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def run_with_hub_process(
    spec: RegisteredProtocol,
    n_parties: int,
    *,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    tls: bool = True,
    workdir: Path | None = None,
    step_timeout: float = 30.0,
    timeout: float = 300.0,
    transcript: bool = False,
    connect_limit: int = 64,
    python: str = sys.executable,
) -> ProcessRunResult:
    """The hub in its own OS process, every other party in this one, over TCP (+TLS).

    One process that holds both ends of every loopback connection needs two
    file descriptors per party, so 10,000 TLS parties need about 20,075 and
    do not fit under a hard open-file limit of 20,000.  Here the hub is
    started exactly as on a server of its own (``mpc-rr party --id 0
    --listen-fd``, a socket bound by this runner) and the ``n_parties - 1``
    clients run in this process through :func:`parties.tcp_runner.run_tcp`
    with the hub elsewhere: one descriptor per party on each side.  Roles are
    built with ``spec`` from ``(n_parties, seed, params)`` on both sides, as
    ``mpc-rr party`` does.

    ``costs.extra`` carries what ``run_tcp`` reports (``wire_bytes`` and
    ``wire_bytes_setup`` add what the hub's process reports writing) plus
    ``max_rss_bytes`` of this process, ``hub_max_rss_bytes`` and
    ``total_s`` (from creating the deployment to the hub's report; ``wall_s``
    is the protocol run, as with ``run_tcp``).  Results
    are JSON values (``spec.result_to_json``), as from :func:`run_processes`.
    """
    from mpc_rr.core import CostReport
    from mpc_rr.core._registry import BUILTIN
    from mpc_rr.secure_sum._identity import install_identity
    from parties.node import deployment_identities, run_label
    from parties.process_stats import peak_rss_bytes
    from parties.tcp_runner import run_tcp_sync
    from transports.errors import TransportError

    if n_parties < 2:
        raise UsageError(f"run_with_hub_process: n_parties must be >= 2, got {n_parties}")
    if spec.name not in BUILTIN:  # the hub process finds its role by name, in a fresh interpreter
        raise UsageError(
            f"run_with_hub_process: the hub process builds its role from the protocol name, and "
            f"{spec.name!r} is not a built-in protocol (built-in: {sorted(BUILTIN)}); add it to "
            f"mpc_rr.core.BUILTIN"
        )
    params = dict(params or {})
    with _work_folder(workdir, "mpc-rr-hub-") as folder:
        # the hub waits (linger) for every party to connect and, after the run, to leave
        run = _Processes(
            spec.name, n_parties, seed, params, tls, folder, step_timeout, timeout,
            timeout, transcript, {}, python, "exec",
        )  # fmt: skip
        # the parties here are built before they connect: this runner chooses the run's
        # nonce and gives it to the hub process (unique run labels)
        run.run_nonce = secrets.token_hex(8)
        labelled = {**params, "run": run_label(spec, seed, params, run.run_nonce)}
        t0 = time.perf_counter()
        live, _ = run.start_hub()
        clients = sorted(live.ids - {live.hub})
        # the parties here sign and verify as the hub's process does: the deployment's keys
        loaders = deployment_identities(live, clients, tls, seed)
        for i in clients:
            install_identity(loaders[i], party_id=i)
        try:
            roles = {i: spec.make_role(i, n_parties, seed, labelled) for i in clients}
            try:
                res = run_tcp_sync(
                    roles, roster=live, tls=tls, step_timeout=step_timeout, timeout=timeout,
                    transcript=transcript, connect_limit=connect_limit, connect_wait=timeout,
                )  # fmt: skip
            except Exception as exc:  # most often: the hub's process is gone; say so, with its log
                code = run.procs[live.hub].poll()
                if code is None:
                    raise
                raise TransportError(
                    f"run_with_hub_process: the hub's process exited (code {code}) and the parties "
                    f"could not run ({type(exc).__name__}: {exc}); its log ends:\n"
                    f"{run.log_tail(live.hub, 1500)}"
                ) from exc
            run._wait([live.hub], time.monotonic() + timeout + 10)
        finally:
            run.stop_all()
            for i in clients:
                install_identity(None, party_id=i)
        wall = time.perf_counter() - t0
        hub = run._collect([live.hub], wall)
    results = {pid: spec.result_to_json(r) for pid, r in res.results().items()} | hub.results
    errors = {pid: str(e) for pid, e in res.errors.items()} | hub.errors
    extra = dict(res.costs.extra)
    hub_report = hub.reports.get(live.hub, {})
    for key in ("wire_bytes", "wire_bytes_setup"):  # both sides of every hop, as with run_tcp
        extra[key] = int(extra.get(key, 0)) + int(hub_report.get(key) or 0)
    extra["max_rss_bytes"] = peak_rss_bytes()
    extra["hub_max_rss_bytes"] = hub_report.get("max_rss_bytes")
    extra["total_s"] = wall  # deployment, hub start-up, handshakes, run, hub's report
    costs = CostReport(
        res.costs.parties | hub.costs.parties, res.costs.wall_s, "tcp-hub-process", extra
    )
    trace = res.transcript
    if trace is not None and hub.transcript is not None:
        trace.extend(hub.transcript.events)
    return ProcessRunResult(results, errors, costs, hub.reports, hub.exit_codes, trace)


HUB_GONE_GRACE = 3.0
"""Seconds the parties get to end by themselves once the hub's process has exited."""


class _Processes:
    def __init__(
        self, protocol: str, n: int, seed: int, params: dict[str, Any], tls: bool, workdir: Path,
        step_timeout: float, timeout: float, linger: float, transcript: bool,
        crash: dict[int, str], python: str, launch: str,
    ) -> None:  # fmt: skip
        self.protocol, self.n, self.seed, self.params = protocol, n, seed, params
        self.tls, self.workdir, self.python = tls, workdir, python
        self.step_timeout, self.timeout, self.linger = step_timeout, timeout, linger
        self.transcript, self.crash = transcript, crash
        self.launch = launch
        self.procs: dict[int, PartyProcess] = {}
        self.run_nonce: str | None = None  # the hub's, when this runner chooses it
        self.entries: dict[int, list[str]] = {}  # party -> the program that runs it (run_processes)
        self.keys: Path | None = None  # an existing deployment's folder (run_processes)
        self.party_budget = "default"  # every party's --party-budget (run_processes)

    def _start(self, pid: int, roster_path: Path, listen: socket.socket | None = None) -> None:
        w = self.workdir
        out = w / f"party-{pid}.json"
        out.unlink(missing_ok=True)
        argv = [
            "--roster", str(roster_path), "--id", str(pid), "--protocol", self.protocol,
            "--seed", str(self.seed), "--params", json.dumps(self.params),
            "--step-timeout", str(self.step_timeout), "--timeout", str(self.timeout),
            "--linger", str(self.linger), "--out", str(out),
        ]  # fmt: skip
        if not self.tls:
            argv.append("--plaintext")
        if self.transcript:
            argv += ["--transcript", str(w / f"party-{pid}.transcript")]
        if pid in self.crash:
            argv += ["--crash-before", self.crash[pid]]
        if self.run_nonce is not None:
            argv += ["--run-nonce", self.run_nonce]
        if self.party_budget != "default":
            argv += ["--party-budget", self.party_budget]
        self.procs[pid] = launch_party(
            self.launch, argv, w / f"party-{pid}.log", listen=listen,
            preload=preload_modules(self.protocol), python=self.python, entry=self.entries.get(pid),
        )  # fmt: skip

    def _wait(self, pids: list[int], until: float) -> None:
        """Wait for ``pids`` until ``until``; then SIGTERM (a report), then SIGKILL."""
        for pid in pids:
            p = self.procs[pid]
            try:
                p.wait(timeout=max(0.1, until - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()

    def _while_hub_runs(self, hub: int, others: list[int], until: float) -> float:
        """Wait until ``others`` are done or ``until``; return their deadline.

        A hub that exits while parties still run (it crashed, or never got to
        listen) ends the run for everyone: nobody can finish without the
        relay.  The others then get ``HUB_GONE_GRACE`` seconds to notice
        and report; the caller's :meth:`_wait` stops the rest (SIGTERM:
        they report ``terminated``) instead of leaving them to retry until
        their linger or the whole-run deadline.
        """
        hub_proc = self.procs[hub]
        while time.monotonic() < until:
            alive = [pid for pid in others if self.procs[pid].poll() is None]
            if not alive:
                break
            if hub_proc.poll() is not None:
                return min(until, time.monotonic() + HUB_GONE_GRACE)
            try:
                self.procs[alive[0]].wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
        return until

    def start_hub(self) -> tuple[Roster, Path]:
        """Create the deployment and start the hub; return the live roster and its file.

        The runner binds the hub's socket and hands it down, so every party
        starts at once: clients that come up before the hub wait in the
        listen backlog (or retry).
        """
        from parties.protocol_keys import write_protocol_keys
        from transports.pki import Roster, generate_deployment

        w = self.workdir
        folder = w / "keys" if self.keys is None else Path(self.keys)
        if self.keys is None:
            roster = generate_deployment(self.n, folder, hub_port=0)
            write_protocol_keys(folder)  # as `keys init` does (prio3: the helper's key pair)
        else:
            roster = Roster.load(folder / "roster.json")
            if len(roster.parties) != self.n:
                raise UsageError(f"run_processes: {folder} holds a deployment of {len(roster.parties)} parties, "
                                 f"not {self.n}")  # fmt: skip
        listener = socket.create_server(("127.0.0.1", 0), backlog=min(4096, self.n + 16))
        try:
            live = roster.with_hub_address("127.0.0.1", listener.getsockname()[1])
            live_path = live.save(folder / "roster-live.json")
            self._start(live.hub, live_path, listener)
        finally:
            listener.close()  # the hub holds its own copy
        return live, live_path

    def stop_all(self) -> None:
        """Kill whatever still runs and close the logs (no process is left behind)."""
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()

    def run(self) -> ProcessRunResult:
        t0 = time.perf_counter()
        roster, live_path = self.start_hub()
        hub = roster.hub
        try:
            others = sorted(roster.ids - {hub})
            for pid in others:
                self._start(pid, live_path)
            end = time.monotonic() + self.timeout + self.linger + 30
            self._wait(others, self._while_hub_runs(hub, others, end))
            self._wait([hub], end + self.linger + 10)
        finally:
            self.stop_all()
        return self._collect(sorted(roster.ids), time.perf_counter() - t0)

    def log_tail(self, pid: int, chars: int = 1000) -> str:
        """The end of party ``pid``'s standard-error log (empty if it wrote none)."""
        path = self.workdir / f"party-{pid}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def _collect(self, ids: list[int], wall: float) -> ProcessRunResult:
        from mpc_rr.core import CostReport, PartyStats, Transcript

        w = self.workdir
        results: dict[int, Any] = {}
        errors: dict[int, str] = {}
        stats: dict[int, PartyStats] = {}
        reports: dict[int, dict[str, Any]] = {}
        codes = {pid: p.returncode for pid, p in self.procs.items()}
        trace = Transcript("parties (what each party sent)") if self.transcript else None
        for pid in ids:
            path = w / f"party-{pid}.json"
            if not path.exists():
                errors[pid] = f"party {pid}: no report (exit {codes.get(pid)}): {self.log_tail(pid)}"
                stats[pid] = PartyStats(pid, "?")
                continue
            rep = json.loads(path.read_text())
            reports[pid] = rep
            stats[pid] = (
                PartyStats.from_json(rep["stats"]) if rep["stats"] else PartyStats(pid, "?")
            )
            if rep["ok"]:
                results[pid] = rep["result"]
            else:
                errors[pid] = f"{rep['cause']}: {rep['error']}"
            tpath = w / f"party-{pid}.transcript"
            if trace is not None and tpath.exists():
                trace.extend(Transcript.load(tpath))
        return ProcessRunResult(
            results, errors, CostReport(stats, wall, "tcp-processes"), reports, codes, trace
        )
