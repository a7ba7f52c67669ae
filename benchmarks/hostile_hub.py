"""Outsiders against a real hub process while honest parties run (issue 21).

An outsider opens TCP connections to the hub's port and never starts TLS,
reopening each one the hub closes (up to ``--rate`` per second), so it holds
as many pending handshakes as the hub lets it.  Meanwhile ``--parties - 1``
honest client processes run a plainsum over mutual TLS.  Per trial (a fresh
hub process, fresh clients) it prints whether every honest party finished,
the honest wall time, how many outsider connections the hub held (its open
descriptors beyond an idle hub's, sampled while the honest run was on), the
hub's peak RSS and how many lines the hub wrote to stderr.

Baseline (``--baseline REF``, default ``main``: that commit's tree, exported
with ``git archive``) and ours (this tree) run interleaved, repeat by repeat;
medians are printed, with the ratio ours / baseline of the honest wall time.

    python -m benchmarks.hostile_hub --outsiders 0 2000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
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


class Outsider(threading.Thread):
    """Holds up to ``count`` silent connections to ``port``, reopening closed ones."""

    def __init__(self, port: int, count: int, rate: float) -> None:
        super().__init__(daemon=True)
        self.port, self.count, self.rate = port, count, rate
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_hub = 0

    def _open(self, sel: selectors.BaseSelector) -> None:
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", self.port))
        sel.register(s, selectors.EVENT_READ)
        self.opened += 1

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        live = 0
        budget, t_last = 0.0, time.monotonic()
        while not self.stop.is_set():
            now = time.monotonic()
            budget = min(budget + (now - t_last) * self.rate, self.rate / 10 + 1)
            t_last = now
            while live < self.count and budget >= 1:
                try:
                    self._open(sel)
                except OSError:
                    break
                live, budget = live + 1, budget - 1
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
                    live -= 1
                    self.closed_by_hub += 1
        for key in list(sel.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def trial(code: Path, outsiders: int, parties: int, rate: float) -> dict[str, object]:
    """One honest run of ``parties`` (hub + clients, each its own process) next to an outsider."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    work = Path(tempfile.mkdtemp(prefix="mpc-rr-hostile-"))
    subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                    "from transports.pki import generate_deployment; "
                    f"generate_deployment({parties}, Path({str(work)!r}), hub_port=0)"],
                   env=env, check=True, cwd=code)  # fmt: skip
    roster = work / "roster.json"
    party = [sys.executable, "-m", "parties.party_main", "--roster", str(roster), "--protocol",
             "plainsum", "--params", '{"cells": 8}', "--timeout", "120", "--linger", "60"]  # fmt: skip
    hub_err = (work / "hub.err").open("w")
    hub = subprocess.Popen([*party, "--id", "0", "--port", "0", "--port-file", str(work / "port"),
                            "--out", str(work / "hub.json")], env=env, cwd=code,
                           stdout=subprocess.DEVNULL, stderr=hub_err)  # fmt: skip
    while not (work / "port").exists():
        if hub.poll() is not None:
            raise RuntimeError(f"hub exited: {(work / 'hub.err').read_text()[-2000:]}")
        time.sleep(0.05)
    port = int((work / "port").read_text())
    idle_fds = _fds(hub.pid)
    attacker = Outsider(port, outsiders, rate)
    attacker.start()
    time.sleep(2.0 if outsiders else 0.0)  # the outsider takes what the hub lets it
    live = json.loads(roster.read_text())
    live["parties"][0]["port"] = port  # the clients find the hub on its real port
    (work / "live.json").write_text(json.dumps(live))
    t0 = time.perf_counter()
    clients = [
        subprocess.Popen([*party, "--roster", str(work / "live.json"), "--id", str(i)], env=env,
                         cwd=code, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for i in range(1, parties)
    ]
    held: list[int] = []
    while any(c.poll() is None for c in clients) and time.perf_counter() - t0 < 150:
        held.append(_fds(hub.pid) - idle_fds)
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    reports = []
    for c in clients:
        out, _ = c.communicate(timeout=30)
        try:
            reports.append(json.loads(out.decode().strip().splitlines()[-1]))
        except (ValueError, IndexError):
            reports.append({"ok": False, "error": "no report"})
    attacker.stop.set()
    attacker.join()
    try:
        hub.wait(timeout=90)
    except subprocess.TimeoutExpired:
        hub.kill()
        hub.wait()
    hub_err.close()
    hub_report = json.loads((work / "hub.json").read_text()) if (work / "hub.json").exists() else {}
    return {
        "ok": sum(bool(r.get("ok")) for r in reports), "of": parties - 1, "wall_s": wall,
        "held": statistics.median(held) if held else 0, "opened": attacker.opened,
        "hub_rss_mb": (hub_report.get("max_rss_bytes") or 0) / 1e6,
        "stderr_lines": len((work / "hub.err").read_text().splitlines()),
        "hub_ok": bool(hub_report.get("ok")),
        "errors": sorted({str(r.get("error"))[:160] for r in reports if not r.get("ok")}),
    }  # fmt: skip


def _export(ref: str) -> Path:
    return export_tree(ref, Path(tempfile.mkdtemp(prefix=f"mpc-rr-{ref.replace('/', '-')}-")))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--outsiders", type=int, nargs="+", default=[0, 2000])
    ap.add_argument("--parties", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rate", type=float, default=2000.0, help="outsider (re)connections per second")
    ap.add_argument("--baseline", default="main", help="git ref of the baseline (default: main)")
    args = ap.parse_args(argv)
    variants = {"baseline": _export(args.baseline), "ours": ROOT}
    rows: dict[tuple[str, int], list[dict[str, object]]] = {}
    for _ in range(args.repeat):
        for k in args.outsiders:
            for name, code in variants.items():  # interleaved: load hits both
                rows.setdefault((name, k), []).append(trial(code, k, args.parties, args.rate))
    print(f"load: {os.getloadavg()[0]:.1f}; {args.parties - 1} honest clients + hub, plainsum over TLS; "
          f"medians of {args.repeat}")  # fmt: skip
    print(f"{'variant':9} {'outsiders':>9} {'honest ok':>10} {'wall s':>7} {'held':>6} "
          f"{'hub RSS MB':>10} {'stderr lines':>12}")  # fmt: skip
    for (name, k), rs in rows.items():
        med = {f: statistics.median(float(r[f]) for r in rs) for f in  # type: ignore[arg-type]
               ("wall_s", "held", "hub_rss_mb", "stderr_lines")}  # fmt: skip
        ok = f"{min(int(r['ok']) for r in rs)}/{rs[0]['of']}"  # type: ignore[call-overload]
        print(f"{name:9} {k:>9} {ok:>10} {med['wall_s']:>7.2f} {med['held']:>6.0f} "
              f"{med['hub_rss_mb']:>10.0f} {med['stderr_lines']:>12.0f}")  # fmt: skip
    for k in args.outsiders:
        b = statistics.median(float(r["wall_s"]) for r in rows[("baseline", k)])  # type: ignore[arg-type]
        o = statistics.median(float(r["wall_s"]) for r in rows[("ours", k)])  # type: ignore[arg-type]
        print(f"outsiders {k}: honest wall ours / baseline = {o / b:.2f}")


if __name__ == "__main__":
    main()
