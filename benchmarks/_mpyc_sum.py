"""MPyC program for the side-by-side benchmark: secure sum of one one-hot vector per party.

Run by ``benchmarks.secure_sum`` as ``python benchmarks/_mpyc_sum.py -M m -I i --cells D
--seed S`` (one OS process per party; MPyC parses its own options).  Not a
project module: MPyC is installed for the benchmark only.
"""

import sys
import time


def _process_age() -> float:
    """Seconds since this process started (as ``parties.node.process_age``, inlined: this
    program must not import ours)."""
    import os

    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            return float(f.read().split()[0]) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


import numpy as np  # noqa: E402
from mpyc.runtime import mpc  # noqa: E402


def _opt(name: str, default: int) -> int:
    argv = sys.argv
    return int(argv[argv.index(name) + 1]) if name in argv else default


async def main() -> None:
    cells, seed = _opt("--cells", 1582), _opt("--seed", 0)
    secint = mpc.SecInt(32)
    ready = _process_age()  # imports done, about to connect (as our parties' startup_s)
    await mpc.start()
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(mpc.pid + 1,)))
    x = np.zeros(cells, np.int64)
    x[int(rng.integers(cells))] = 1
    t0 = time.perf_counter()
    shares = mpc.input([secint(int(v)) for v in x])
    total = shares[0]
    for other in shares[1:]:
        total = mpc.vector_add(total, other)
    out = await mpc.output(total)
    wall = time.perf_counter() - t0
    sent = sum(getattr(p.protocol, "nbytes_sent", 0) for p in mpc.parties if p.protocol)
    print(f"RESULT pid={mpc.pid} sum={sum(out)} wall={wall:.4f} bytes_sent={sent} ready={ready:.3f}",
          flush=True)  # fmt: skip
    await mpc.shutdown()


if __name__ == "__main__":
    mpc.run(main())
