"""Cost of the active-adversary SecAgg+: signatures, audit paths, the consistency round.

Run ``python -m benchmarks.cheating [--quick] [--repeat R] [--baseline-ref main]``.

The baseline is today's protocol on ``--baseline-ref`` (exported with ``git
archive`` into a temporary folder, never checked out); ours is this tree.
Each measurement is a fresh process (``python -c``: imports and caches
cold, as a user's run), baseline and ours interleaved (the order reversed
every other round), ``R`` times each (``--also-ref REV``: a third revision interleaved too, e.g. main):
medians of wall and CPU time of the run (``run_secure_sum``: roles built and
run; this process's CPU time, which a loaded machine disturbs less: the
memory runner runs in this one process; over TCP the parties do too),
messages and bytes, and the ratios ours / baseline: of the medians, and
the median of each round's ratio (``round_cpu_ratio_median``: the two runs
of a round are back to back, so a shared machine's load cancels best).  Configurations: n = 100
and 1,000 in memory, n = 100 over TCP + TLS (one process, every party over
127.0.0.1), 16 cells of 0/1, SecAgg+ defaults.  The machine is shared: the
load average is printed, compare the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_SNIPPET = """
import json, time, numpy as np
from mpc_rr.workflows import run_secure_sum
from parties.runners import runner_for
n, cells, transport = {n}, {cells}, {transport!r}
x = np.random.default_rng(0).integers(0, 2, (n, cells))
t, c = time.perf_counter(), time.process_time()
rep = run_secure_sum("secagg", x, seed=1, runner=runner_for(transport))
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({{"wall": wall, "cpu": cpu, "exact": bool(rep.exact), "messages": rep.costs.messages,
                  "bytes": rep.costs.bytes, "total": [int(v) for v in rep.total]}}))
"""


def _export(ref: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _one(tree: Path, n: int, cells: int, transport: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-c", _SNIPPET.format(n=n, cells=cells, transport=transport)],
                         cwd=tree, env=env, capture_output=True, text=True, timeout=3600)  # fmt: skip
    if out.returncode:
        raise RuntimeError(f"{tree}: {out.stderr[-2000:]}")
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--baseline-ref", default="main")
    p.add_argument("--also-ref", default=None, help="a third revision interleaved (e.g. main), with its ratios")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="n = 100 in memory only")
    p.add_argument("--configs", default="100:memory,1000:memory,100:tcp", help="N:TRANSPORT,... to measure")
    args = p.parse_args(argv)
    configs = [(int(c.split(":")[0]), c.split(":")[1]) for c in args.configs.split(",")]
    if args.quick:
        configs = [(100, "memory")]
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = _export(args.baseline_ref, Path(tmp) / "baseline")
        trees = {"baseline": base, "ours": ROOT}
        if args.also_ref is not None:
            trees = {"baseline": base, "also": _export(args.also_ref, Path(tmp) / "also"), "ours": ROOT}
        for n, transport in configs:
            got: dict[str, list[dict]] = {name: [] for name in trees}
            for i in range(args.repeat):  # interleaved, the order reversed every other round
                order = list(trees.items()) if i % 2 == 0 else list(reversed(trees.items()))
                for name, tree in order:
                    got[name].append(_one(tree, n, 16, transport))
            b, o = got["baseline"], got["ours"]
            assert all(r["exact"] for r in b + o) and b[0]["total"] == o[0]["total"], "results differ"
            med = {k: statistics.median(r["wall"] for r in v) for k, v in got.items()}
            cpu = {k: statistics.median(r["cpu"] for r in v) for k, v in got.items()}
            row = {
                "n": n, "transport": transport, "baseline_s": round(med["baseline"], 3),
                "ours_s": round(med["ours"], 3), "time_ratio": round(med["ours"] / med["baseline"], 3),
                "baseline_cpu_s": round(cpu["baseline"], 3), "ours_cpu_s": round(cpu["ours"], 3),
                "cpu_ratio": round(cpu["ours"] / cpu["baseline"], 3),
                "baseline_messages": b[0]["messages"], "ours_messages": o[0]["messages"],
                "baseline_bytes": b[0]["bytes"], "ours_bytes": o[0]["bytes"],
                "bytes_ratio": round(o[0]["bytes"] / b[0]["bytes"], 3),
                "samples_s": {k: [round(r["wall"], 3) for r in v] for k, v in got.items()},
            }  # fmt: skip
            # each round's ours / baseline (run back to back: the machine's load cancels best)
            pairs = sorted(x["cpu"] / y["cpu"] for x, y in zip(o, b, strict=True))
            row["round_cpu_ratios"] = [round(r, 3) for r in pairs]
            row["round_cpu_ratio_median"] = round(statistics.median(pairs), 3)
            if "also" in got:
                a = got["also"]
                assert a[0]["total"] == o[0]["total"], "results differ"
                row["also_ref"], row["also_cpu_s"] = args.also_ref, round(cpu["also"], 3)
                row["also_cpu_ratio"] = round(cpu["also"] / cpu["baseline"], 3)
                row["ours_over_also_cpu"] = round(cpu["ours"] / cpu["also"], 3)
                row["also_bytes"] = a[0]["bytes"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
