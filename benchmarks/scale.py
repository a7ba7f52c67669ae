"""One simulation on every core: one process vs sharded processes vs Ray actors, same run.

Parts (``--part``, several allowed):

* ``rr``: the RR pipeline (``mpc-rr run adult``, dependence ``rr``) on
  ``--parties`` records of Adult (default all 32,561);
* ``secure-sum``: the same with ``--dependence secure-sum`` (SecAgg+ defaults),
  with the crypto floor of the run printed beside it: the X25519 exchanges the
  run performs (two per graph edge and endpoint, plus two key generations per
  party) times the cost of one exchange measured here, now, divided by the
  workers;
* ``million``: ``--million`` parties (default 1,000,000) through the RR
  pipeline, records drawn with replacement from Adult's rows (a bootstrap
  sample: Adult's schema and dependences, seeded), on the sharded engine:
  one task per party (``tasks``, the engine before :mod:`parties.shard_direct`)
  and the roles called directly (``direct``), interleaved, medians, ratios and
  peak RSS (workers + parent).  With ``--baseline REV`` the two sides are the
  direct engine of revision ``REV`` (``git archive``, run with its own code)
  and of this checkout instead.

The ``rr`` and ``secure-sum`` parts also run ``tasks xW`` (the sharded runner
with one task per party) beside ``sharded xW`` (direct): the baseline engine.

Each configuration runs ``--repeats`` times, interleaved round-robin so load
hits every side alike, each run in a fresh process (as a user's ``mpc-rr
run``; a run after a large one in the same process inherits its heap); the table gives medians of the wall time of
``mpc_rr.workflows.execute`` (planning + building every role where it
runs + the protocol), the ratio to the one-process runner, parties per second
per core, and the workers' memory per party (peak RSS of a worker minus its
RSS before it built its roles, over its parties).

    python -m benchmarks.scale --part rr --part secure-sum --repeats 3 [--ray]
    python -m benchmarks.scale --part secure-sum --max-dropout 0.3333 --max-corrupt 0  # degree 30
    python -m benchmarks.scale --part million --engine ray
    python -m benchmarks.scale --part million --million 100000 --baseline main --repeats 2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from mpc_rr.data import Dataset, load_adult
from mpc_rr.workflows import RunOptions
from mpc_rr.workflows._pipeline import Execution, execute
from parties.runners import runner_for
from parties.shards import available_cores


def x25519_exchange_s(count: int = 3000) -> tuple[float, float]:
    """Median (wall, CPU) seconds of one X25519 exchange (``cryptography``), measured now."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    sk = X25519PrivateKey.generate()
    pk = X25519PrivateKey.generate().public_key()
    wall, cpu = [], []
    for _ in range(5):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(count):
            sk.exchange(pk)
        wall.append((time.perf_counter() - t) / count)
        cpu.append((time.process_time() - c) / count)
    return statistics.median(wall), statistics.median(cpu)


def secagg_exchanges(ex: Execution) -> int:
    """X25519 operations of the run's SecAgg+: 2 agreements per edge end, 2 key generations per party."""
    from mpc_rr.pipeline._dependence import dependence_public

    cfg = dependence_public(ex.config).config  # the SecAgg+ public parameters of the run
    live = len(ex.result.parties_dependence)
    return int(2 * cfg.n * cfg.degree + 2 * live)


def _tasks(runner: Any) -> Any:
    runner.direct = False
    return runner


def _runners(workers: int, ray: bool) -> dict[str, Callable[[], Any]]:
    out: dict[str, Callable[[], Any]] = {
        "one process": lambda: runner_for("memory", step_timeout=600.0)
    }
    out[f"sharded x{workers}"] = lambda: runner_for("sharded", workers=workers, step_timeout=600.0)
    # the baseline engine: one trio task per party (before parties.shard_direct)
    out[f"tasks x{workers}"] = lambda: _tasks(
        runner_for("sharded", workers=workers, step_timeout=600.0)
    )
    if ray:
        out[f"ray x{workers}"] = lambda: runner_for("ray", workers=workers, step_timeout=600.0)
    return out


