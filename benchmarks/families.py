"""Benchmarks of the multi-attribute mechanism families, each next to a baseline.

Run: ``python -m benchmarks.families`` (add ``--quick`` to skip the 20-second
dense LP at k = 12).  Prints medians and ratios; the machine is shared, so
absolute timings are noisy -- read the ratios.

1. Heuristic (Algorithm 3): our O(k) implementation vs a literal O(k^2)
   transcription of the paper's pseudo-code, k = 1,000 and 10,000, on the
   paper's random inputs (a_i in {2..5}, eps_i in [1, 10)).
2. Exact LP: our sparse formulation vs a straightforward dense one (the
   paper's Algorithms 1-2 with Python loops and dense arrays), k = 10 and 12,
   both solved by HiGHS in the same run.
3. λ-randomization estimation on Adult's full joint domain
   (9,16,7,15,6,5,2,2) = 1,814,400 cells vs a dense numpy.linalg.solve on a
   4,096-cell domain.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from itertools import combinations

import numpy as np
from scipy.optimize import linprog

from mpc_rr.mechanisms import LambdaRandomization
from mpc_rr.mechanisms.optimized import solve_heuristic, solve_lp
from mpc_rr.mechanisms.optimized._heuristic import heuristic_in_order, heuristic_reference

ADULT_SIZES = (9, 16, 7, 15, 6, 5, 2, 2)


def _median_seconds(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def _paper_inputs(k: int, seed: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    rng = np.random.default_rng(seed)
    sizes = tuple(int(v) for v in rng.integers(2, 6, k))
    eps = tuple(float(v) for v in rng.uniform(1, 10, k))
    return sizes, eps


# -- baselines ----------------------------------------------------------------------


def dense_lp(sizes: tuple[int, ...], eps: tuple[float, ...]) -> float:
    """Straightforward formulation: Algorithms 1-2 with Python loops and dense arrays."""
    k = len(sizes)
    subsets = [frozenset(c) for h in range(k + 1) for c in combinations(range(k), h)]
    index = {s: j for j, s in enumerate(subsets)}
    n_var = len(subsets) - 1  # the full set is fixed to 1
    t = [math.prod(sizes[i] - 1 for i in s) for s in subsets]
    a_ub, b_ub = [], []
    for s in subsets[:-1]:
        for i in range(k):
            if i in s:
                continue
            row = [0.0] * n_var
            row[index[s]] = -1.0
            u = s | {i}
            if index[u] < n_var:
                row[index[u]] = 1.0
                b_ub.append(0.0)
            else:
                b_ub.append(-1.0)
            a_ub.append(row)
    a_eq, b_eq = [], []
    for i in range(k):
        e = math.exp(eps[i]) / (sizes[i] - 1)
        row = [(-e * t[j] if i in s else t[j]) for j, s in enumerate(subsets[:-1])]
        a_eq.append(row)
        b_eq.append(e * t[-1])
    c = [1.0] + [0.0] * (n_var - 1)
    res = linprog(
        c,
        A_ub=np.array(a_ub),
        b_ub=np.array(b_ub),
        A_eq=np.array(a_eq),
        b_eq=np.array(b_eq),
        bounds=(0, None),
        method="highs",
    )
    return math.log(res.x[index[frozenset()]])


# -- the three benchmarks -----------------------------------------------------------


def bench_heuristic(repeats: int) -> None:
    print("== Heuristic (Algorithm 3); paper inputs a_i in {2..5}, eps_i in [1, 10)")
    print(f"{'k':>6} {'ours O(k) s':>12} {'literal O(k^2) s':>17} {'ratio':>8}  notes")
    for k in (1_000, 10_000):
        sizes, eps = _paper_inputs(k, seed=k)
        order = tuple(range(k))

        def ours(sizes=sizes, eps=eps, order=order):
            mech, fb = heuristic_in_order(sizes, eps, order)
            return mech, fb, mech.epsilons  # achieved epsilons included in the timing

        t_ours, (mech, fb, _) = _median_seconds(ours, repeats)
        base_repeats = repeats if k <= 1_000 else 1
        t_base, _ = _median_seconds(lambda s=sizes, e=eps: heuristic_reference(s, e), base_repeats)
        note = (
            f"overall eps {mech.epsilon:.1f} (Kronecker {sum(eps):.1f}); "
            f"fallback changed {len(fb)}/{k} epsilons"
        )
        print(f"{k:>6} {t_ours:>12.4f} {t_base:>17.3f} {t_base / t_ours:>7.0f}x  {note}")
        equal = (5,) * k, (3.0,) * k
        t_safe, res = _median_seconds(lambda q=equal: solve_heuristic(*q), repeats)
        print(
            f"{'':>6} solve_heuristic on a_i = 5, eps_i = 3 (no fallback): {t_safe:.4f} s, "
            f"overall eps {res.overall_epsilon:.1f} vs Kronecker {res.kronecker_epsilon:.0f}"
        )


def bench_lp(repeats: int, quick: bool) -> None:
    print("== Exact LP (HiGHS); paper inputs a_i in {2..5}, eps_i in [1, 10)")
    print(f"{'k':>6} {'ours sparse s':>14} {'dense s':>9} {'ratio':>7}  optimum ours / dense")
    for k in (10, 12):
        sizes, eps = _paper_inputs(k, seed=100 + k)
        t_ours, res = _median_seconds(lambda s=sizes, e=eps: solve_lp(s, e), repeats)
        if quick and k == 12:
            print(f"{k:>6} {t_ours:>14.4f} {'skipped':>9}           {res.overall_epsilon:.6f}")
            continue
        dense_repeats = 3 if k == 10 else 1
        t_dense, opt = _median_seconds(lambda s=sizes, e=eps: dense_lp(s, e), dense_repeats)
        print(
            f"{k:>6} {t_ours:>14.4f} {t_dense:>9.3f} {t_dense / t_ours:>6.1f}x  "
            f"{res.overall_epsilon:.6f} / {opt:.6f}"
        )


def bench_lambda_estimation(repeats: int) -> None:
    print("== λ-randomization estimation (exact inverse, axis by axis)")
    lams = (0.5, 0.6, 0.7, 0.4, 0.8, 0.55, 0.9, 0.3)
    adult = LambdaRandomization(ADULT_SIZES, lams)
    rng = np.random.default_rng(0)
    obs = rng.random(ADULT_SIZES)
    t_adult, _ = _median_seconds(lambda: adult.estimate(obs), repeats)
    small_sizes = (4, 4, 4, 4, 4, 4)
    small = LambdaRandomization(small_sizes, (0.5, 0.6, 0.7, 0.4, 0.8, 0.55))
    obs_small = rng.random(small_sizes)
    mat = small.dense_matrix()
    t_dense, _ = _median_seconds(lambda: np.linalg.solve(mat.T, obs_small.ravel()), repeats)
    t_small, _ = _median_seconds(lambda: small.estimate(obs_small), repeats)
    n_adult = math.prod(ADULT_SIZES)
    print(f"  ours, Adult joint domain, {n_adult:,} cells:      {t_adult:.4f} s")
    print(f"  dense numpy.linalg.solve, 4,096 cells:         {t_dense:.4f} s (matrix prebuilt)")
    print(f"  ours, same 4,096 cells:                        {t_small:.6f} s")
    print(
        f"  ratio dense(4,096) / ours(1,814,400): {t_dense / t_adult:.1f}x;  "
        f"dense / ours on 4,096 cells: {t_dense / t_small:.0f}x"
    )
    opt = solve_lp(ADULT_SIZES, (1.0, 2.0, 1.5, 1.0, 2.5, 1.0, 0.5, 0.8))
    t_opt, _ = _median_seconds(lambda: opt.estimate(obs), repeats)
    print(f"  optimized RR (LP, k=8), Adult joint domain, eigenbasis solve: {t_opt:.4f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.families")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="skip the dense LP at k = 12")
    args = parser.parse_args(argv)
    bench_heuristic(args.repeats)
    bench_lp(args.repeats, args.quick)
    bench_lambda_estimation(args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
