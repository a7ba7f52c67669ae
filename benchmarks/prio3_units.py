"""Prio3 per report in X25519 agreements: a client's shard and each aggregator's verification,
a baseline revision against this checkout.

Run ``python -m benchmarks.prio3_units [--baseline REV] [--repeats 3] [--quick]``.

Each measurement runs in a fresh interpreter, the baseline's tree (``git
archive`` of ``--baseline``) and this checkout alternating, ``--repeats``
times.  A child times, in one process and interleaved call by call (CPU
time, ``process_time``, medians):

* one X25519 agreement (``cryptography``), the yardstick -- every figure is
  printed in ms and in agreements, so a loaded machine shifts both alike;
* a client's ``shard`` (encode, share, prove) of one report, in bursts of
  about 2 ms of shards (warm caches, as in a client's loop);
* the leader's and the helper's ``verify_init`` per report, over a batch of
  32 reports (the FLP query vectorized over the batch, as the aggregators run it).

The circuits: Prio3Histogram with 10 buckets and Prio3SumVec of 1,582 cells
(``max_measurement`` 1, the pipeline's pair cells of Adult; a measurement
with 28 ones, as a client of that pipeline sends), each at the chunk length
the product picks (``default_chunk``) and at the draft's ``~sqrt``, over
Field128 with one proof (the draft's registered variants) and Field64 with
three (the pipeline's default).  The parent prints the medians over the
fresh processes, the ratio this checkout / baseline and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "2d62709"  # Prio3 with Field128 as numpy object arrays of Python integers
CASES = [  # name, circuit, length, chunk ("default" or "sqrt"), field, proofs
    ("Histogram(10)", "histogram", 10, "default", "Field128", 1),
    ("Histogram(10)", "histogram", 10, "sqrt", "Field128", 1),
    ("SumVec(1582)", "sumvec", 1582, "default", "Field128", 1),
    ("SumVec(1582)", "sumvec", 1582, "sqrt", "Field128", 1),
    ("Histogram(10)", "histogram", 10, "default", "Field64", 3),
    ("SumVec(1582)", "sumvec", 1582, "default", "Field64", 3),
]
MEASURES = ("x25519_ms", "shard_ms", "leader_ms", "helper_ms")


def _cpu_medians(funcs: dict[str, tuple[Any, int]], repeat: int) -> dict[str, float]:
    """CPU seconds per call, median over ``repeat`` rounds; each round times every function in a
    burst of its ``calls`` (so a call runs with warm caches, as in a client's or an aggregator's
    loop), the functions interleaved round by round."""
    samples: dict[str, list[float]] = {k: [] for k in funcs}
    for f, _ in funcs.values():
        f()  # warm-up: the FLP's cached matrices
    for _ in range(repeat):
        for k, (f, calls) in funcs.items():
            c = time.process_time()
            for _ in range(calls):
                f()
            samples[k].append((time.process_time() - c) / calls)
    return {k: statistics.median(v) for k, v in samples.items()}


def _measure(v: Any, meas: Any, ctx: bytes, batch: int, x25519: Any, repeat: int) -> dict[str, float]:
    """CPU medians (s) of one X25519 batch, one shard and a batch's verification per aggregator."""
    nonces = [os.urandom(16) for _ in range(batch)]
    reps = [v.shard_encoded(ctx, meas, n, os.urandom(v.RAND_SIZE)) for n in nonces]
    vk, pubs = os.urandom(32), [r[0] for r in reps]
    lead, help_ = [r[1][0] for r in reps], [r[1][1] for r in reps]
    burst = max(1, int(2e-3 // max(1e-6, _once(v, meas, ctx, nonces[0]))))  # ~2 ms of shards
    return _cpu_medians({
        "x25519": (x25519, 1),
        "shard": (lambda: v.shard_encoded(ctx, meas, nonces[0], os.urandom(v.RAND_SIZE)), burst),
        "leader": (lambda: v.verify_init_batch(vk, ctx, 0, nonces, pubs, lead), 1),
        "helper": (lambda: v.verify_init_batch(vk, ctx, 1, nonces, pubs, help_), 1),
    }, repeat)  # fmt: skip


def _once(v: Any, meas: Any, ctx: bytes, nonce: bytes) -> float:
    c = time.process_time()
    v.shard_encoded(ctx, meas, nonce, os.urandom(v.RAND_SIZE))
    return time.process_time() - c


def _child(quick: bool, only: str) -> dict[str, Any]:
    import numpy as np
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from mpc_rr.secure_sum.prio3 import Field64, Field128, Histogram, Prio3, SumVec, default_chunk

    sk, pk = X25519PrivateKey.generate(), X25519PrivateKey.generate().public_key()
    agreements = 200

    def x25519() -> None:
        for _ in range(agreements):
            sk.exchange(pk)

    ctx, batch, out = b"bench", 32, {}
    for name, circuit, length, chunk_rule, field_name, proofs in CASES:
        if only not in f"{name} {chunk_rule} {field_name}":
            continue
        field = {"Field64": Field64, "Field128": Field128}[field_name]
        chunk = default_chunk(length) if chunk_rule == "default" else max(1, int(length**0.5))
        if circuit == "histogram":
            v = Prio3(Histogram(length, chunk, field=field), proofs=proofs)
            meas = v.valid.encode(length // 2)
        else:
            v = Prio3(SumVec(length, 1, chunk, field=field), proofs=proofs)
            x = np.zeros(length, np.int64)
            x[np.random.default_rng(0).choice(length, 28, replace=False)] = 1
            meas = v.valid.encode(x)
        heavy = circuit == "sumvec" and chunk_rule == "sqrt"
        reps_n = (5 if heavy else 9) if quick else (9 if heavy else 21)
        med = _measure(v, meas, ctx, batch, x25519, reps_n)
        key = f"{name} chunk {chunk} {field_name}/{proofs}"
        out[key] = {
            "x25519_ms": 1e3 * med["x25519"] / agreements,
            "shard_ms": 1e3 * med["shard"],
            "leader_ms": 1e3 * med["leader"] / batch,
            "helper_ms": 1e3 * med["helper"] / batch,
        }
    return {"cases": out, "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.prio3_units", description=__doc__.splitlines()[0])
    p.add_argument("--baseline", default=BASELINE, help="git revision to compare with ('' = none)")
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per tree")
    p.add_argument("--quick", action="store_true", help="fewer calls per measurement")
    p.add_argument("--only", default="", help="only the cases whose name contains this (e.g. Histogram)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        res = _child(a.quick, a.only)
        print(json.dumps(res))
        return res
    from benchmarks._baseline import export_tree, run_child

    with tempfile.TemporaryDirectory(prefix="mpc-rr-baseline-") as tmp:
        trees: dict[str, Path] = {}
        if a.baseline:
            trees[f"baseline {a.baseline}"] = export_tree(a.baseline, Path(tmp))
        trees["this checkout"] = ROOT
        runs: dict[str, list[dict[str, Any]]] = {k: [] for k in trees}
        for _ in range(a.repeats):
            for name, tree in trees.items():
                args = (["--quick"] if a.quick else []) + ([f"--only={a.only}"] if a.only else [])
                runs[name].append(run_child(__file__, tree, args))
    loads = [float(r["load"]) for rs in runs.values() for r in rs]
    med = {
        name: {case: {m: statistics.median(float(r["cases"][case][m]) for r in rs) for m in MEASURES}
               for case in rs[0]["cases"]}
        for name, rs in runs.items()
    }  # fmt: skip
    print(f"Prio3 per report, CPU medians of {a.repeats} interleaved fresh processes per tree; "
          f"load average {min(loads):.1f}-{max(loads):.1f} (2 cores); X = one X25519 agreement")  # fmt: skip
    print(f"  {'case':38} {'code':18} {'X25519':>8} {'shard':>16} {'leader verify':>16} {'helper verify':>16}")
    for case in med["this checkout"]:
        for name in trees:
            r = med[name][case]
            x = r["x25519_ms"]
            cells = [f"{r[m]:7.3f} ms {r[m] / x:5.1f}X" for m in MEASURES[1:]]
            print(f"  {case:38} {name:18} {1e3 * x:6.1f}us " + " ".join(f"{c:>16}" for c in cells))
        if len(trees) == 2:
            base, new = (med[k][case] for k in trees)
            ratios = [(new[m] / new["x25519_ms"]) / (base[m] / base["x25519_ms"]) for m in MEASURES[1:]]
            print(f"  {'':38} {'new / baseline':18} {'':>8} " + " ".join(f"{q:>16.3f}" for q in ratios))
    return {"medians": med, "load": loads}


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