def _options(args: argparse.Namespace, dependence: str) -> RunOptions:
    return RunOptions(
        parties=args.parties, dependence=dependence, seed=args.seed,
        max_dropout=args.max_dropout, max_corrupt=args.max_corrupt,
    )  # fmt: skip


def _digest(ex: Execution) -> str:
    """Clusters and estimates of a run, hashed: equal digests = the same results."""
    import hashlib

    h = hashlib.sha256(repr(ex.result.clustering.clusters).encode())
    for est in ex.result.estimates:
        h.update(np.ascontiguousarray(est.distribution, np.float64).tobytes())
    return h.hexdigest()


def run_child(args: argparse.Namespace) -> dict[str, Any]:
    """One measured run (``--child RUNNER``), in this fresh process: what the parent reports."""
    dependence = args.part[0]
    data = load_adult()
    make = _runners(args.workers, args.child.startswith("ray"))[args.child]
    t, c = time.perf_counter(), time.process_time()
    ex = execute(_options(args, dependence), make(), data)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    extra = ex.run.costs.extra
    # CPU seconds on the critical path: what the wall would be on idle cores
    critical = (
        cpu if "critical_cpu_s" not in extra
        else extra["startup_cpu_s"] + extra["build_cpu_s"] + extra["critical_cpu_s"] + cpu
    )  # fmt: skip
    return {
        "execute_s": wall,
        "critical_s": critical,
        "workers": int(extra.get("workers", 1)),
        "bytes_per_party": extra.get("bytes_per_party"),
        "supersteps": extra.get("supersteps"),
        "start_s": extra.get("start_s"),
        "digest": _digest(ex),
        "x25519_ops": secagg_exchanges(ex) if dependence == "secure-sum" else None,
    }


def _measure(
    args: argparse.Namespace, dependence: str, names: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """``--repeats`` runs of each runner, interleaved round-robin, each in a fresh process.

    A fresh process per run, as a user's ``mpc-rr run``: a run in the same
    process as an earlier large one inherits its heap (and, forked, its
    workers do), which measured ~5 s slower for the sharded secure-sum run.
    """
    import subprocess
    import sys

    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in names}
    for _ in range(args.repeats):
        for name in names:
            cmd = [
                sys.executable, "-m", "benchmarks.scale", "--child", name, "--part", dependence,
                "--workers", str(args.workers), "--seed", str(args.seed),
            ]  # fmt: skip
            for flag, value in (
                ("--parties", args.parties), ("--max-dropout", args.max_dropout),
                ("--max-corrupt", args.max_corrupt),
            ):  # fmt: skip
                if value is not None:
                    cmd += [flag, str(value)]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"benchmark run {name!r} failed:\n{proc.stderr[-3000:]}")
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[name].append(res)
            print(
                f"  {name}: {res['execute_s']:.2f} s wall, {res['critical_s']:.2f} s critical-path CPU",
                flush=True,
            )
    return runs


def _row(
    name: str, runs: list[dict[str, Any]], base: tuple[float, float], n: int
) -> dict[str, Any]:
    wall = statistics.median(r["execute_s"] for r in runs)
    first = runs[0]
    mem = first["bytes_per_party"]
    crit = statistics.median(r["critical_s"] for r in runs)
    return {
        "runner": name,
        "median_s": round(wall, 2),
        "ratio": round(wall / base[0], 3),
        "critical_s": round(crit, 2),
        "critical_ratio": round(crit / base[1], 3),
        "parties_per_s_per_core": round(n / wall / first["workers"]),
        "bytes_per_party": None if mem is None else round(mem),
        "supersteps": first["supersteps"],
        "start_s": None if first["start_s"] is None else round(first["start_s"], 2),
        "samples": [round(r["execute_s"], 2) for r in runs],
    }


