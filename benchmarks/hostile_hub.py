"""Outsiders against a real hub process while honest parties run.

Outsiders (``--attackers`` processes, at most 4, each in its own process group)
open TCP connections to the hub's port and never start TLS, reopening each one
the hub closes (up to ``--rate`` per second in all), so together they hold as
many pending handshakes as the hub lets them -- ``--outsiders`` connections at
most.  Each attacker connects from its own loopback address (127.0.0.10,
127.0.0.11, ...) unless ``--same-source``, as outsiders on the network would;
the honest parties connect from 127.0.0.1.  Meanwhile ``--parties - 1`` honest
client processes run a plainsum over mutual TLS.  Per trial (a fresh hub
process, fresh clients) it prints how many honest parties finished and their
wall time, the hub's open descriptors beyond an idle hub's (median and peak
while the honest run was on), the hub's peak RSS, the outsider connections the
attackers held open, and the lines and bytes the hub wrote to stderr.

Baseline (``--baseline REF``, default ``main``: that commit's tree, exported
with ``git archive``) and ours (this tree) run interleaved, repeat by repeat;
medians are printed, with the ratio ours / baseline of the honest wall time.
The soft limit of open files is raised to the hard one (the hub and attackers
inherit it).

    python -m benchmarks.hostile_hub --outsiders 0 2000 --repeat 3
    python -m benchmarks.hostile_hub --outsiders 19000 --attackers 4 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks._baseline import export_tree

ROOT = Path(__file__).resolve().parents[1]


MAX_ATTACKERS = 4


class Outsider(threading.Thread):
    """Holds up to ``count`` silent connections to ``port`` from ``source``, reopening
    closed ones at up to ``rate`` per second."""

    def __init__(self, port: int, count: int, rate: float, source: str = "127.0.0.1") -> None:
        super().__init__(daemon=True)
        self.port, self.count, self.rate, self.source = port, count, rate, source
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_hub = 0
        self.live = 0
        self.failed = 0  # connect() refused locally (ports or descriptors ran out)

    def _open(self, sel: selectors.BaseSelector) -> None:
        s = socket.socket()
        try:
            s.setblocking(False)
            s.bind((self.source, 0))
            s.connect_ex(("127.0.0.1", self.port))
            sel.register(s, selectors.EVENT_READ)
        except OSError:
            s.close()
            raise
        self.opened += 1

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        budget, t_last = 0.0, time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            budget = min(budget + (now - t_last) * self.rate, self.rate / 10 + 1)
            t_last = now
            while self.live < self.count and budget >= 1:
                try:
                    self._open(sel)
                except OSError:
                    self.failed += 1
                    break
                self.live, budget = self.live + 1, budget - 1
            for key, _ in sel.select(timeout=0.05):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    gone = s.recv(1) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    sel.unregister(s)
                    s.close()
                    self.live -= 1
                    self.closed_by_hub += 1
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def _raise_nofile() -> int:
    """Raise this process's soft limit of open files to the hard one; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def attacker_main(port: int, count: int, rate: float, source: str) -> None:
    """One attacker process: an :class:`Outsider` until SIGTERM, then its counts as JSON.
    The live count is written to stdout every half second (``live N``) for the parent."""
    _raise_nofile()
    o = Outsider(port, count, rate, source)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    o.start()
    while not done.wait(0.5):
        print(f"live {o.live}", flush=True)
    o.stop.set()
    o.join()
    print(json.dumps({"opened": o.opened, "closed_by_hub": o.closed_by_hub, "failed": o.failed}), flush=True)


