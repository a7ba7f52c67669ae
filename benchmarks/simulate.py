"""Schedules per second of the fault-schedule simulator, per protocol, and the violations found.

Run ``python -m benchmarks.simulate [--schedules N] [--parties P] [--byzantine F]
[--protocols A,B] [--workers W] [--shrink] [--json]``: for each registered sum protocol
(default: all), ``N`` seeded schedules (``mpc-rr simulate``'s, from seed 0) over ``W`` worker
processes (default: one per core), violations not shrunk unless ``--shrink``; prints the wall time, the schedules per second (per process and in
all), the deliveries and deadlines per schedule, and the violating seeds with their kinds.
The machine is shared: the load average before and after is printed.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time

from mpc_rr.secure_sum import sum_protocol_names
from parties.cores import available_cores
from scenarios.simulation import simulate_over_cores


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.simulate", description=__doc__)
    p.add_argument("--schedules", type=int, default=2000)
    p.add_argument("--parties", type=int, default=5)
    p.add_argument("--byzantine", type=int, default=1)
    p.add_argument("--protocols", default=",".join(sum_protocol_names()))
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--shrink", action="store_true", help="shrink each violation (not part of the rate)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    workers = a.workers or available_cores()
    rows = []
    print(f"load before: {_load()}; {workers} worker(s); {a.schedules} schedules per protocol, "
          f"{a.parties} data parties, {a.byzantine} byzantine", flush=True)  # fmt: skip
    for name in a.protocols.split(","):
        t0 = time.perf_counter()
        c = simulate_over_cores(name, a.schedules, workers=workers, parties=a.parties, byzantine=a.byzantine,
                                shrink_found=a.shrink)  # fmt: skip
        wall = time.perf_counter() - t0
        kinds = collections.Counter(v.kind for f in c.found for v in f.outcome.violations)
        row = {"protocol": name, "schedules": c.schedules, "wall_s": round(wall, 2),
               "schedules_per_s": round(c.schedules / wall, 1),
               "per_process_per_s": round(c.schedules / wall / workers, 1),
               "steps_per_schedule": round(c.steps / c.schedules, 1),
               "violating": len(c.found), "kinds": dict(kinds),
               "first_seeds": [f.seed for f in c.found[:10]], "load_after": _load()}  # fmt: skip
        rows.append(row)
        print(f"{name:16s} {c.schedules:7d} schedules in {wall:7.1f} s: {row['schedules_per_s']:7.1f}/s "
              f"({row['per_process_per_s']}/s per process), {row['steps_per_schedule']} steps each; "
              f"violating {len(c.found)} {dict(kinds)} seeds {row['first_seeds']}; load {row['load_after']}",
              flush=True)  # fmt: skip
    report = {"workers": workers, "parties": a.parties, "byzantine": a.byzantine, "rows": rows}
    if a.json:
        print(json.dumps(report))
    return report


if __name__ == "__main__":
    main()
