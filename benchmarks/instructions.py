"""Instructions of one SecAgg+ run, ours against a baseline revision: a cost ratio the machine's load cannot move.

Run ``python -m benchmarks.instructions [--baseline-ref c349522] [--n 1000]`` (needs
``valgrind``, Debian's package; about 9 minutes at n = 1,000).

Time on a shared machine wanders by tens of percent within seconds, so a ratio of
two timed runs needs many rounds (``benchmarks.cheating``).  ``valgrind
--tool=callgrind`` counts the instructions the process executes instead:
deterministic for a fixed ``PYTHONHASHSEED`` (the keys come from the CSPRNG, and
X25519, AES-GCM and deterministic signatures do the same work whatever the keys;
Ed25519 and ECDSA verification vary by a few instructions).  Each tree runs the
benchmark's snippet (``run_secure_sum("secagg", x, seed=1)`` over the memory
transport, 16 cells of 0/1) after a 10-party warm-up, and once with the warm-up
alone: the difference is the run, imports excluded.  Baseline and ours run side by
side, one process per core.  Instructions are not time (IPC differs between
assembly-heavy crypto and the interpreter), so read this beside the timed ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.cheating import ROOT, _export

_SNIPPET = """
import sys, numpy as np
from mpc_rr.workflows import run_secure_sum
from parties.runners import runner_for
n = int(sys.argv[1])
x = np.random.default_rng(0).integers(0, 2, (max(n, 10), 16))
run_secure_sum("secagg", x[:10], seed=1, runner=runner_for("memory"))  # imports, caches: warm
if n:
    run_secure_sum("secagg", x[:n], seed=1, runner=runner_for("memory"))
"""


def _start(tree: Path, n: int, out: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", _SNIPPET, str(n)]
    return subprocess.Popen(argv, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _count(proc: subprocess.Popen[str]) -> int:
    _, err = proc.communicate()
    found = re.search(r"I\s+refs:\s+([\d,]+)", err)
    if proc.returncode or found is None:
        raise RuntimeError(f"callgrind failed (exit {proc.returncode}): {err[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--baseline-ref", default="main")
    p.add_argument("--n", type=int, default=1000, help="data parties of the measured run")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("benchmarks.instructions needs valgrind (Debian: apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"baseline": _export(args.baseline_ref, Path(tmp) / "baseline"), "ours": ROOT}
        counts: dict[str, int] = {}
        for n in (args.n, 0):  # the run, then the warm-up alone
            procs = {name: _start(tree, n, Path(tmp) / f"cg.{name}.{n}") for name, tree in trees.items()}
            for name, proc in procs.items():
                counts[f"{name}_{n}"] = _count(proc)
    run = {name: counts[f"{name}_{args.n}"] - counts[f"{name}_0"] for name in trees}
    print(json.dumps({
        "n": args.n, "baseline_ref": args.baseline_ref, "baseline_instructions": run["baseline"],
        "ours_instructions": run["ours"], "ratio": round(run["ours"] / run["baseline"], 4), "raw": counts,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
