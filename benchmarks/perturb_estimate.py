"""Perturb + estimate (keep-or-uniform, k = 16, n = 10^6) against hand-written numpy, a
baseline revision vs this checkout.

Each fresh process times, interleaved call by call, the library's
``keep_or_uniform(k, p).perturb`` + ``np.bincount`` + ``estimate_distribution`` and a
hand-written numpy version of the same work (one uniform to keep or not, ``rng.integers``
for the redraw, ``np.where``, the closed-form estimate, clip and rescale); it prints the
medians (wall and CPU) and the ratio ours / hand-written, and a digest of one perturbation
(the same seed must give the same reports in every revision).  The baseline tree
(``--baseline``, extracted with ``git archive``) and this checkout alternate process by
process; the table gives the medians over processes and the load average.

    python -m benchmarks.perturb_estimate --processes 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "d600d41"
"""The revision before the perturb path stopped using ``np.where`` and two n-sized temporaries."""


def _child(a: argparse.Namespace) -> dict[str, float]:
    import time

    import numpy as np

    from mpc_rr.estimation import estimate_distribution
    from mpc_rr.mechanisms import keep_or_uniform

    n, k, p = a.n, a.k, a.p
    rng = np.random.default_rng(0)
    x = rng.integers(0, k, n)
    mech = keep_or_uniform(k, p)

    def ours() -> object:
        return estimate_distribution(mech, np.bincount(mech.perturb(x, rng), minlength=k))

    def by_hand() -> object:
        u = rng.random(n)
        y = np.where(u < p, x, rng.integers(0, k, n))
        c = np.bincount(y, minlength=k).astype(float)
        est = np.clip((c - (1 - p) * n / k) / p / n, 0, None)
        return est / est.sum()

    funcs = {"ours": ours, "by_hand": by_hand}
    for f in funcs.values():
        f(), f()
    wall: dict[str, list[float]] = {name: [] for name in funcs}
    cpu: dict[str, list[float]] = {name: [] for name in funcs}
    for _ in range(a.repeat):
        for name, f in funcs.items():
            t, c = time.perf_counter(), time.process_time()
            f()
            cpu[name].append(time.process_time() - c)
            wall[name].append(time.perf_counter() - t)
    out = mech.perturb(x, np.random.default_rng(5))
    return {
        **{f"{name}_ms": statistics.median(v) * 1e3 for name, v in wall.items()},
        **{f"{name}_cpu_ms": statistics.median(v) * 1e3 for name, v in cpu.items()},
        "ratio": statistics.median(wall["ours"]) / statistics.median(wall["by_hand"]),
        "ratio_cpu": statistics.median(cpu["ours"]) / statistics.median(cpu["by_hand"]),
        "digest": float(np.bincount(out, weights=np.arange(n) % 1009, minlength=k) @ np.arange(k)),
        "load": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.perturb_estimate",
                                description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--p", type=float, default=0.3)
    p.add_argument("--repeat", type=int, default=41, help="interleaved calls per process")
    p.add_argument("--processes", type=int, default=5, help="fresh processes per tree")
    p.add_argument("--baseline", default=BASELINE, help="git revision to compare with ('' = none)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        res = _child(a)
        print(json.dumps(res))
        return dict(res)
    args = [f"--{k}={getattr(a, k)}" for k in ("n", "k", "p", "repeat")]
    with tempfile.TemporaryDirectory(prefix="mpc-rr-baseline-") as tmp:
        from benchmarks._baseline import export_tree, run_child

        trees = {"this checkout": ROOT}
        if a.baseline:
            trees = {f"baseline {a.baseline}": export_tree(a.baseline, Path(tmp)), **trees}
        runs: dict[str, list[dict[str, object]]] = {name: [] for name in trees}
        for _ in range(a.processes):
            for name, tree in trees.items():
                runs[name].append(run_child(__file__, tree, args))
    keys = ("ours_ms", "by_hand_ms", "ratio", "ratio_cpu")
    rows = {name: {key: statistics.median(float(r[key]) for r in rs) for key in keys}  # type: ignore[arg-type]
            for name, rs in runs.items()}  # fmt: skip
    loads = [float(r["load"]) for rs in runs.values() for r in rs]  # type: ignore[arg-type]
    same = len({r["digest"] for rs in runs.values() for r in rs}) == 1
    print(f"perturb + estimate, n={a.n:,}, k={a.k}, p={a.p}: medians of {a.processes} interleaved "
          f"fresh processes x {a.repeat} calls; load average {min(loads):.1f}-{max(loads):.1f}; "
          f"same reports: {same}")  # fmt: skip
    print(f"  {'code':24} {'ours ms':>8} {'by hand ms':>11} {'ours/hand':>10} {'(CPU)':>7}")
    for name, r in rows.items():
        print(f"  {name:24} {r['ours_ms']:>8.2f} {r['by_hand_ms']:>11.2f} {r['ratio']:>10.3f} "
              f"{r['ratio_cpu']:>7.3f}")  # fmt: skip
    return {"rows": rows, "same_reports": same, "load": loads}


if __name__ == "__main__":
    main()
