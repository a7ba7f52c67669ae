"""A secure sum priced on network profiles: the network's share of a deployment's wall time.

Runs ``--protocol`` (default SecAgg+) over the memory transport under each
``--network`` profile (``lan``, ``wan``, ``mobile`` or a TOML file, see
:mod:`transports.network_profiles`), in virtual time: the party compute takes
no virtual time, so the virtual time at which the last message leaves is
what the network alone adds (latency, serialization on each party's access
links, stragglers).  Printed beside it is the CPU wall time the same run
took here.  One seed gives every party the same RTT and rates in every
profile run.

    python -m benchmarks.network --parties 100 --cells 1582
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mpc_rr.workflows import run_secure_sum
from parties.runner import MemoryRunner
from transports.network_profiles import load_profile, profile_links


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.network", description=__doc__.splitlines()[0])
    p.add_argument("--protocol", default="secagg")
    p.add_argument("--parties", type=int, default=100)
    p.add_argument("--cells", type=int, default=1582)
    p.add_argument("--network", action="append", default=None, help="profile name or FILE.toml (repeatable)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    nets = a.network or ["lan", "wan", "mobile"]
    x = np.random.default_rng(a.seed).integers(0, 2, (a.parties, a.cells))
    rows: dict[str, dict[str, float]] = {}
    print(f"{a.protocol}: {a.parties} parties, {a.cells} cells, seed {a.seed}")
    print(f"  {'network':10} {'network s':>10} {'cpu wall s':>11} {'rounds':>7} {'MB':>8}")
    for name in nets:
        prof = load_profile(name)
        link = profile_links(prof, range(a.parties + 1), np.random.default_rng([a.seed, 0x4E7]))
        runner = MemoryRunner(link=link, rng=np.random.default_rng(a.seed), transcript=True, step_timeout=600.0)
        t = time.perf_counter()
        rep = run_secure_sum(a.protocol, x, seed=a.seed, runner=runner)
        wall = time.perf_counter() - t
        if rep.run is None or rep.run.transcript is None or not rep.exact:
            raise RuntimeError(f"{name}: the run was not exact")
        net = max(e.time for e in rep.run.transcript)
        rows[prof.name] = {"network_s": net, "cpu_wall_s": wall, "rounds": rep.costs.rounds, "bytes": rep.costs.bytes}
        print(f"  {prof.name:10} {net:>10.3f} {wall:>11.2f} {rep.costs.rounds:>7} {rep.costs.bytes / 1e6:>8.2f}")
    return rows


if __name__ == "__main__":
    main()
