"""RR-Adjustment convergence: plain vs accelerated IPF, one run.

Run: ``python -m benchmarks.adjustment [--runs 200] [--p 0.5,0.7,0.9] [--sources heldout,adult]``.

Each run is one RR-Clusters+Adjustment release as the pipeline makes it
(``mpc-rr run``: Sec. 4.1 dependences from keep-or-uniform(p) records,
Algorithm 1 with Tv = 100, Td = 0.1 unless ``--tv/--td``, cluster matrices at
eps_C = sum of eps_A, clip estimates), then Algorithm 2 twice on the same
release: ``method="plain"`` and ``method="anderson"``, both with the
pipeline's cap (``--max-iter``, 50) and tolerance (1e-9, L1 change of the
weights in a pass).  Timings are interleaved (order alternates by run) and
reported as medians.

Data sources (``--sources``):

* ``heldout``: a census sample of Adult's size that the code was not tuned
  on -- each run draws a fresh bootstrap resample of 32,561 records from
  ``adult.test`` (the other 16,281-record half of the UCI Adult census
  extract; no other census set of that size is on disk).
* ``adult``: ``adult.data`` itself (32,561 records), as ``mpc-rr run adult``.

Every ``--check-every``-th run also runs both methods to ``tol = 1e-13``
(uncapped) and prints the largest L1 distance between their weights: the
fixed point is the same.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from mpc_rr.data import Dataset, load_adult, load_adult_test
from mpc_rr.estimation import dependence_matrix, rr_adjustment
from mpc_rr.mdrr import cluster_attributes, rr_independent
from mpc_rr.mechanisms import keep_or_uniform
from scenarios.reproduce.mdrr import attribute_epsilons, cluster_release

METHODS = ("plain", "anderson")


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def study(
    source: str,
    p: float,
    runs: int,
    *,
    seed: int = 2026,
    tv: int = 100,
    td: float = 0.1,
    max_iter: int = 50,
    check_every: int = 20,
) -> dict[str, object]:
    base = load_adult_test() if source == "heldout" else load_adult()
    sizes = base.schema.sizes
    eps = attribute_epsilons(sizes, p)
    conv = {m: 0 for m in METHODS}
    passes: dict[str, list[int]] = {m: [] for m in METHODS}
    secs: dict[str, list[float]] = {m: [] for m in METHODS}
    worst = 0.0
    checked = 0
    for r, ss in enumerate(np.random.SeedSequence([seed, int(p * 1000)]).spawn(runs)):
        rng = np.random.default_rng(ss)
        if source == "heldout":
            data = Dataset(base.schema, base.codes[rng.integers(0, base.n, 32_561)], "heldout")
        else:
            data = base
        ind = rr_independent(data.codes, sizes, [keep_or_uniform(s, p) for s in sizes], rng)
        cl = cluster_attributes(dependence_matrix(ind.randomized, data.schema), sizes, tv, td)
        rel = cluster_release(data, cl, eps, rng)
        args = (rel.randomized, sizes, rel.groups, [e.distribution for e in rel.estimates])
        for m in METHODS if r % 2 == 0 else METHODS[::-1]:
            t = time.perf_counter()
            res = rr_adjustment(*args, max_iter=max_iter, method=m)
            secs[m].append(time.perf_counter() - t)
            conv[m] += res.converged
            passes[m].append(res.iterations)
        if check_every and r % check_every == 0:
            tight = [rr_adjustment(*args, tol=1e-13, max_iter=100_000, method=m) for m in METHODS]
            if all(t.converged for t in tight):
                worst = max(worst, float(np.abs(tight[0].weights - tight[1].weights).sum()))
                checked += 1
    return {
        "rate": {m: conv[m] / runs for m in METHODS},
        "passes": {m: statistics.median(passes[m]) for m in METHODS},
        "max_passes": {m: max(passes[m]) for m in METHODS},
        "seconds": {m: statistics.median(secs[m]) for m in METHODS},
        "worst_l1": worst,
        "checked": checked,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.adjustment")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--p", type=_floats, default=[0.5, 0.7, 0.9])
    ap.add_argument("--sources", default="heldout,adult")
    ap.add_argument("--tv", type=int, default=100)
    ap.add_argument("--td", type=float, default=0.1)
    ap.add_argument("--max-iter", type=int, default=50)
    ap.add_argument("--check-every", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv if argv is not None else [])
    print(
        f"RR-Clusters+Adjustment, Tv = {args.tv}, Td = {args.td}, cap {args.max_iter} passes, "
        f"tol 1e-9; {args.runs} seeded runs per row (seed {args.seed}); medians"
    )
    print(
        f"{'data':<8} {'p':>4} | {'converged':^17} | {'passes (max)':^21} | "
        f"{'time per run':^21} {'ratio':>5} | same fixed point"
    )
    print(
        f"{'':<8} {'':>4} | {'plain':>8} {'accel':>8} | {'plain':>10} {'accel':>10} | "
        f"{'plain':>10} {'accel':>10} {'':>5} | max L1 (runs)"
    )
    for source in args.sources.split(","):
        for p in args.p:
            t0 = time.perf_counter()
            s = study(
                source,
                p,
                args.runs,
                seed=args.seed,
                tv=args.tv,
                td=args.td,
                max_iter=args.max_iter,
                check_every=args.check_every,
            )
            rate, ps, mx, sec = s["rate"], s["passes"], s["max_passes"], s["seconds"]
            assert isinstance(rate, dict) and isinstance(ps, dict)
            assert isinstance(mx, dict) and isinstance(sec, dict)
            print(
                f"{source:<8} {p:>4} | {rate['plain']:>8.1%} {rate['anderson']:>8.1%} | "
                f"{ps['plain']:>5.0f} ({mx['plain']:>3}) {ps['anderson']:>5.0f} ({mx['anderson']:>3}) | "
                f"{sec['plain'] * 1e3:>7.1f} ms {sec['anderson'] * 1e3:>7.1f} ms "
                f"{sec['anderson'] / sec['plain']:>5.2f} | {s['worst_l1']:.1e} ({s['checked']})"
                f"   [{time.perf_counter() - t0:.0f} s]",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
