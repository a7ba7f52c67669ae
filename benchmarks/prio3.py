"""Prio3's cost next to SecAgg+: client proof, report size, verification, whole runs.

Run ``python -m benchmarks.prio3 [--part micro|runs|adult|all] [--quick]``.

* ``micro``: Prio3Histogram at 4, 16, 256 and 1,582 buckets (Field128, 1
  proof; and Field64, 3 proofs): the client's ``shard`` (encode, share,
  prove) per report, the bytes it uploads, and each aggregator's
  ``verify_init`` per report (batches of 64, the FLP query vectorized over
  the batch); interleaved calls, medians.
* ``runs``: whole secure sums of one-hot vectors, ``n`` parties, same
  lengths: ``prio3 --circuit histogram`` against ``secagg``, each run in a
  fresh process, the two alternating; medians of wall time and bytes per
  party, and the ratio.
* ``adult``: the pipeline's secure-sum dependence on an Adult subsample
  (``--parties``, default 1,000) with ``--sum prio3`` and ``--sum secagg``,
  alternating fresh processes; medians and the ratio.

libprio-rs (Rust) publishes about 15 microseconds to shard a 10-bucket
histogram; ours is Python over numpy (Field128 elements are Python ints).
The machine is shared: the load average is printed; compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from benchmarks._timing import median_times


def _median_cpu(funcs: dict[str, Any], repeat: int) -> dict[str, float]:
    """Median CPU time (process_time, less sensitive to a loaded machine) per call, interleaved."""
    samples: dict[str, list[float]] = {k: [] for k in funcs}
    for _ in range(repeat):
        for k, f in funcs.items():
            c = time.process_time()
            f()
            samples[k].append(time.process_time() - c)
    return {k: statistics.median(v) for k, v in samples.items()}


def _micro_one(length: int, field: type | None, proofs: int, repeat: int) -> dict[str, object]:
    from mpc_rr.secure_sum.prio3 import Histogram, Prio3

    ctx = b"bench"
    chunk = max(1, int(length**0.5))
    valid = Histogram(length, chunk) if field is None else Histogram(length, chunk, field=field)
    v = Prio3(valid, proofs=proofs)
    meas = v.valid.encode(length // 2)
    nonces = [os.urandom(16) for _ in range(64)]
    reps = [v.shard_encoded(ctx, meas, n, os.urandom(v.RAND_SIZE)) for n in nonces]
    vk = os.urandom(32)
    pubs = [r[0] for r in reps]
    leader, helper = [r[1][0] for r in reps], [r[1][1] for r in reps]
    funcs = {
        "shard": lambda: v.shard_encoded(ctx, meas, nonces[0], os.urandom(v.RAND_SIZE)),
        "leader64": lambda: v.verify_init_batch(vk, ctx, 0, nonces, pubs, leader),
        "helper64": lambda: v.verify_init_batch(vk, ctx, 1, nonces, pubs, helper),
    }
    t = median_times(funcs, repeat=repeat, warmup=1)
    c = _median_cpu(funcs, repeat)
    up = 16 + len(pubs[0]) + len(leader[0]) + len(helper[0]) + 16 + 32
    return {
        "buckets": length, "field": v.field.NAME, "proofs": proofs,
        "shard_ms": 1e3 * t["shard"], "report_bytes": up,
        "leader_verify_ms_per_report": 1e3 * t["leader64"] / 64,
        "helper_verify_ms_per_report": 1e3 * t["helper64"] / 64,
        "cpu_shard_ms": 1e3 * c["shard"], "cpu_leader_verify_ms_per_report": 1e3 * c["leader64"] / 64,
        "cpu_helper_verify_ms_per_report": 1e3 * c["helper64"] / 64,
    }  # fmt: skip


def _micro(lengths: list[int], repeat: int) -> list[dict[str, object]]:
    from mpc_rr.secure_sum.prio3 import Field64

    rows = []
    for length in lengths:
        for field, proofs in ((None, 1), (Field64, 3)):
            rows.append(_micro_one(length, field, proofs, repeat))
            print(json.dumps(rows[-1]), flush=True)
    return rows


_RUN = """
import json, sys, time, numpy as np
from mpc_rr.workflows import run_secure_sum
n, d, proto = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
x = np.zeros((n, d), np.int64); x[np.arange(n), np.random.default_rng(0).integers(0, d, n)] = 1
opts = {"circuit": "histogram"} if proto == "prio3" else {}
t = time.perf_counter(); c = time.process_time()
rep = run_secure_sum(proto, x, seed=0, **opts)
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "exact": rep.exact,
                  "bytes_per_party": rep.costs.bytes / n}))
