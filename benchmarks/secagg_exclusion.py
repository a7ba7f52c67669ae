"""Cost of excluding a SecAgg+ client whose shares are inconsistent (the retries).

Run ``python -m benchmarks.secagg_exclusion [--sizes 100,1000] [--cells 16]``.

For each ``n``: one honest run and one run in which party 3 deals shares of another
self-mask seed than it committed to, both on the one-process harness with SecAgg+'s
defaults (the graph and committee drawn), the same seed and inputs.  Printed: the
attempts, messages and bytes of the run (every message as encoded), this process's CPU
time of the run (roles built and run), whether the total is exact over the parties
included, and the ratios cheating / honest.  The machine may be shared: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, run_roles
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum.secagg import SecAggClient, secagg_public, secagg_roles

CHEATER = 3


class _InconsistentDealer(SecAggClient):
    """Deals shares of another self-mask seed than the committed one (every attempt)."""

    def _on_neighbor_keys(self, src: int, msg: Any) -> Any:
        real, self._b = self._b, self.entropy.key(32)
        try:
            return super()._on_neighbor_keys(src, msg)
        finally:
            self._b = real


def _run(n: int, cells: int, cheat: bool) -> dict[str, Any]:
    x = np.random.default_rng(0).integers(0, 2, (n, cells))
    t, c = time.perf_counter(), time.process_time()
    pub = secagg_public(n, cells, run=f"exclusion-bench-{n}")
    roles = secagg_roles(x, pub, entropy=SeededEntropy(1).spawn)
    if cheat:
        honest = roles[CHEATER]
        roles[CHEATER] = _InconsistentDealer(
            CHEATER, pub.config, pub.graph, x[CHEATER - 1], entropy=SeededEntropy(99), identity=honest.identity  # type: ignore[attr-defined]
        )
    result = run_roles(roles, roundtrip=True)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    server = roles[COORDINATOR]
    parties = result.costs.parties.values()
    included = [int(u) for u in server.result.included]  # type: ignore[attr-defined]
    exact = bool(np.array_equal(server.result.total, x[np.asarray(included) - 1].sum(axis=0)))  # type: ignore[attr-defined]
    return {
        "n": n, "cheat": cheat, "attempts": server.attempt + 1, "culprits": list(server.culprits),  # type: ignore[attr-defined]
        "exact": exact, "included": len(included), "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "messages": sum(s.messages_sent for s in parties), "bytes": sum(s.bytes_sent for s in parties),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="100,1000")
    p.add_argument("--cells", type=int, default=16)
    args = p.parse_args(argv)
    for n in [int(s) for s in args.sizes.split(",")]:
        honest, cheating = _run(n, args.cells, False), _run(n, args.cells, True)
        ratios = {k: round(cheating[k] / honest[k], 2) for k in ("messages", "bytes", "cpu_s", "wall_s") if honest[k]}
        print(json.dumps(honest))
        print(json.dumps(cheating | {"ratios": ratios}))


if __name__ == "__main__":
    main()
