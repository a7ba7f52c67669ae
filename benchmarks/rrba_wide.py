"""RRBA collection on wide tables: wall time and memory, a baseline revision vs this checkout.

A synthetic data set of ``--attributes`` attributes with ``--categories``
categories each (uniform codes, seeded) is collected by ``run_rrba`` with
``k``-subsets (``--k``; the widest table has ``categories ** k`` cells) and
blocks of ``--block`` clients.  Each run happens in a fresh process; the
baseline tree (``--baseline``, extracted with ``git archive``) and this
checkout alternate run by run so that the load of a shared machine hits both
alike.  The table gives medians of the collection's wall time and of the
growth of the peak RSS during it (``ru_maxrss`` after - before), the ratios
new / baseline, and the load average.  ``--marginals N`` adds what ``mpc-rr rrba``
evaluates after the collection (``marginal_errors`` with ``max_tables=N``, its default rule
on which sets fit): the wall time then covers both, ``marginals s`` that part alone;
``--timeout S`` stops a child after ``S`` seconds and reports it as "over S".

    python -m benchmarks.rrba_wide --categories 40 --attributes 8 --clients 8000 --repeats 3
    python -m benchmarks.rrba_wide --census 35 --clients 20000 --marginals 20 --timeout 300
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CENSUS = (91, 9, 52, 47, 17, 1240, 3, 7, 24, 15, 5, 10, 2, 3, 6, 8, 132, 113, 1478, 6, 6, 51, 38,
          8, 99800, 10, 9, 10, 3, 4, 7, 5, 43, 43, 43, 5, 3, 3, 3, 53, 2, 2)  # fmt: skip
"""Category counts of the 42 columns of UCI Census-Income (KDD), as its ``.names`` file lists them
(the census set itself is not shipped: ``--census N`` draws uniform codes
over these counts).  ``--census 35`` keeps the 35 columns that are not numeric measurements
(drops age, wage per hour, capital gains and losses, dividends, instance weight, weeks worked)."""
_NUMERIC = (0, 5, 16, 17, 18, 24, 39)
BASELINE = "8e9d6af"
"""The commit before answers_from_uniforms stopped materializing (answers x W) arrays."""


def _child(a: argparse.Namespace) -> dict[str, float]:
    import resource
    import time

    import numpy as np

    from mpc_rr.data import Attribute, Dataset, Schema
    from mpc_rr.rrba import run_rrba

    if a.census:
        keep = range(42) if a.census > 35 else [i for i in range(42) if i not in _NUMERIC]
        sizes = [CENSUS[i] for i in list(keep)[: a.census]]
    else:
        sizes = [a.categories] * a.attributes
    schema = Schema(tuple(Attribute(f"a{i}", tuple(map(str, range(c)))) for i, c in enumerate(sizes)))
    codes = np.random.default_rng(a.seed).integers(0, sizes, (a.clients, len(sizes)))
    data = Dataset(schema, codes)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t = time.perf_counter()
    run = run_rrba(data, p=0.5, block=a.block, k=a.k, seed=a.seed)
    collected = time.perf_counter()
    digest = float(sum(float(np.asarray(e).sum()) for e in run.estimates))
    if a.marginals:
        from mpc_rr.workflows._rrba import marginal_errors

        marg = marginal_errors(run, data, np.random.default_rng(a.seed + 1), max_tables=a.marginals)
        digest += sum(v["l2_mean"] + v["tables"] for v in marg.values())
    wall = time.perf_counter() - t
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    return {"wall_s": wall, "marginals_s": time.perf_counter() - collected,
            "rss_growth_mb": grew / 1e6, "digest": digest, "load": os.getloadavg()[0]}  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rrba_wide", description=__doc__.splitlines()[0])
    p.add_argument("--categories", type=int, default=40)
    p.add_argument("--attributes", type=int, default=8)
    p.add_argument("--census", type=int, default=0, help="N census-like attributes instead (see CENSUS)")
    p.add_argument("--k", type=int, default=2)
    p.add_argument("--clients", type=int, default=8000)
    p.add_argument("--block", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--marginals", type=int, default=0, help="also evaluate N marginals per order")
    p.add_argument("--timeout", type=float, default=None, help="stop a child after this many s")
    p.add_argument("--baseline", default=BASELINE, help="git revision to compare with ('' = none)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        res = _child(a)
        print(json.dumps(res))
        return dict(res)
    keys = ("categories", "attributes", "k", "clients", "block", "seed", "marginals")
    args = [f"--{k}={getattr(a, k)}" for k in keys]
    args += [f"--census={a.census}"] if a.census else []
    with tempfile.TemporaryDirectory(prefix="mpc-rr-baseline-") as tmp:
        from benchmarks._baseline import (  # the parent only (a child may run an older tree)
            export_tree,
            run_child,
        )

        trees = {"this checkout": ROOT}
        if a.baseline:
            trees = {f"baseline {a.baseline}": export_tree(a.baseline, Path(tmp)), **trees}
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in trees}
        for _ in range(a.repeats):
            for name, tree in trees.items():
                try:
                    runs[name].append(run_child(__file__, tree, args, timeout=a.timeout))
                except subprocess.TimeoutExpired:
                    inf = float("inf")
                    runs[name].append({"wall_s": inf, "marginals_s": inf, "rss_growth_mb": inf,
                                       "digest": inf, "load": os.getloadavg()[0]})  # fmt: skip
    rows = {
        name: {
            "wall_s": statistics.median(r["wall_s"] for r in rs),
            "marginals_s": statistics.median(r.get("marginals_s", 0.0) for r in rs),
            "rss_growth_mb": statistics.median(r["rss_growth_mb"] for r in rs),
        }
        for name, rs in runs.items()
    }
    loads = [r["load"] for rs in runs.values() for r in rs]
    same = len({r["digest"] for rs in runs.values() for r in rs if r["digest"] != float("inf")}) == 1
    shape = (
        f"{a.census} census-like attributes (category counts of Census-Income KDD)"
        if a.census
        else f"{a.attributes} attributes x {a.categories} categories, k={a.k} (widest table {a.categories ** a.k:,} cells)"
    )
    print(
        f"RRBA, {shape}, {a.clients:,} clients, B={a.block}; medians of {a.repeats} "
        f"interleaved fresh processes; load average {min(loads):.1f}-{max(loads):.1f}; same estimates: {same}"
    )
    print(f"  {'code':24} {'wall s':>10} {'marginals s':>12} {'RSS growth MB':>14}")
    for name, r in rows.items():
        if math.isinf(r["wall_s"]):
            print(f"  {name:24} {'over ' + str(a.timeout):>10} {'-':>12} {'-':>14}")
            continue
        print(f"  {name:24} {r['wall_s']:>10.2f} {r['marginals_s']:>12.2f} {r['rss_growth_mb']:>14.1f}")
    report: dict[str, object] = {"rows": rows, "same_estimates": same, "load": loads}
    if len(rows) == 2 and not math.isinf(next(iter(rows.values()))["wall_s"]):
        base, new = rows.values()
        report["wall_ratio"] = new["wall_s"] / base["wall_s"]
        report["rss_ratio"] = new["rss_growth_mb"] / max(base["rss_growth_mb"], 1e-9)
        print(f"  new / baseline: wall {report['wall_ratio']:.3f}, RSS growth {report['rss_ratio']:.3f}")
    return report


if __name__ == "__main__":
    main()
