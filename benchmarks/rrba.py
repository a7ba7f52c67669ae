"""RRBA speed (issue 10), side by side in one run.

1. ``--part block``: one block update of 10,000 clients over the 15 pair
   subsets of 6 attributes (5 views of 3 pairs): view assignment, answers
   (Algorithm 1 / Eq. 3), tally and the aggregator's update -- ours
   (:mod:`mpc_rr.rrba`, vectorized over the block) against a literal
   per-client loop (each client: coin, walk the CDF of Eq. 3, count; then Eq. 4
   per subset).  Both start from the same tables; the loop's answer
   distribution is checked against ours.
2. ``--part run``: whole centralized collections (Survey 15 pairs, Alarm 666
   pairs) of 10,000 clients, B = 250, with one shared client generator and
   with one generator per client (what distributed clients will hold).  Runs
   over the memory and TCP transports come with the roles (phase 2).
3. ``--part qp``: the consistency QP (Sec. 4.3) of 3- and 4-way marginals
   with Clarabel, SciPy's SLSQP and (if installed) OSQP: time per marginal,
   failures, and the largest difference to Clarabel's solution.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._timing import median_times
from mpc_rr.bif import load_network
from mpc_rr.rrba import (
    BlockAggregator,
    SubsetIndex,
    answers_from_uniforms,
    assign_views,
    cdf_table,
    cover,
    reconstruct,
    run_rrba,
    tally,
)

P = 0.3


def _setup(n: int = 10_000, seed: int = 0):  # type: ignore[no-untyped-def]
    net = load_network("survey")
    rng = np.random.default_rng(seed)
    data = net.sample(n, rng)
    c = cover(6, 2)
    index = SubsetIndex(data.schema.sizes, c.subsets)
    lay = index.layout
    # start both sides from the same, non-uniform tables
    tables = lay.pack([rng.dirichlet(np.ones(k)) for k in lay.cells])
    return data, c, index, lay, tables


def bench_block(n: int = 10_000, repeat: int = 7) -> None:
    data, c, index, lay, tables = _setup(n)
    vt = c.padded_tables()
    active = np.ones(lay.n_tables, dtype=bool)
    rows = np.arange(n)

    def ours() -> np.ndarray:
        rng = np.random.default_rng(1)
        agg = BlockAggregator(lay, P, estimator="paper", stop="never", initial=tables)
        assign = assign_views(n, vt, active, 0, rng)
        tabs = vt[assign]
        ci, li = np.nonzero(tabs >= 0)
        t_ids = tabs[ci, li]
        u = rng.random((2, t_ids.size))
        ans = answers_from_uniforms(
            index.cells(data.codes, rows[ci], t_ids), t_ids, u[0], u[1], cdf_table(tables, lay), P
        )
        counts, nn = tally(t_ids, ans, lay)
        return agg.feed(counts, nn).estimate

    subsets = [list(s) for s in c.subsets]
    shapes = [index.shape(s) for s in range(lay.n_tables)]
    tabs_list = [list(map(float, t)) for t in lay.unpack(tables)]
    records = data.codes.tolist()

    def literal() -> list[list[float]]:
        rng = np.random.default_rng(1)
        order = rng.permutation(n)
        counts = [[0] * len(t) for t in tabs_list]
        seen = [0] * len(tabs_list)
        for i in range(n):
            view = c.view_tables[order[i] % c.n_views]
            for s in view:
                a, b = subsets[s]
                true = records[i][a] * shapes[s][1] + records[i][b]
                if rng.random() < P:
                    cell = true
                else:
                    q, cum, cell = rng.random(), 0.0, 0
                    for cell, t in enumerate(tabs_list[s]):  # noqa: B007 (Eq. 3: first cell with q < cum)
                        cum += t
                        if q < cum:
                            break
                counts[s][cell] += 1
                seen[s] += 1
        new = []
        for s, t in enumerate(tabs_list):
            raw = [(o / seen[s] - (1 - P) * v) / P for o, v in zip(counts[s], t, strict=True)]
            pos = [max(x, 0.0) for x in raw]
            tot = sum(pos)
            new.append([x / tot for x in pos])
        return new

    a, b = ours(), literal()
    diff = max(float(np.abs(a[s, : len(t)] - np.array(t)).max()) for s, t in enumerate(b))
    t = median_times({"ours": ours}, repeat=repeat)
    t_loop = median_times({"loop": literal}, repeat=3, warmup=1)["loop"]
    print(
        f"block update, {n:,} clients x 15 subsets (5 views of 3 pairs), p={P}: ours {t['ours'] * 1e3:.1f} ms, "
        f"literal per-client loop {t_loop * 1e3:.0f} ms, ratio loop/ours = {t_loop / t['ours']:.0f}x; "
        f"max |difference| of the updated tables (different draws) = {diff:.3f}"
    )


def bench_runs(n: int = 10_000) -> None:
    for name in ("survey", "alarm"):
        data = load_network(name).sample(n, np.random.default_rng(3))
        for mode in ("shared", "per-client"):
            t0 = time.perf_counter()
            res = run_rrba(data, p=0.5, block=250, stop="never", client_rng=mode, seed=1)
            dt = time.perf_counter() - t0
            print(
                f"full centralized run, {name}: {n:,} clients, {len(res.cover.subsets)} subsets, "
                f"{res.blocks} blocks, client_rng={mode}: {dt:.2f} s"
            )
    print(
        "full run over the memory / TCP transports: phase 2 (needs the Aggregator and Client roles)"
    )


def bench_qp(marginals: int = 5) -> None:
    try:
        import osqp  # noqa: F401

        solvers = ["clarabel", "scipy", "osqp"]
    except ImportError:
        solvers = ["clarabel", "scipy"]
        print("  (OSQP not installed: pip install osqp to compare it too)")
    rng = np.random.default_rng(0)
    for name in ("survey", "child", "alarm"):
        data = load_network(name).sample(8000, rng)
        run = run_rrba(data, p=0.5, block=250, stop="never", client_rng="shared", seed=1)
        d, sizes = len(data.schema), data.schema.sizes
        for order in (3, 4):
            targets = [
                tuple(sorted(rng.choice(d, order, replace=False).tolist()))
                for _ in range(marginals)
            ]
            ref = {}
            for solver in solvers:
                fails, diffs = 0, []
                t0 = time.perf_counter()
                for tg in targets:
                    try:
                        m = reconstruct(tg, sizes, run.cover.subsets, run.estimates, solver=solver)
                    except ValueError:
                        fails += 1
                        continue
                    if solver == "clarabel":
                        ref[tg] = m.table
                    elif tg in ref:
                        diffs.append(float(np.abs(m.table - ref[tg]).max()))
                dt = (time.perf_counter() - t0) / len(targets)
                extra = f", max |x - clarabel| {max(diffs):.1e}" if diffs else ""
                print(
                    f"  QP {name} {order}-way, {solver:<8}: {dt * 1e3:7.1f} ms/marginal, {fails}/{len(targets)} failed{extra}"
                )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=("block", "run", "qp", "all"), default="all")
    args = ap.parse_args(argv or [])
    if args.part in ("block", "all"):
        bench_block()
    if args.part in ("run", "all"):
        bench_runs()
    if args.part in ("qp", "all"):
        bench_qp()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