class Attackers:
    """``k`` attacker processes holding ``count`` connections in all (see the module docstring)."""

    def __init__(self, port: int, count: int, rate: float, k: int, same_source: bool) -> None:
        k = max(1, min(k, MAX_ATTACKERS, count or 1))
        self.procs: list[subprocess.Popen[str]] = []
        self.live = [0] * k
        self._readers: list[threading.Thread] = []
        self.totals: dict[str, int] = {"opened": 0, "closed_by_hub": 0, "failed": 0}
        if count == 0:
            return
        for i in range(k):
            source = "127.0.0.1" if same_source else f"127.0.0.{10 + i}"
            share = count // k + (i < count % k)
            proc = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.hostile_hub", "--attacker", str(port), str(share),
                 str(rate / k), source],
                cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True,
            )  # fmt: skip
            self.procs.append(proc)
            t = threading.Thread(target=self._read, args=(i, proc), daemon=True)
            t.start()
            self._readers.append(t)

    def _read(self, i: int, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("live "):
                self.live[i] = int(line.split()[1])
            elif line.startswith("{"):
                for k, v in json.loads(line).items():
                    self.totals[k] += int(v)

    def stop(self) -> None:
        """SIGTERM every attacker, wait for its counts; kill its process group if it hangs."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc, t in zip(self.procs, self._readers, strict=True):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            t.join(timeout=5)


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def trial(
    code: Path, outsiders: int, parties: int, rate: float, *, attackers: int = 2,
    same_source: bool = False, linger: float = 45.0,
) -> dict[str, object]:  # fmt: skip
    """One honest run of ``parties`` (hub + clients, each its own process) next to the
    outsiders; every process and temporary file it starts is gone when it returns."""
    _raise_nofile()
    env = {**os.environ, "PYTHONPATH": str(code)}
    work = Path(tempfile.mkdtemp(prefix="mpc-rr-hostile-"))
    procs: list[subprocess.Popen[bytes]] = []
    attack: Attackers | None = None
    try:
        subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                        "from transports.pki import generate_deployment; "
                        f"generate_deployment({parties}, Path({str(work)!r}), hub_port=0)"],
                       env=env, check=True, cwd=code)  # fmt: skip
        roster = work / "roster.json"
        party = [sys.executable, "-m", "parties.party_main", "--roster", str(roster), "--protocol",
                 "plainsum", "--params", '{"cells": 8}', "--timeout", str(2 * linger), "--linger", str(linger)]  # fmt: skip
        hub_err = (work / "hub.err").open("w")
        hub = subprocess.Popen([*party, "--id", "0", "--port", "0", "--port-file", str(work / "port"),
                                "--out", str(work / "hub.json")], env=env, cwd=code,
                               stdout=subprocess.DEVNULL, stderr=hub_err, start_new_session=True)  # fmt: skip
        procs.append(hub)
        while not (work / "port").exists():
            if hub.poll() is not None:
                raise RuntimeError(f"hub exited: {(work / 'hub.err').read_text()[-2000:]}")
            time.sleep(0.05)
        port = int((work / "port").read_text())
        idle_fds = _fds(hub.pid)
        attack = Attackers(port, outsiders, rate, attackers, same_source)
        t_attack = time.perf_counter()
        while outsiders and time.perf_counter() - t_attack < 20 and sum(attack.live) < 0.95 * outsiders:
            time.sleep(0.2)  # the outsiders take what the hub (and the kernel) let them
        time.sleep(1.0 if outsiders else 0.0)
        live = json.loads(roster.read_text())
        live["parties"][0].update(host="127.0.0.1", port=port)  # the clients find the hub
        (work / "live.json").write_text(json.dumps(live))
        t0 = time.perf_counter()
        clients = [
            subprocess.Popen([*party, "--roster", str(work / "live.json"), "--id", str(i)], env=env,
                             cwd=code, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             start_new_session=True)
            for i in range(1, parties)
        ]
        procs += clients
        held: list[int] = []
        attackers_live: list[int] = []
        while any(c.poll() is None for c in clients) and time.perf_counter() - t0 < 3 * linger:
            held.append(_fds(hub.pid) - idle_fds)
            attackers_live.append(sum(attack.live))
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        reports = []
        for c in clients:
            out, _ = c.communicate(timeout=30)
            try:
                reports.append(json.loads(out.decode().strip().splitlines()[-1]))
            except (ValueError, IndexError):
                reports.append({"ok": False, "error": "no report"})
        attack.stop()
        try:
            hub.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()
        hub_err.close()
        hub_report = json.loads((work / "hub.json").read_text()) if (work / "hub.json").exists() else {}
        err = (work / "hub.err").read_bytes()
        return {
            "ok": sum(bool(r.get("ok")) for r in reports), "of": parties - 1, "wall_s": wall,
            "held": statistics.median(held) if held else 0, "held_max": max(held, default=0),
            "attackers_live": statistics.median(attackers_live) if attackers_live else 0,
            **attack.totals, "hub_rss_mb": (hub_report.get("max_rss_bytes") or 0) / 1e6,
            "stderr_lines": err.count(b"\n"), "stderr_bytes": len(err),
            "hub_ok": bool(hub_report.get("ok")), "outsiders_closed": hub_report.get("outsiders"),
            "hub_error": hub_report.get("error"), "hub_start_error": hub_report.get("start_error"),
            "connect_attempts": [r.get("connect_attempts") for r in reports],
            "errors": sorted({str(r.get("error"))[:160] for r in reports if not r.get("ok")}),
        }  # fmt: skip
    finally:
        if attack is not None:
            attack.stop()
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)


def _export(ref: str) -> Path:
    return export_tree(ref, Path(tempfile.mkdtemp(prefix=f"mpc-rr-{ref.replace('/', '-')}-")))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--attacker"]:  # a child: python -m benchmarks.hostile_hub --attacker ...
        port, count, rate, source = argv[1:5]
        attacker_main(int(port), int(count), float(rate), source)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--outsiders", type=int, nargs="+", default=[0, 2000])
    ap.add_argument("--parties", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rate", type=float, default=2000.0, help="outsider (re)connections per second, in all")
    ap.add_argument("--attackers", type=int, default=2, help=f"attacker processes (at most {MAX_ATTACKERS})")
    ap.add_argument("--same-source", action="store_true", help="attackers connect from 127.0.0.1 too")
    ap.add_argument("--linger", type=float, default=45.0,
                    help="parties' --linger: how long the hub waits for them all (run limit: twice that)")
    ap.add_argument("--baseline", default="main", help="git ref of the baseline (default: main)")
    ap.add_argument("--json", type=Path, default=None, help="write every trial's figures here")
    args = ap.parse_args(argv)
    nofile = _raise_nofile()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up processes on SIGTERM
    base = _export(args.baseline)
    variants = {"baseline": base, "ours": ROOT}
    rows: dict[tuple[str, int], list[dict[str, object]]] = {}
    try:
        for _ in range(args.repeat):
            for k in args.outsiders:
                for name, code in variants.items():  # interleaved: load hits both
                    r = trial(code, k, args.parties, args.rate, attackers=args.attackers,
                              same_source=args.same_source, linger=args.linger)  # fmt: skip
                    print(name, k, json.dumps(r), flush=True)
                    rows.setdefault((name, k), []).append(r)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if args.json is not None:
        args.json.write_text(json.dumps({f"{n} {k}": rs for (n, k), rs in rows.items()}, indent=1))
    print(f"load: {os.getloadavg()[0]:.1f}; open files limit {nofile}; {args.parties - 1} honest clients "
          f"+ hub, plainsum over TLS; attackers {args.attackers}"
          f"{' from 127.0.0.1' if args.same_source else ' from their own addresses'}; "
          f"baseline {args.baseline}; medians of {args.repeat}")  # fmt: skip
    print(f"{'variant':9} {'outsiders':>9} {'honest ok':>10} {'wall s':>7} {'hub fds':>8} {'max':>6} "
          f"{'attk live':>9} {'hub RSS MB':>10} {'stderr lines':>12} {'bytes':>8}")  # fmt: skip
    for (name, k), rs in rows.items():
        med = {f: statistics.median(float(r[f]) for r in rs) for f in  # type: ignore[arg-type]
               ("wall_s", "held", "held_max", "attackers_live", "hub_rss_mb", "stderr_lines",
                "stderr_bytes")}  # fmt: skip
        ok = f"{min(int(r['ok']) for r in rs)}/{rs[0]['of']}"  # type: ignore[call-overload]
        print(f"{name:9} {k:>9} {ok:>10} {med['wall_s']:>7.2f} {med['held']:>8.0f} {med['held_max']:>6.0f} "
              f"{med['attackers_live']:>9.0f} {med['hub_rss_mb']:>10.0f} {med['stderr_lines']:>12.0f} "
              f"{med['stderr_bytes']:>8.0f}")  # fmt: skip
    for k in args.outsiders:
        b = statistics.median(float(r["wall_s"]) for r in rows[("baseline", k)])  # type: ignore[arg-type]
        o = statistics.median(float(r["wall_s"]) for r in rows[("ours", k)])  # type: ignore[arg-type]
        print(f"outsiders {k}: honest wall ours / baseline = {o / b:.2f}")


if __name__ == "__main__":
    main()
