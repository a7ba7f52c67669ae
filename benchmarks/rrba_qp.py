"""RRBA's consistent 3-/4-way marginals (the Sec. 4.3 QP): seconds per QP, a baseline vs this checkout.

The inputs are the same in both trees: Adult's 8 categorical attributes
(9/16/7/15/6/5/2/2 categories, the census-like stand-in for a researcher's
data; the held-out census set is not among the shipped data sets), ``--clients``
records shuffled with the seed, one centralized RRBA collection (pairs,
B = 250, p = 0.5), then ``--targets`` random 3- and 4-attribute sets fitted
by :func:`mpc_rr.rrba.reconstruct` with its default solver.  Each run is a
fresh process; the baseline tree (``--baseline``, extracted with ``git
archive``) and this checkout alternate run by run.  The table gives the
median seconds per QP (both stages) per order and the ratio new / baseline;
the largest ``|x_new - x_baseline|`` over every cell of every fitted table
checks that both meet the same optimum.

    python -m benchmarks.rrba_qp --clients 20000 --targets 2 --repeats 3
    python -m benchmarks.rrba_qp --largest --targets 1 --baseline main   # Adult's widest tables
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "c349522"
"""main before the sparse QP (dense ``A'A`` Hessian and dense constraint matrices)."""


def _child(a: argparse.Namespace) -> dict[str, object]:
    import time
    from itertools import combinations

    import numpy as np

    from mpc_rr.data._records import load_records
    from mpc_rr.rrba import reconstruct, run_rrba

    data_rng, target_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(a.seed).spawn(2))
    data, _ = load_records("adult", a.clients, data_rng)
    run = run_rrba(data, p=0.5, block=250, k=2, seed=a.seed, client_rng="shared")
    sizes, d = data.schema.sizes, len(data.schema)
    out: dict[str, object] = {"load": os.getloadavg()[0]}
    tables: dict[str, np.ndarray] = {}
    for order in (3, 4):
        every = list(combinations(range(d), order))
        pick = target_rng.choice(len(every), a.targets, replace=False)
        if a.largest:  # the widest tables (Adult's largest 4-way: 15,120 cells)
            pick = np.argsort([-np.prod([sizes[x] for x in t]) for t in every], kind="stable")[: a.targets]
        secs = []
        for i in sorted(int(j) for j in pick):
            t0 = time.perf_counter()
            m = reconstruct(every[i], sizes, run.cover.subsets, run.estimates)
            secs.append(time.perf_counter() - t0)
            tables[",".join(map(str, every[i]))] = m.table.reshape(-1)
        out[f"s_per_qp_{order}"] = statistics.median(secs)
        out[f"cells_{order}"] = max(int(np.prod([sizes[x] for x in every[i]])) for i in pick)
    np.savez(a.save, **tables)
    return out


def main(argv: list[str] | None = None) -> dict[str, object]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rrba_qp", description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=20000)
    p.add_argument("--targets", type=int, default=2, help="random targets per order (3 and 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--largest", action="store_true", help="the widest targets instead of random ones")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--baseline", default=BASELINE, help="git revision to compare with ('' = none)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--save", default="", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        res = _child(a)
        print(json.dumps(res))
        return res
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="mpc-rr-baseline-") as tmp:
        from benchmarks._baseline import export_tree, run_child  # the parent only

        trees = {"this checkout": ROOT}
        if a.baseline:
            base = Path(tmp) / "tree"
            base.mkdir()
            trees = {f"baseline {a.baseline}": export_tree(a.baseline, base), **trees}
        runs: dict[str, list[dict[str, object]]] = {k: [] for k in trees}
        saved: dict[str, dict[str, np.ndarray]] = {}
        for r in range(a.repeats):
            for j, (name, tree) in enumerate(trees.items()):
                save = str(Path(tmp) / f"tables-{j}-{r}.npz")
                args = [f"--clients={a.clients}", f"--targets={a.targets}", f"--seed={a.seed}", f"--save={save}"]
                args += ["--largest"] if a.largest else []
                runs[name].append(run_child(__file__, tree, args))
                with np.load(save) as z:
                    saved[name] = {k: z[k] for k in z.files}
    rows = {
        name: {f"s_per_qp_{o}": statistics.median(float(r[f"s_per_qp_{o}"]) for r in rs) for o in (3, 4)}  # type: ignore[arg-type]
        for name, rs in runs.items()
    }
    loads = [float(r["load"]) for rs in runs.values() for r in rs]  # type: ignore[arg-type]
    first = next(iter(runs.values()))[0]
    print(
        f"RRBA consistency QP on Adult (8 attributes), {a.clients:,} clients, {a.targets} "
        f"{'widest' if a.largest else 'random'} targets per order (largest {first['cells_3']:,} / {first['cells_4']:,} cells); medians of {a.repeats} "
        f"interleaved fresh processes; load average {min(loads):.1f}-{max(loads):.1f}"
    )
    print(f"  {'code':24} {'3-way s/QP':>11} {'4-way s/QP':>11}")
    for name, row in rows.items():
        print(f"  {name:24} {row['s_per_qp_3']:>11.3f} {row['s_per_qp_4']:>11.3f}")
    report: dict[str, object] = {"rows": rows, "load": loads}
    if len(rows) == 2:
        (bn, base_row), (nn, new_row) = rows.items()
        diff = max(float(np.abs(saved[bn][k] - saved[nn][k]).max()) for k in saved[nn])
        report["max_abs_diff"] = diff
        for o in (3, 4):
            report[f"ratio_{o}"] = new_row[f"s_per_qp_{o}"] / base_row[f"s_per_qp_{o}"]
        print(
            f"  new / baseline: 3-way {report['ratio_3']:.4f}, 4-way {report['ratio_4']:.4f}; "
            f"largest |x_new - x_baseline| over every cell {diff:.2e}"
        )
    return report


if __name__ == "__main__":
    main()
