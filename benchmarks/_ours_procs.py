"""One multi-process run of ours for the MPyC comparison, in a fresh runner process.

``python -m benchmarks._ours_procs --protocol secagg --parties 4 --cells 1582 --seed 0
--launch auto`` prints one JSON object (results checked against the plaintext sum,
protocol time, bytes, each party's ``startup_s``).  ``benchmarks.secure_sum`` times this
whole process, so our ``processes_s`` includes the runner's own interpreter and imports
and, with ``--launch auto`` (a fork of this runner) or ``fork-server``, the imports of
the parties' modules: nothing is warm from an earlier run.
"""

from __future__ import annotations

import argparse
import json
import statistics

from parties.launch import preload_modules, resolve_launch, start_launcher
from parties.procs import run_processes  # light: the fork server starts before the heavy imports


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--protocol", required=True)
    ap.add_argument("--parties", type=int, required=True, help="hub included")
    ap.add_argument("--cells", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--launch", choices=("auto", "fork", "fork-server", "exec"), required=True)
    a = ap.parse_args()
    # the fork server first (it imports the parties' modules on one core); this runner's own
    # result check needs numpy, imported meanwhile instead of after the run
    start_launcher(resolve_launch(a.launch), preload_modules(a.protocol))
    import numpy as np

    from mpc_rr.secure_sum import expected_total

    r = run_processes(
        a.protocol, a.parties, seed=a.seed, params={"cells": a.cells}, timeout=300, launch=a.launch
    )
    m = a.parties - 1
    if not r.ok or not np.array_equal(r.results[0]["total"], expected_total(m, a.seed, a.cells)):
        raise SystemExit(f"{a.protocol} over processes failed: {r.errors}")
    st = r.costs.parties
    print(json.dumps({
        "protocol_s": max(s.wall_s for s in st.values()),
        "ready_s": statistics.median(float(rep.get("startup_s") or "nan") for rep in r.reports.values()),
        "bytes_per_party": statistics.mean(st[i].bytes_sent for i in range(1, m + 1)),
        "aggregator_bytes": st[0].bytes_sent,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