"""


def _fresh(code: str, *args: str, tree: str | None = None) -> dict[str, float]:
    """Run ``code`` in a fresh interpreter (``tree``: with that exported revision's code)."""
    env = None
    if tree is not None:
        from mpc_rr.data import data_dir

        env = dict(os.environ, PYTHONPATH=tree, MPC_RR_DATA=str(data_dir()))
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, env=env,
        cwd=tree,
    )  # fmt: skip
    last: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return last


def _alternate(code: str, args: dict[str, list[str]], repeat: int,
               trees: dict[str, str] | None = None) -> dict[str, dict[str, float]]:  # fmt: skip
    samples: dict[str, list[dict[str, float]]] = {k: [] for k in args}
    for _ in range(repeat):
        for k, a in args.items():
            samples[k].append(_fresh(code, *a, tree=(trees or {}).get(k)))
    return {
        k: {m: statistics.median(float(s[m]) for s in v) for m in v[0] if m != "exact"} | {"exact": all(s.get("exact", True) for s in v)}
        for k, v in samples.items()
    }  # fmt: skip


def _runs(n: int, lengths: list[int], repeat: int) -> list[dict[str, object]]:
    rows = []
    for d in lengths:
        med = _alternate(_RUN, {p: [str(n), str(d), p] for p in ("secagg", "prio3")}, repeat)
        row = {"n": n, "cells": d, **{f"{p}_{m}": v for p, r in med.items() for m, v in r.items()},
               "wall_ratio_prio3_over_secagg": med["prio3"]["wall"] / med["secagg"]["wall"]}  # fmt: skip
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


_ADULT = """
import json, sys, time
from mpc_rr.data import load_adult
from mpc_rr.workflows import RunOptions
from mpc_rr.workflows._pipeline import run_and_evaluate
from parties.runners import runner_for
n, s = int(sys.argv[1]), sys.argv[2]
t = time.perf_counter(); c = time.process_time()
res, ex = run_and_evaluate(RunOptions(parties=n, seed=1, queries=10, dependence="secure-sum", sum=s),
                           runner_for("harness"), load_adult())
print(json.dumps({"wall": time.perf_counter() - t, "cpu": time.process_time() - c,
                  "dependence_s": res["timing"]["phases_s"]["dependence"], "bytes": res["cost"]["bytes"]}))
"""


def _adult(n: int, repeat: int, baseline: str | None = None) -> dict[str, object]:
    """SecAgg+ and prio3 (and prio3 at revision ``baseline``, exported) alternating."""
    import tempfile

    from benchmarks._baseline import export_tree

    args = {s: [str(n), s] for s in ("secagg", "prio3")}
    trees: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if baseline is not None:
            args[f"prio3@{baseline}"] = [str(n), "prio3"]
            trees[f"prio3@{baseline}"] = str(export_tree(baseline, __import__("pathlib").Path(tmp)))
        med = _alternate(_ADULT, args, repeat, trees)
    row = {"parties": n, **{f"{s}_{m}": v for s, r in med.items() for m, v in r.items()},
           "dependence_ratio_prio3_over_secagg": med["prio3"]["dependence_s"] / med["secagg"]["dependence_s"],
           "cpu_ratio_prio3_over_secagg": med["prio3"]["cpu"] / med["secagg"]["cpu"]}  # fmt: skip
    if baseline is not None:
        b = med[f"prio3@{baseline}"]
        row["dependence_ratio_baseline_prio3_over_secagg"] = b["dependence_s"] / med["secagg"]["dependence_s"]
        row["speedup_prio3_vs_baseline"] = b["dependence_s"] / med["prio3"]["dependence_s"]
    print(json.dumps(row), flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("micro", "runs", "adult", "all"), default="all")
    ap.add_argument("--quick", action="store_true", help="fewer repeats, smaller runs")
    ap.add_argument("--parties", type=int, default=1000, help="adult: parties of the subsample")
    ap.add_argument("--baseline", default=None, help="adult: also prio3 at this git revision (e.g. main)")
    ap.add_argument("--repeat", type=int, default=None, help="fresh processes per variant")
    args = ap.parse_args(argv)
    print(f"load average: {os.getloadavg()}", flush=True)
    lengths = [4, 16, 256, 1582]
    t0 = time.perf_counter()
    if args.part in ("micro", "all"):
        _micro(lengths, 3 if args.quick else 7)
    if args.part in ("runs", "all"):
        _runs(20 if args.quick else 50, lengths, 1 if args.quick else 3)
    if args.part in ("adult", "all"):
        _adult(200 if args.quick else args.parties, args.repeat or (1 if args.quick else 3), args.baseline)
    print(f"load average: {os.getloadavg()}; {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
