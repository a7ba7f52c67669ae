"""MPyC program for the side-by-side benchmark: secure sum of one one-hot vector per party.

Run by ``benchmarks.secure_sum`` as ``python benchmarks/_mpyc_sum.py -M m -I i --cells D
--seed S`` (one OS process per party; MPyC parses its own options).  Not a
project module: MPyC is installed for the benchmark only.
"""

import sys
import time

import numpy as np
from mpyc.runtime import mpc


def _opt(name: str, default: int) -> int:
    argv = sys.argv
    return int(argv[argv.index(name) + 1]) if name in argv else default


async def main() -> None:
    cells, seed = _opt("--cells", 1582), _opt("--seed", 0)
    secint = mpc.SecInt(32)
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
    print(f"RESULT pid={mpc.pid} sum={sum(out)} wall={wall:.4f} bytes_sent={sent}", flush=True)
    await mpc.shutdown()


if __name__ == "__main__":
    mpc.run(main())
