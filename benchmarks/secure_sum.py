"""Secure-sum benchmarks: Adult's exact bivariate counts with SecAgg+, full mesh vs SecAgg+.

Run ``python -m benchmarks.secure_sum [--part adult|sweep|all] [--quick]``.

* ``adult``: all of Adult (32,561 parties, 1,582 cells) with SecAgg+ over the
  in-memory transport (``--transport``; virtual time): exactness against the
  plaintext crosstabs, wall and CPU time, messages and bytes per party and for
  the aggregator; then again with 10% of the parties dropping out after
  sending their masked input.
* ``mpyc``: MPyC (installed into the venv by the benchmark, never a project
  dependency) against ours, one OS process per party, m = 3, 5, 7:
  ``processes_s`` (launch of the first process to exit of the last; ours:
  of a fresh runner process, ``benchmarks._ours_procs``, that starts the
  parties, so its own start-up counts too) and ``ready_s`` (median process
  age when a party is about to connect: imports and set-up done; ours
  report it as ``startup_s``).  Ours runs with the default launch
  (``auto``: the runner imports once and forks the parties) and, as ``exec``,
  with a fresh interpreter per party (what each host pays on its own).
* ``sweep``: the full mesh (Sec. 4.2, all-to-all, shares encrypted end to
  end after a key step) and the board variant against SecAgg+ for growing n,
  same inputs, same run: medians of
  wall time, messages, bytes, and the measured crossover n.

Timings are medians; the machine is shared (see the load average printed),
so compare the ratios, not absolute seconds.  CPU time (``process_time``) is
reported next to wall time because it is less sensitive to contention.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from mpc_rr.data import ADULT_SCHEMA, load_adult
from mpc_rr.mdrr import PairLayout
from mpc_rr.mdrr._pair_cells import crosstabs
from mpc_rr.workflows import SumReport, run_secure_sum
from parties.runners import runner_for

ADULT_DEGREE = 12
ADULT_FAILURE = 1e-3


def _load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _run(protocol: str, x: np.ndarray, transport: str = "memory", **kw) -> tuple[SumReport, float]:
    c0 = time.process_time()
    rep = run_secure_sum(protocol, x, runner=runner_for(transport), **kw)
    return rep, time.process_time() - c0


def adult(quick: bool = False, transport: str = "memory") -> None:
    ds = load_adult()
    codes = ds.codes[:3000] if quick else ds.codes
    lay = PairLayout(ADULT_SCHEMA.sizes)
    x = lay.one_hot(codes)
    n = x.shape[0]
    print(
        f"Adult: {n} parties x {lay.cells} cells, SecAgg+ degree {ADULT_DEGREE}, "
        f"transport {transport}; {_load()}"
    )
    for label, kw in (
        ("no dropout", {}),
        ("10% drop after masked input", {"dropout": 0.1, "drop_step": "unmask"}),
    ):
        rep, cpu = _run(
            "secagg",
            x,
            seed=1,
            degree=ADULT_DEGREE,
            failure=ADULT_FAILURE,
            max_dropout=0.1,
            **kw,
        )
        tables_ok = rep.total is not None and all(
            np.array_equal(lay.decode(rep.total)[k], t)
            for k, t in crosstabs(codes, ADULT_SCHEMA.sizes).items()
        )
        c = rep.costs
        dp, co = c.data_parties()["mean"], c.coordinator()
        print(
            f"  {label:30s} exact={rep.exact} tables==crosstabs={tables_ok} "
            f"survivors={rep.survivors} included_inputs={rep.survivors} "
            f"t={rep.params.get('threshold')} wall={c.wall_s:.1f}s cpu={cpu:.1f}s "
            f"messages={c.messages} ({c.messages / n:.1f}/party) "
            f"bytes/party sent={dp['bytes_sent']:.0f} recv={dp['bytes_received']:.0f} "
            f"aggregator sent={co['bytes_sent'] / 1e6:.1f}MB "
            f"recv={co['bytes_received'] / 1e6:.1f}MB; {_load()}",
            flush=True,
        )


def sweep(quick: bool = False, transport: str = "memory") -> None:
    rng = np.random.default_rng(0)
    grid = [(n, 1582) for n in (10, 30, 50, 100, 200, 300)] + [
        (n, 16) for n in (10, 50, 100, 300, 1000)
    ]
    if quick:
        grid = [(10, 1582), (30, 1582), (100, 1582), (10, 16), (100, 16)]
    print(f"full mesh vs SecAgg+ (medians), transport {transport}; {_load()}")
    print(
        f"  {'n':>5} {'D':>5} {'protocol':16} {'wall_s':>8} {'cpu_s':>8} {'messages':>9} "
        f"{'bytes':>12} {'ratio_wall':>10} {'ratio_bytes':>11}"
    )
    crossover: dict[int, dict[str, int | None]] = {}
    for n, d in grid:
        x = np.zeros((n, d), np.uint8)
        x[np.arange(n), rng.integers(0, d, n)] = 1
        reps = 3 if n * n * d <= 300 * 300 * 1582 // 4 else 1
        rows = {}
        for protocol in ("full-mesh", "full-mesh-board", "secagg"):
            walls, cpus = [], []
            for r in range(reps):
                tol = {"max_dropout": 0.1} if protocol == "secagg" else {}
                rep, cpu = _run(protocol, x, seed=r, transport=transport, **tol)
                if r == 0:
                    first = rep
                assert rep.exact, (protocol, n, d, rep.aborted)
                walls.append(rep.costs.wall_s)
                cpus.append(cpu)
            rows[protocol] = (statistics.median(walls), statistics.median(cpus), first)
        base_wall, _, base = rows["secagg"]
        for protocol, (wall, cpu, rep) in rows.items():
            print(
                f"  {n:>5} {d:>5} {protocol:16} {wall:8.3f} {cpu:8.3f} {rep.costs.messages:>9} "
                f"{rep.costs.bytes:>12} {wall / base_wall:10.2f} "
                f"{rep.costs.bytes / base.costs.bytes:11.2f}",
                flush=True,
            )
        c = crossover.setdefault(d, {"wall": None, "bytes": None})
        if c["wall"] is None and rows["full-mesh"][0] > base_wall:
            c["wall"] = n
        if c["bytes"] is None and rows["full-mesh"][2].costs.bytes > base.costs.bytes:
            c["bytes"] = n
    for d, c in crossover.items():
        print(
            f"  crossover D={d}: SecAgg+ cheaper than the all-to-all full mesh from n = "
            f"{c['wall']} (wall time) and n = {c['bytes']} (bytes), among the n measured"
        )
    print(f"  {_load()}")


def _mpyc_available() -> bool:
    """MPyC is a benchmark-only peer: install it into this venv on first use, else skip."""
    try:
        import mpyc  # noqa: F401

        return True
    except ImportError:
        pass
    r = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "mpyc"], capture_output=True, text=True
    )
    if r.returncode != 0:
        print(f"  MPyC comparison skipped: pip install mpyc failed: {r.stderr.strip()[-300:]}")
        return False
    return True


def _run_mpyc(m: int, cells: int, seed: int) -> dict[str, float]:
    prog = Path(__file__).with_name("_mpyc_sum.py")
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(prog),
                f"-M{m}",
                f"-I{i}",
                "--cells",
                str(cells),
                "--seed",
                str(seed),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for i in range(m)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    total_wall = time.perf_counter() - t0
    walls, sent, elapsed, ready = [], [], [], []
    for out in outs:
        hit = re.search(r"RESULT pid=\d+ sum=(\d+) wall=([\d.]+) bytes_sent=(\d+) ready=([\d.na]+)", out)
        if hit is None:
            raise RuntimeError(f"MPyC party failed:\n{out[-2000:]}")
        if int(hit.group(1)) != m:
            raise RuntimeError(f"MPyC sum {hit.group(1)} != {m}")
        walls.append(float(hit.group(2)))
        sent.append(int(hit.group(3)))
        ready.append(float(hit.group(4)))
        e = re.search(r"elapsed time: (\d+):(\d+):([\d.]+)", out)
        if e:
            elapsed.append(int(e.group(1)) * 3600 + int(e.group(2)) * 60 + float(e.group(3)))
    return {
        "protocol_s": max(walls),
        "session_s": max(elapsed) if elapsed else float("nan"),
        "processes_s": total_wall,
        "ready_s": statistics.median(ready),
        "bytes_per_party": statistics.mean(sent),
    }


def _run_ours(protocol: str, m: int, cells: int, seed: int, launch: str) -> dict[str, float]:
    """One run of ours in a fresh runner process (``benchmarks._ours_procs``), timed whole."""
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "benchmarks._ours_procs", "--protocol", protocol,
         "--parties", str(m + 1), "--cells", str(cells), "--seed", str(seed), "--launch", launch],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    total_wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{protocol} over processes ({launch}) failed:\n{r.stderr[-2000:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return {**out, "session_s": float("nan"), "processes_s": total_wall}


def mpyc_compare(quick: bool = False, repeat: int = 3) -> None:
    """Secure sum of a 1,582-cell one-hot vector with m = 3, 5, 7 parties, one process each."""
    if not _mpyc_available():
        return
    cells = 1582
    print(f"MPyC (-M m, one process per party, TCP) vs ours (one process per party, TCP + mutual "
          f"TLS via the hub), D = {cells}, medians of {repeat}; {_load()}")  # fmt: skip
    print(f"  {'m':>3} {'system':18} {'protocol_s':>10} {'processes_s':>11} {'ready_s':>7} "
          f"{'bytes/party':>11} {'aggregator':>10}")  # fmt: skip
    for m in (3, 5) if quick else (3, 5, 7):
        systems = {
            "mpyc": lambda s, m=m: _run_mpyc(m, cells, s),
            "ours secagg": lambda s, m=m: _run_ours("secagg", m, cells, s, "auto"),
            "ours secagg exec": lambda s, m=m: _run_ours("secagg", m, cells, s, "exec"),
            "ours mesh-board": lambda s, m=m: _run_ours("full-mesh-board", m, cells, s, "auto"),
        }
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in systems}
        for seed in range(repeat):  # interleaved, so load changes hit every system alike
            for name, fn in systems.items():
                runs[name].append(fn(seed))
        rows = {
            name: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for name, rs in runs.items()
        }
        base = rows["mpyc"]
        for name, r in rows.items():
            print(
                f"  {m:>3} {name:18} {r['protocol_s']:10.3f} {r['processes_s']:11.2f} "
                f"{r['ready_s']:7.2f} {r['bytes_per_party']:11.0f} {r.get('aggregator_bytes', 0):10.0f}"
                f"   ratio to MPyC: protocol time {r['protocol_s'] / base['protocol_s']:.2f}, "
                f"bytes/party {r['bytes_per_party'] / base['bytes_per_party']:.2f}, "
                f"processes {r['processes_s'] / base['processes_s']:.2f}, "
                f"ready {r['ready_s'] / base['ready_s']:.2f}",
                flush=True,
            )
        print(f"  MPyC formula (m-1+t)(8d+12) with t=(m-1)//2: "
              f"{(m - 1 + (m - 1) // 2) * (8 * cells + 12)}")  # fmt: skip
    print(f"  {_load()}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.secure_sum")
    p.add_argument("--part", choices=("adult", "sweep", "mpyc", "all"), default="all")
    p.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    p.add_argument("--transport", choices=("memory", "harness", "tcp"), default="memory")
    args = p.parse_args([] if argv is None else argv)  # ``python -m benchmarks`` passes none
    if args.part in ("sweep", "all"):
        sweep(args.quick, args.transport)
    if args.part in ("adult", "all"):
        adult(args.quick, args.transport)
    if args.part in ("mpyc", "all"):
        mpyc_compare(args.quick)


if __name__ == "__main__":
    main(sys.argv[1:])