def part_pipeline(args: argparse.Namespace, dependence: str) -> dict[str, Any]:
    n = args.parties or load_adult().n
    print(
        f"\n{dependence} pipeline, {n:,} parties, {args.workers} workers, {args.repeats} repeats",
        flush=True,
    )
    runs = _measure(args, dependence, list(_runners(args.workers, args.ray)))
    one = runs["one process"]
    base = (
        statistics.median(r["execute_s"] for r in one),
        statistics.median(r["critical_s"] for r in one),
    )
    rows = [_row(k, v, base, n) for k, v in runs.items()]
    out: dict[str, Any] = {
        "part": dependence, "parties": n, "workers": args.workers, "rows": rows,
        "same_estimates": len({r["digest"] for v in runs.values() for r in v}) == 1,
    }  # fmt: skip
    if dependence == "secure-sum":
        wall, cpu = x25519_exchange_s()
        count = int(one[0]["x25519_ops"])
        out["x25519_us"] = round(wall * 1e6, 2)
        out["x25519_cpu_us"] = round(cpu * 1e6, 2)
        out["x25519_ops"] = count
        out["crypto_floor_core_s"] = round(count * cpu, 2)
        out["crypto_floor_s_on_workers"] = round(count * cpu / args.workers, 2)
    return out


def bootstrap_adult(n: int, seed: int) -> Dataset:
    """``n`` records drawn uniformly with replacement from Adult's rows (seeded)."""
    data = load_adult()
    rows = np.random.default_rng(np.random.SeedSequence([seed, 0xB007])).integers(0, data.n, n)
    return Dataset(data.schema, np.ascontiguousarray(data.codes[rows]), name="adult-bootstrap")


def million_child(args: argparse.Namespace) -> dict[str, Any]:
    """One ``--part million`` run in this fresh process (``--child million-direct|million-tasks``)."""
    n = args.million
    data = bootstrap_adult(n, args.seed)
    opts = RunOptions(dependence="rr", seed=args.seed, queries=50)
    kind = "ray" if args.engine == "ray" else "sharded"
    direct = args.child.endswith("direct")
    t, c = time.perf_counter(), time.process_time()
    runner = runner_for(kind, workers=args.workers, step_timeout=600.0)
    runner.direct = direct  # type: ignore[attr-defined]
    ex = execute(opts, runner, data)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    extra = ex.run.costs.extra
    from parties.process_stats import peak_rss_bytes

    return {
        "mode": "direct" if direct else "tasks",
        "ok": ex.run.ok,
        "released": len(ex.result.parties_release),
        "digest": _digest(ex),
        "execute_s": wall,
        "worker_peak_rss_gb": [r / 2**30 for r in extra["worker_peak_rss"]],
        "parent_peak_rss_gb": (peak_rss_bytes() or 0) / 2**30,
        "supersteps": extra["supersteps"],
        "start_s": extra["start_s"],
        "build_s": extra["build_s"],
        "messages": ex.run.costs.messages,
        # CPU seconds: what the wall would be on idle cores
        "critical_s": extra["startup_cpu_s"] + extra["build_cpu_s"] + extra["critical_cpu_s"] + cpu,
        "superstep_cpu_s": extra["superstep_cpu_s"],
        "split": extra.get("split", False),
        # serial CPU outside the supersteps: this process (planning, the runner's parent, merging the
        # shards' columns) vs the parallel worker start-up and building (the busiest worker's)
        "parent_cpu_s": cpu, "runner_parent_cpu_s": extra["parent_cpu_s"],
        "build_cpu_s": extra["build_cpu_s"], "startup_cpu_s": extra["startup_cpu_s"],
        # the distinct released / Sec. 4.1 patterns the estimates come from (measured, not guessed)
        "patterns": _distinct(ex.result.randomized),
        "dependence_patterns": _distinct(ex.result.dependence_randomized),
    }


def _distinct(rows: np.ndarray | None) -> int | None:
    return None if rows is None else int(np.unique(np.asarray(rows), axis=0).shape[0])


