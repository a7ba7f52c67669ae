"""RRBA speed, side by side in one run.

1. ``--part block``: one block update of 10,000 clients over the 15 pair
   subsets of 6 attributes (5 views of 3 pairs): view assignment, answers
   (Algorithm 1 / Eq. 3), tally and the aggregator's update -- ours
   (:mod:`mpc_rr.rrba`, vectorized over the block) against a literal
   per-client loop (each client: coin, walk the CDF of Eq. 3, count; then Eq. 4
   per subset).  Both start from the same tables; the loop's answer
   distribution is checked against ours.
2. ``--part run``: whole centralized collections (Survey 15 pairs, Alarm 666
   pairs) of 10,000 clients, B = 250, with one shared client generator and
   with one generator per client (what distributed clients hold).
3. ``--part distributed``: the same collection run by the Aggregator and
   Client roles -- 10,000 clients over the memory transport (Party actors,
   virtual time) and 1,000 over TCP + mutual TLS (one process) -- against
   the centralized engine with the same seed (identical estimates checked),
   medians and ratios; then the cost of ``--secure-tally`` (SecAgg+ per
   block) against the plain tally: messages, bytes and wall time.
4. ``--part qp``: the consistency QP (Sec. 4.3) of 3- and 4-way marginals
   with Clarabel, SciPy's SLSQP and (if installed) OSQP: time per marginal,
   failures, and the largest difference to Clarabel's solution.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._timing import median_times
from mpc_rr.data import load_network
from mpc_rr.rrba import (
    BlockAggregator,
    SubsetIndex,
    answers_from_uniforms,
    assign_views,
    cover,
    reconstruct,
    run_rrba,
    tally,
)
from mpc_rr.rrba._client import cdf_table

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


def _same(a, b) -> bool:  # type: ignore[no-untyped-def]
    return all(np.array_equal(x, y) for x, y in zip(a.estimates, b.estimates, strict=True))


def bench_distributed(
    n_memory: int = 10_000, n_tcp: int = 1_000, n_secure: int = 1_000, repeat: int = 3
) -> None:
    import functools

    import trio

    from benchmarks.runtime_memory import ours as echo_run
    from mpc_rr.rrba import rrba_roles, run_distributed
    from mpc_rr.rrba._protocol import config_for
    from parties.runner import MemoryRunner
    from parties.tcp_runner import TcpRunner

    for n, runner in ((n_memory, MemoryRunner()), (n_tcp, TcpRunner())):
        data = load_network("survey").sample(n, np.random.default_rng(3))
        cfg = config_for(data, 250, 0.5)
        ref = run_rrba(data, p=0.5, block=250, seed=1)
        runs: list = []  # type: ignore[type-arg]
        funcs = {
            "centralized": lambda: run_rrba(data, p=0.5, block=250, seed=1),  # noqa: B023
            "roles": lambda: rrba_roles(cfg, data.codes, 1),  # noqa: B023
            "distributed": lambda: runs.append(run_distributed(data, cfg, runner, 1)),  # noqa: B023
        }
        if runner.name == "memory":  # the runtime's floor: as many messages of the mean size
            funcs["echo"] = lambda: trio.run(functools.partial(echo_run, n, 114))  # noqa: B023
        t = median_times(funcs, repeat=repeat, warmup=0)
        d = runs[-1]
        c = d.result.costs
        assert all(_same(r.run, ref) for r in runs), "distributed != centralized"
        proto = np.median([r.result.costs.wall_s for r in runs])
        extra = ""
        if "handshake_s" in c.extra:  # TCP: a certificate per party, then the TLS handshakes
            hs = np.median([r.result.costs.extra["handshake_s"] for r in runs])
            extra = f"; connecting the {n:,} clients (TLS handshakes) {hs:.2f} s"
        print(
            f"full RRBA run, survey, {n:,} clients, B=250, {d.run.blocks} blocks, over {runner.name}: "
            f"{t['distributed']:.2f} s (building the {n + 1:,} roles {t['roles']:.2f} s{extra}; "
            f"the protocol run {proto:.2f} s) vs centralized engine (per-client generators) "
            f"{t['centralized']:.2f} s: ratio {t['distributed'] / t['centralized']:.1f}x; "
            f"{c.messages:,} messages, {c.bytes:,} bytes; estimates identical"
        )
        if "echo" in t:
            run_s = t["distributed"] - t["roles"]
            print(
                f"  floor: the same {2 * n:,} messages as Party-actor echo pings (no role work, "
                f"130-byte frames, all clients at once), network set-up included: {t['echo']:.2f} s; "
                f"RRBA (network set-up, run, evaluation; roles built) {run_s:.2f} s = "
                f"{run_s / t['echo']:.1f}x that"
            )
    data = load_network("survey").sample(n_secure, np.random.default_rng(3))
    out = {}
    for secure in (False, True):
        cfg = config_for(data, 250, 0.5, secure_tally=secure)
        res: list = []  # type: ignore[type-arg]
        w = median_times(
            {"run": lambda: res.append(run_distributed(data, cfg, MemoryRunner(), 1))},  # noqa: B023
            repeat=repeat,
            warmup=0,
        )["run"]
        out[secure] = (res[-1], w)
    (plain, wp), (sec, ws) = out[False], out[True]
    assert _same(plain.run, sec.run), "secure tally changed the estimates"
    cp, cs = plain.result.costs, sec.result.costs
    print(
        f"secure tally cost, survey, {n_secure:,} clients, B=250 over memory: plain "
        f"{cp.messages:,} messages / {cp.bytes:,} bytes / {wp:.2f} s; SecAgg+ per block "
        f"{cs.messages:,} messages / {cs.bytes:,} bytes / {ws:.2f} s; ratios "
        f"{cs.messages / cp.messages:.1f}x messages, {cs.bytes / cp.bytes:.0f}x bytes, "
        f"{ws / wp:.0f}x wall; per client {cs.data_parties()['mean']['bytes_sent']:.0f} bytes "
        f"sent vs {cp.data_parties()['mean']['bytes_sent']:.0f}; estimates identical"
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
    ap.add_argument("--part", choices=("block", "run", "distributed", "qp", "all"), default="all")
    ap.add_argument("--repeat", type=int, default=3, help="--part distributed: timed repeats")
    args = ap.parse_args(argv or [])
    if args.part in ("block", "all"):
        bench_block()
    if args.part in ("run", "all"):
        bench_runs()
    if args.part in ("distributed", "all"):
        bench_distributed(repeat=args.repeat)
    if args.part in ("qp", "all"):
        bench_qp()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
