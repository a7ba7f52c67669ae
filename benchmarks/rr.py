"""RR library speed (issue: foundation, section 5), side by side with baselines.

1. Perturb + estimate one 16-category attribute, n = 1,000,000: ours
   (``keep_or_uniform(...).perturb`` + ``estimate_distribution``) next to a
   hand-written numpy baseline doing the same work, and next to a per-value
   ``rng.choice`` loop over a sample (how per-user LDP libraries work),
   extrapolated to n.
2. One full RR-Clusters + Adjustment run on Adult (randomize, dependences,
   cluster, release, estimate, adjust, answer 100 queries).
3. ``reproduce mdrr-table1`` at a given run count (``--table1-runs``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._timing import median_times
from mpc_rr.data import load_adult
from mpc_rr.estimation import (
    answer,
    dependence_matrix,
    estimate_distribution,
    make_queries,
    relative_error,
    true_count,
)
from mpc_rr.mdrr import adjust, cluster_attributes, rr_clusters, rr_independent
from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform
from scenarios.reproduce import mdrr


def bench_perturb_estimate(n: int = 1_000_000, k: int = 16, p: float = 0.3) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, k, n)
    mech = keep_or_uniform(k, p)

    def ours() -> np.ndarray:
        return estimate_distribution(
            mech, np.bincount(mech.perturb(x, rng), minlength=k)
        ).distribution

    def baseline() -> np.ndarray:
        u = rng.random(n)
        y = np.where(u < p, x, rng.integers(0, k, n))
        c = np.bincount(y, minlength=k).astype(float)
        est = (c - (1 - p) * n / k) / p / n
        est = np.clip(est, 0, None)
        return est / est.sum()

    sample = x[:20_000]
    P = mech.dense()

    def per_value() -> None:
        for v in sample:
            rng.choice(k, p=P[v])

    t = median_times({"ours": ours, "numpy baseline": baseline}, repeat=21)
    t_loop = median_times({"loop": per_value}, repeat=3, warmup=0)["loop"] * n / sample.size
    print(
        f"perturb+estimate, n={n:,}, k={k}: ours {t['ours'] * 1e3:.1f} ms, numpy baseline {t['numpy baseline'] * 1e3:.1f} ms, "
        f"ratio ours/baseline = {t['ours'] / t['numpy baseline']:.2f} (target <= 1.0); "
        f"per-value rng.choice loop (extrapolated) {t_loop:.1f} s = {t_loop / t['ours']:.0f}x ours"
    )


def bench_adult_pipeline(repeat: int = 11) -> None:
    data = load_adult()
    sizes = data.schema.sizes
    rng = np.random.default_rng(1)

    def pipeline() -> float:
        ind = rr_independent(data.codes, sizes, [keep_or_uniform(s, 0.7) for s in sizes], rng)
        cl = cluster_attributes(dependence_matrix(ind.randomized, data.schema), sizes, 100, 0.1)
        eps = [m.epsilon for m in ind.mechanisms]
        mechs = [cluster_matrix([sizes[i] for i in c], sum(eps[i] for i in c)) for c in cl.clusters]
        clu = rr_clusters(data.codes, sizes, cl.clusters, mechs, rng)
        model, _ = adjust(clu, max_iter=50)
        qs = make_queries(data.codes, sizes, 100, 0.1, rng)
        return float(
            np.median(
                [relative_error(answer(model, q, data.n), true_count(data.codes, q)) for q in qs]
            )
        )

    t = median_times({"pipeline": pipeline}, repeat=repeat, warmup=1)["pipeline"]
    print(
        f"Adult RR-Clusters + Adjustment + 100 queries (32,561 records): median {t:.3f} s (target < 1 s)"
    )


def bench_table1(runs: int) -> None:
    data = load_adult()
    t = time.perf_counter()
    mdrr.table1(data, runs, seed=1)
    dt = time.perf_counter() - t
    print(
        f"reproduce mdrr-table1 --runs {runs} (36 configurations): {dt:.1f} s (target for 100 runs: < 600 s)"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table1-runs", type=int, default=100)
    args = ap.parse_args(argv or [])
    bench_perturb_estimate()
    bench_adult_pipeline()
    bench_table1(args.table1_runs)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
