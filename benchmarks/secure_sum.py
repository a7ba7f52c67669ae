"""Secure-sum benchmarks: Adult's exact bivariate counts with SecAgg+, full mesh vs SecAgg+.

Run ``python -m benchmarks.secure_sum [--part adult|sweep|all] [--quick]``.

* ``adult``: all of Adult (32,561 parties, 1,582 cells) with SecAgg+ over the
  in-memory transport (``--transport``; virtual time): exactness against the
  plaintext crosstabs, wall and CPU time, messages and bytes per party and for
  the aggregator; then again with 10% of the parties dropping out after
  sending their masked input.
* ``sweep``: the faithful full mesh (Sec. 4.2, all-to-all) and the board
  variant against SecAgg+ for growing n, same inputs, same run: medians of
  wall time, messages, bytes, and the measured crossover n.

Timings are medians; the machine is shared (see the load average printed),
so compare the ratios, not absolute seconds.  CPU time (``process_time``) is
reported next to wall time because it is less sensitive to contention.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from mpc_rr.datasets import ADULT_SCHEMA, load_adult
from mpc_rr.pair_cells import PairLayout, crosstabs
from mpc_rr.secure_sum.simulate import SumReport, run_secure_sum

ADULT_DEGREE = 12
ADULT_FAILURE = 1e-3


def _load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _run(protocol: str, x: np.ndarray, **kw) -> tuple[SumReport, float]:
    c0 = time.process_time()
    rep = run_secure_sum(protocol, x, **kw)
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
        print(
            f"  {label:30s} exact={rep.exact} tables==crosstabs={tables_ok} "
            f"survivors={rep.survivors} included_inputs={rep.survivors} "
            f"t={rep.params.get('threshold')} wall={rep.wall_s:.1f}s cpu={cpu:.1f}s "
            f"messages={rep.messages} ({rep.messages / n:.1f}/party) "
            f"bytes/party sent={rep.bytes_per_party_sent:.0f} recv={rep.bytes_per_party_received:.0f} "
            f"aggregator sent={rep.aggregator_bytes_sent / 1e6:.1f}MB "
            f"recv={rep.aggregator_bytes_received / 1e6:.1f}MB; {_load()}",
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
                rep, cpu = _run(
                    protocol, x, seed=r, max_dropout=0.1, count_bytes=(r == 0), transport=transport
                )
                if r == 0:
                    first = rep
                assert rep.exact, (protocol, n, d, rep.aborted)
                walls.append(rep.wall_s)
                cpus.append(cpu)
            rows[protocol] = (statistics.median(walls), statistics.median(cpus), first)
        base_wall, _, base = rows["secagg"]
        for protocol, (wall, cpu, rep) in rows.items():
            print(
                f"  {n:>5} {d:>5} {protocol:16} {wall:8.3f} {cpu:8.3f} {rep.messages:>9} "
                f"{rep.bytes:>12} {wall / base_wall:10.2f} {rep.bytes / base.bytes:11.2f}",
                flush=True,
            )
        c = crossover.setdefault(d, {"wall": None, "bytes": None})
        if c["wall"] is None and rows["full-mesh"][0] > base_wall:
            c["wall"] = n
        if c["bytes"] is None and rows["full-mesh"][2].bytes > base.bytes:
            c["bytes"] = n
    for d, c in crossover.items():
        print(
            f"  crossover D={d}: SecAgg+ cheaper than the all-to-all full mesh from n = "
            f"{c['wall']} (wall time) and n = {c['bytes']} (bytes), among the n measured"
        )
    print(f"  {_load()}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.secure_sum")
    p.add_argument("--part", choices=("adult", "sweep", "all"), default="all")
    p.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    p.add_argument("--transport", choices=("memory", "harness", "tcp"), default="memory")
    args = p.parse_args(argv)
    if args.part in ("sweep", "all"):
        sweep(args.quick, args.transport)
    if args.part in ("adult", "all"):
        adult(args.quick, args.transport)


if __name__ == "__main__":
    main()
