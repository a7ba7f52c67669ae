"""Core-seconds per party of SecAgg+ over the memory transport, next to the crypto floor.

Runs one workload in fresh child processes, for the code of this checkout and
for a baseline revision (``--baseline``, default: the commit before the hot
path work) extracted with ``git archive``; the two are interleaved repeat by
repeat so that the load of a shared machine hits both alike, and medians are
reported.

* ``--workload secure-sum``: what ``mpc-rr secure-sum --parties N --cells D
  --transport memory`` runs (random one-hot inputs, SecAgg+ with the default
  parameters or ``--degree``);
* ``--workload pipeline``: ``mpc-rr run adult --dependence secure-sum`` (the
  whole pipeline: secure-sum dependence phase, clustering, release;
  ``--parties`` subsamples Adult).

Each child measures the CPU time (``process_time``: user + system, one core)
of the protocol -- role construction included, imports, inputs and the public
graph excluded.  After each repeat (one run of every tree) the parent measures
the **crypto floor**: the cost of the primitives the protocol must compute, at
each run's exact counts (no dropouts, so every party has ``k`` live
neighbours), with this checkout's definition for every tree (a baseline's own
code would time the primitives it used then):

=====================  ======================================  ======================
primitive              per data party                          aggregator
=====================  ======================================  ======================
X25519 key generation  2                                       --
X25519 agreement       2k (with a parsed public key)           --
SHA-256 KDF block      2k (share keys) + k (mask keys) + 1     1 per party (self mask)
AES-256-GCM            k encryptions + k decryptions (88 B)    --
AES-256-CTR stream     k + 1 streams of D words                1 per party
SHA-256                1 (commitment)                          1 per party (check)
=====================  ======================================  ======================

Each primitive is timed through the cheapest public ``cryptography`` /
``hashlib`` call that computes it (median of 5 batches), times its count.
``non-crypto = cpu - floor`` is the Python, numpy, codec, trio and transport
work around it; the ratio of new to baseline non-crypto is the figure the
hot-path work is judged by.

    python -m benchmarks.hot_paths --parties 4000 --degree 30 --max-dropout 0.3333 --max-corrupt 0 --repeats 3
    python -m benchmarks.hot_paths --parties 32561 --repeats 3          # Adult scale
    python -m benchmarks.hot_paths --workload pipeline --repeats 3      # all of Adult
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = "ef28481"
"""The commit the hot-path work started from (main before it)."""

ROOT = Path(__file__).resolve().parent.parent


# -- the child: one measured run ----------------------------------------------------------


def _floor(counts: dict[str, int], cells_bytes: int) -> dict[str, float]:
    """Seconds the primitives of ``counts`` take here, now (median per-op cost x count)."""
    per_op = _per_op(cells_bytes)
    return {name: per_op[name] * counts[name] for name in per_op}


def _per_op(cells_bytes: int) -> dict[str, float]:
    """Median seconds of one call of each primitive, measured here and now."""
    import hashlib
    import timeit

    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = os.urandom(32)
    sk = X25519PrivateKey.generate()
    peer = X25519PublicKey.from_public_bytes(
        X25519PrivateKey.generate().public_key().public_bytes_raw()
    )
    key = os.urandom(32)
    kdf_input = b"\x00\x00\x00\x01" + key + b"mpc_rr/secagg/v1/mask/secagg-0/12345/23456"
    plain, aad = bytes(88), b"secagg-0/12345/23456"
    ct = AESGCM(key).encrypt(bytes(12), plain, aad)
    zeros = bytes(cells_bytes)
    ops = {
        "x25519_keygen": lambda: X25519PrivateKey.from_private_bytes(raw).public_key().public_bytes_raw(),
        "x25519_agree": lambda: sk.exchange(peer),
        "sha256_kdf": lambda: hashlib.sha256(kdf_input).digest(),
        "aes_gcm_encrypt": lambda: AESGCM(key).encrypt(bytes(12), plain, aad),
        "aes_gcm_decrypt": lambda: AESGCM(key).decrypt(bytes(12), ct, aad),
        # the cheapest public call for a CTR keystream: GCM's encryption of zeros (its tag aside)
        "aes_ctr_stream": lambda: AESGCM(key).encrypt(bytes(12), zeros, None),
        "sha256": lambda: hashlib.sha256(raw).digest(),
    }
    return {
        name: statistics.median(
            t / 500 for t in timeit.repeat(f, number=500, repeat=5, timer=time.process_time)
        )
        for name, f in ops.items()
    }


def _counts(n: int, k: int) -> dict[str, int]:
    """Primitive counts of one SecAgg+ run without dropouts (see the module docstring)."""
    return {
        "x25519_keygen": 2 * n,
        "x25519_agree": 2 * n * k,
        "sha256_kdf": n * (3 * k + 1) + n,
        "aes_gcm_encrypt": n * k,
        "aes_gcm_decrypt": n * k,
        "aes_ctr_stream": n * (k + 1) + n,
        "sha256": 2 * n,
    }


def _child(a: argparse.Namespace) -> dict[str, object]:
    import resource

    import numpy as np

    from parties.runners import runner_for

    def cpu() -> float:
        return time.process_time()

    if a.workload == "secure-sum":
        from mpc_rr.secure_sum.secagg import secagg_public
        from mpc_rr.workflows import run_secure_sum

        def inputs(n: int) -> np.ndarray:
            rng = np.random.default_rng(a.seed)
            x = np.zeros((n, a.cells), np.uint8)
            x[np.arange(n), rng.integers(0, a.cells, n)] = 1
            return x

        import inspect

        # the SecAgg+ parameters given (a tree from before max_corrupt existed takes none)
        params: dict[str, object] = {"degree": a.degree}
        if a.max_dropout is not None:
            params["max_dropout"] = a.max_dropout
        if a.max_corrupt is not None and "max_corrupt" in inspect.signature(run_secure_sum).parameters:
            params["max_corrupt"] = a.max_corrupt

        def once(n: int, seed: int) -> object:
            return run_secure_sum(
                "secagg", inputs(n), seed=seed, runner=runner_for("memory", step_timeout=30.0),
                **params,  # type: ignore[arg-type]
            )  # fmt: skip

        once(40, a.seed + 1)  # imports, codec caches (the same in both trees)
        x = inputs(a.parties)
        pub = secagg_public(a.parties, a.cells, run=f"secagg-{a.seed}", **params)  # type: ignore[arg-type]
        c0, w0 = cpu(), time.perf_counter()
        rep = run_secure_sum(
            "secagg", x, seed=a.seed, runner=runner_for("memory", step_timeout=30.0), **params  # type: ignore[arg-type]
        )
        cpu_s, wall_s = cpu() - c0, time.perf_counter() - w0
        ok = bool(rep.exact) and rep.survivors == a.parties
        n, k, cells, modulus = a.parties, pub.config.degree, a.cells, pub.config.modulus
    else:
        from mpc_rr.data import load_adult
        from mpc_rr.mdrr import PairLayout
        from mpc_rr.pipeline._dependence import dependence_public
        from mpc_rr.workflows import RunOptions
        from mpc_rr.workflows._pipeline import execute

        data = load_adult()
        small = RunOptions(parties=60, dependence="secure-sum", seed=a.seed + 1)
        execute(small, runner_for("memory", step_timeout=600.0), data)  # imports, caches
        opts = RunOptions(parties=a.parties, dependence="secure-sum", seed=a.seed)
        c0, w0 = cpu(), time.perf_counter()
        ex = execute(opts, runner_for("memory", step_timeout=600.0), data)
        cpu_s, wall_s = cpu() - c0, time.perf_counter() - w0
        pub = dependence_public(ex.config)  # the run's SecAgg+ public parameters
        n, k, modulus = ex.config.n, pub.config.degree, pub.config.modulus
        cells = PairLayout(ex.config.sizes).cells
        ok = ex.run.ok and len(ex.result.parties_release) == n
    bits = (modulus - 1).bit_length()  # a power of two: the smallest word holding R - 1
    word = 8 if modulus & (modulus - 1) else next(b // 8 for b in (8, 16, 32, 64) if bits <= b)
    counts = _counts(n, k)
    floor = _floor(counts, cells * word)
    return {
        "ok": ok,
        "parties": n,
        "degree": k,
        "cells": cells,
        "cpu_s": cpu_s,
        "wall_s": wall_s,
        "floor_s": sum(floor.values()),
        "floor": floor,
        "counts": counts,
        "stream_bytes": cells * word,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load": os.getloadavg()[0],
    }


# -- the parent: interleave trees, take medians ------------------------------------------------


# the parent only: a child runs inside a baseline tree, which may predate benchmarks._baseline
def _extract(rev: str, into: Path) -> Path | None:
    from benchmarks._baseline import export_tree

    try:
        return export_tree(rev, into)
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"  baseline {rev!r} not available ({exc}); measuring this checkout only")
        return None


def _spawn(tree: Path, args: list[str]) -> dict[str, object]:
    from benchmarks._baseline import run_child

    return run_child(__file__, tree, args)


def _row(name: str, runs: list[dict]) -> dict[str, float]:
    n = runs[0]["parties"]
    med = {k: statistics.median(float(r[k]) for r in runs) for k in ("cpu_s", "floor_s", "wall_s", "max_rss_mb")}
    non = statistics.median(float(r["cpu_s"]) - float(r["floor_s"]) for r in runs)
    return {
        "name": name, "cpu_ms_per_party": 1e3 * med["cpu_s"] / n,
        "floor_ms_per_party": 1e3 * med["floor_s"] / n, "non_crypto_ms_per_party": 1e3 * non / n,
        "wall_s": med["wall_s"], "cpu_s": med["cpu_s"], "max_rss_mb": med["max_rss_mb"],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.hot_paths", description=__doc__.splitlines()[0])
    p.add_argument("--workload", choices=("secure-sum", "pipeline"), default="secure-sum")
    p.add_argument("--parties", type=int, default=None, help="default: 4000 (secure-sum), all of Adult (pipeline)")
    p.add_argument("--cells", type=int, default=1582)
    p.add_argument("--degree", type=int, default=None, help="SecAgg+ degree (default: the protocol's)")
    p.add_argument(
        "--max-dropout", type=float, default=None,
        help="SecAgg+ max_dropout (default: the protocol's; 0.3333 = the default before the "
        "collusion bound)",
    )  # fmt: skip
    p.add_argument(
        "--max-corrupt", type=float, default=None,
        help="SecAgg+ max_corrupt (default: the protocol's; 0 = no collusion bound, as before it "
        "existed: with --degree 30 --max-dropout 0.3333 the workload of the baseline revisions)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--baseline", default=BASELINE, help="git revision to compare with ('' = none)")
    p.add_argument(
        "--tree", type=Path, default=ROOT,
        help="measure the code in this folder instead of this checkout (e.g. a `git archive` "
        "snapshot, so that the checkout may change during a long run)",
    )  # fmt: skip
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args([] if argv is None else argv)
    if a.parties is None and a.workload == "secure-sum":
        a.parties = 4000
    if a.child:
        rep = _child(a)
        print(json.dumps(rep))
        return rep
    args = ["--workload", a.workload, "--cells", str(a.cells), "--seed", str(a.seed)]
    args += ["--parties", str(a.parties)] if a.parties is not None else []
    args += ["--degree", str(a.degree)] if a.degree is not None else []
    args += ["--max-dropout", str(a.max_dropout)] if a.max_dropout is not None else []
    args += ["--max-corrupt", str(a.max_corrupt)] if a.max_corrupt is not None else []
    with tempfile.TemporaryDirectory(prefix="mpc-rr-baseline-") as tmp:
        trees = {"this checkout" if a.tree == ROOT else str(a.tree): a.tree.resolve()}
        if a.baseline:
            base = _extract(a.baseline, Path(tmp))
            if base is not None:
                trees = {f"baseline {a.baseline}": base, **trees}
        runs: dict[str, list[dict]] = {name: [] for name in trees}
        for _ in range(a.repeats):  # interleaved: contention hits both alike
            done = []
            for name, tree in trees.items():
                r = _spawn(tree, args)
                if not r["ok"]:
                    raise RuntimeError(f"{name}: the run was not exact / complete: {r}")
                runs[name].append(r)
                done.append(r)
            # one floor for every tree, by this checkout's definition, measured now: a
            # baseline tree's own child would time the primitives it used then
            per_op = _per_op(int(done[-1]["stream_bytes"]))
            for r in done:
                r["floor"] = {k: per_op[k] * _counts(r["parties"], r["degree"])[k] for k in per_op}
                r["floor_s"] = sum(r["floor"].values())
    rows = [_row(name, rs) for name, rs in runs.items()]
    first = next(iter(runs.values()))[0]
    report: dict[str, object] = {
        "workload": a.workload, "parties": first["parties"], "degree": first["degree"],
        "cells": first["cells"], "repeats": a.repeats, "rows": rows,
        "floor_breakdown_ms_per_party": {
            k: 1e3 * statistics.median(float(r["floor"][k]) for r in runs[rows[-1]["name"]]) / first["parties"]
            for k in first["floor"]
        },
        "load": [r["load"] for rs in runs.values() for r in rs],
    }  # fmt: skip
    if len(rows) == 2:
        report["non_crypto_ratio_new_over_baseline"] = (
            rows[1]["non_crypto_ms_per_party"] / rows[0]["non_crypto_ms_per_party"]
        )
        report["cpu_ratio_new_over_baseline"] = rows[1]["cpu_ms_per_party"] / rows[0]["cpu_ms_per_party"]
    if a.json:
        print(json.dumps(report))
        return report
    print(
        f"{a.workload}: {first['parties']} parties, degree {first['degree']}, {first['cells']} cells; "
        f"medians of {a.repeats} interleaved runs; load average during the runs "
        f"{min(report['load']):.1f}-{max(report['load']):.1f}"  # type: ignore[type-var]
    )
    print(f"  {'code':24} {'cpu ms/party':>12} {'crypto floor':>12} {'non-crypto':>11} {'wall s':>8} "
          f"{'max RSS MB':>10}")  # fmt: skip
    for r in rows:
        print(
            f"  {r['name']:24} {r['cpu_ms_per_party']:12.3f} {r['floor_ms_per_party']:12.3f} "
            f"{r['non_crypto_ms_per_party']:11.3f} {r['wall_s']:8.1f} {r['max_rss_mb']:10.0f}"
        )
    if len(rows) == 2:
        print(
            f"  non-crypto new/baseline: {report['non_crypto_ratio_new_over_baseline']:.2f}; "
            f"cpu new/baseline: {report['cpu_ratio_new_over_baseline']:.2f}"
        )
    fb = report["floor_breakdown_ms_per_party"]
    print("  crypto floor per party (ms): " + ", ".join(f"{k} {v:.3f}" for k, v in fb.items()))  # type: ignore[attr-defined]
    return report


if __name__ == "__main__":
    main(sys.argv[1:])
