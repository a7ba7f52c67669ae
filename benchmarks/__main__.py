"""Run every benchmark module of this package that defines ``main()``.

``python -m benchmarks [MODULE ...]`` runs the named modules only (default: all).
By default each runs at its QUICK size (:data:`QUICK`: the whole set in minutes,
enough to see every ratio); ``--full`` runs each module with its own defaults
(the long runs: hours on a 2-core machine).  Each module prints when it starts
and how long it took.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks

QUICK: dict[str, list[str]] = {
    "adjustment": ["--runs", "10", "--p", "0.7"],
    "adversary": ["--quick", "--part", "audits,linkability,rrba"],
    "cheating": ["--quick", "--repeat", "1"],
    "classroom_scale": ["--pages", "5", "--sizes", "30", "--runs", "1"],
    "data_loading": ["--rows", "20000", "--repeat", "1"],
    "families": ["--quick", "--repeats", "2"],
    "hostile_hub": ["--outsiders", "0", "200", "--repeat", "1"],
    "hot_paths": ["--parties", "500", "--cells", "200", "--repeats", "1", "--baseline", ""],
    "hub_flood": ["--frames", "20", "--size", "1"],
    "instructions": ["--n", "100"],
    "network": ["--parties", "50", "--cells", "16"],
    "noisy_dependence": ["--parties", "2000", "--draws", "1"],
    "prio3": ["--part", "micro", "--quick"],
    "prio3_units": ["--quick", "--repeats", "1", "--baseline", "", "--only", "Field128"],
    "refusals": ["--repeat", "3"],
    "perturb_estimate": ["--processes", "1", "--repeat", "5", "--baseline", ""],
    "privacy_accountant": ["--repeats", "1", "--curve-repeats", "1"],
    "rr": ["--table1-runs", "5"],
    "rrba": ["--part", "block", "--repeat", "1"],
    "rrba_qp": ["--clients", "4000", "--targets", "1", "--repeats", "1", "--baseline", ""],
    "rrba_wide": ["--categories", "10", "--attributes", "6", "--clients", "2000", "--block", "500", "--repeats", "1", "--baseline", ""],
    "runtime_memory": ["--parties", "1000", "--repeats", "2"],
    "runtime_tcp": ["--parties", "100", "--repeats", "1", "--procs", "10"],
    "scale": ["--part", "rr", "--parties", "4000", "--repeats", "1"],
    "secure_sum": ["--quick"],
    "secagg_exclusion": ["--sizes", "100"],
    "simulate": ["--schedules", "400"],
    "tls_parties": ["--parties", "200", "--repeats", "1"],
}
"""Each module's arguments for the default (quick) run; a module not listed runs its defaults."""


def main() -> int:
    args = sys.argv[1:]
    full = "--full" in args
    only = {a for a in args if a != "--full"}
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if not m.name.startswith("_"))
    unknown = only - set(names)
    if unknown:
        print(f"benchmarks: no module {', '.join(sorted(unknown))}; have {', '.join(names)}", file=sys.stderr)
        return 2
    chosen = [m for m in names if not only or m in only]
    t_all = time.perf_counter()
    for k, mod in enumerate(chosen, 1):
        argv = [] if full else QUICK.get(mod, [])
        print(f"\n##### [{k}/{len(chosen)}] benchmarks.{mod} {' '.join(argv)}", flush=True)
        t0 = time.perf_counter()
        m = importlib.import_module(f"benchmarks.{mod}")
        if hasattr(m, "main"):
            m.main(argv)
        print(f"##### benchmarks.{mod}: {time.perf_counter() - t0:.0f} s "
              f"(all so far {time.perf_counter() - t_all:.0f} s)", flush=True)  # fmt: skip
    if not full:
        print("\n(quick sizes; `make bench-full` or `python -m benchmarks --full` for the long runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