def _coordinator_s(res: dict[str, Any]) -> float:
    """CPU seconds of the supersteps in which only party 0's shard works (one worker busy, the
    others idle: the coordinator's serial time), i.e. every superstep but the first (start)
    and the one where the parties verify and release, which keep every worker busy."""
    steps = res["superstep_cpu_s"]
    serial = [max(s) for s in steps if len(s) > 1 and sorted(s)[-2] < 0.2 * max(s)]
    return float(sum(serial))


def part_million(args: argparse.Namespace) -> dict[str, Any]:
    """``--million`` bootstrap parties through the RR pipeline on ``--workers`` shards: one task
    per party (the engine before the direct one) and the roles called directly, interleaved,
    each run in a fresh process; medians, ratios and memory (peak RSS: workers + parent)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from benchmarks._baseline import ROOT, export_tree
    from mpc_rr.data import data_dir

    n = args.million
    print(f"\nRR pipeline, {n:,} bootstrap parties, {args.engine} x{args.workers}", flush=True)
    modes = ("tasks", "direct") if args.baseline is None else ("baseline", "ours")
    trees = {m: ROOT for m in modes}
    tmp = None
    if args.baseline is not None:
        tmp = tempfile.TemporaryDirectory(prefix="scale-baseline-")
        trees["baseline"] = export_tree(args.baseline, Path(tmp.name))
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for _ in range(args.repeats):
        for m in modes:
            child = "million-tasks" if m == "tasks" else "million-direct"
            cmd = [
                sys.executable, "-m", "benchmarks.scale", "--child", child, "--part", "million",
                "--million", str(n), "--workers", str(args.workers), "--seed", str(args.seed),
                "--engine", args.engine,
            ]  # fmt: skip
            env = dict(os.environ, PYTHONPATH=str(trees[m]), MPC_RR_DATA=str(data_dir()))
            proc = subprocess.run(
                cmd, capture_output=True, text=True, check=False, cwd=str(trees[m]), env=env
            )
            if proc.returncode != 0:
                raise RuntimeError(f"benchmark run {m!r} failed:\n{proc.stderr[-3000:]}")
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[m].append(res)
            mem = sum(res["worker_peak_rss_gb"]) + res["parent_peak_rss_gb"]
            print(f"  {m}: {res['execute_s']:.1f} s wall, {res['critical_s']:.1f} s critical CPU, "
                  f"{_coordinator_s(res):.2f} s coordinator (serial), {mem:.2f} GB peak RSS, "
                  f"patterns {res.get('patterns')}", flush=True)  # fmt: skip
    if tmp is not None:
        tmp.cleanup()
    rows = []
    for m in modes:
        rs = runs[m]
        mem = statistics.median(sum(r["worker_peak_rss_gb"]) + r["parent_peak_rss_gb"] for r in rs)
        rows.append({
            "mode": m, "median_s": round(statistics.median(r["execute_s"] for r in rs), 1),
            "critical_s": round(statistics.median(r["critical_s"] for r in rs), 1),
            "peak_rss_gb": round(mem, 2), "kb_per_party": round(mem * 2**30 / n / 1e3, 2),
            "samples": [round(r["execute_s"], 1) for r in rs],
            "superstep_cpu_s": rs[0]["superstep_cpu_s"], "ok": all(r["ok"] for r in rs),
            "coordinator_s": round(statistics.median(_coordinator_s(r) for r in rs), 2),
            "patterns": rs[0].get("patterns"), "dependence_patterns": rs[0].get("dependence_patterns"),
        })  # fmt: skip
    base, ours = rows
    return {
        "part": "million", "parties": n, "engine": args.engine, "workers": args.workers, "rows": rows,
        "baseline": args.baseline,
        "wall_ratio": round(ours["median_s"] / base["median_s"], 3),
        "critical_ratio": round(ours["critical_s"] / base["critical_s"], 3),
        "memory_ratio": round(ours["peak_rss_gb"] / base["peak_rss_gb"], 3),
        "same_estimates": len({r["digest"] for v in runs.values() for r in v}) == 1,
    }  # fmt: skip


def _print(res: dict[str, Any]) -> None:
    if res["part"] == "million":
        what = "direct / tasks" if res["baseline"] is None else f"ours / {res['baseline']}"
        print(f"\nRR pipeline, {res['parties']:,} parties (medians; ratio = {what})")
        for r in res["rows"]:
            print(f"  {r['mode']:<8}{r['median_s']:>9.1f} s wall{r['critical_s']:>9.1f} s crit CPU"
                  f"{r['peak_rss_gb']:>8.2f} GB{r['kb_per_party']:>8.2f} KB/party"
            f"{r['coordinator_s']:>8.2f} s coord ({r['coordinator_s'] / res['parties'] * 1e6:.2f} us/party)"
            f"  {r['samples']}")  # fmt: skip
        print(f"  distinct patterns (ours): released {res['rows'][-1]['patterns']}, "
              f"Sec. 4.1 records {res['rows'][-1]['dependence_patterns']}")  # fmt: skip
        print(
            f"  ratios: wall {res['wall_ratio']}, critical CPU {res['critical_ratio']}, "
            f"memory {res['memory_ratio']}; same clusters and estimates: {res['same_estimates']}"
        )
        return
    print(
        f"\n{res['part']} pipeline, {res['parties']:,} parties (medians; ratio = runner / one process)"
    )
    print(
        f"  {'runner':<14}{'wall s':>8}{'ratio':>7}{'crit s':>8}{'ratio':>7}"
        f"{'parties/s/core':>16}{'B/party':>10}{'steps':>7}{'start s':>9}"
    )
    for r in res["rows"]:
        mem = "-" if r["bytes_per_party"] is None else f"{r['bytes_per_party']:,}"
        print(
            f"  {r['runner']:<14}{r['median_s']:>8.2f}{r['ratio']:>7.3f}{r['critical_s']:>8.2f}"
            f"{r['critical_ratio']:>7.3f}{r['parties_per_s_per_core']:>16,}{mem:>10}"
            f"{r['supersteps'] or '-':>7}{r['start_s'] if r['start_s'] is not None else '-':>9}"
        )
    print(
        "  (crit = CPU seconds on the critical path: one process: its CPU; sharded: worker start-up "
        "+ building + the busiest worker of each superstep + the parent; = the wall on idle cores)"
    )
    print(f"  same clusters and estimates in every run: {res['same_estimates']}")
    if "x25519_us" in res:
        print(
            f"  crypto floor: {res['x25519_ops']:,} X25519 operations x {res['x25519_cpu_us']} us CPU "
            f"({res['x25519_us']} us wall now) = {res['crypto_floor_core_s']} core-s, "
            f"{res['crypto_floor_s_on_workers']} s on {res['workers']} workers (compare with crit s)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--part", action="append", choices=("rr", "secure-sum", "million"))
    ap.add_argument("--parties", type=int, default=None, help="Adult records (default: all 32,561)")
    ap.add_argument("--workers", type=int, default=available_cores())
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ray", action="store_true", help="also run the shards as Ray actors")
    ap.add_argument(
        "--max-dropout", type=float, default=None, help="SecAgg+ bound (secure-sum part)"
    )
    ap.add_argument(
        "--max-corrupt", type=float, default=None, help="SecAgg+ bound (secure-sum part)"
    )
    ap.add_argument(
        "--engine", choices=("processes", "ray"), default="processes", help="for --part million"
    )
    ap.add_argument("--million", type=int, default=1_000_000, help="parties of --part million")
    ap.add_argument(
        "--baseline", default=None, metavar="REV",
        help="--part million: compare the direct engine of revision REV (e.g. main) with ours",
    )  # fmt: skip
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)  # one measured run (internal)
    args = ap.parse_args(argv)
    if args.child is not None:
        print(
            json.dumps(million_child(args) if args.child.startswith("million") else run_child(args))
        )
        return 0
    parts = args.part or ["rr"]
    results = []
    for part in parts:
        res = part_million(args) if part == "million" else part_pipeline(args, part)
        results.append(res)
        _print(res)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
