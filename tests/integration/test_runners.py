"""One protocol, one seed: the same results and transcript over memory, TCP in one process and
TCP across OS processes."""

from __future__ import annotations

import numpy as np

from mpc_rr.secure_sum.plainsum import expected_total, make_role
from parties.procs import run_processes
from parties.runner import run_memory_sync
from parties.tcp_runner import run_tcp_sync


def roles(n: int, seed: int, run: str = "t") -> dict:
    return {i: make_role(i, n, seed, {"cells": 3, "run": run}) for i in range(n)}


def test_same_seed_same_results_and_transcript_over_memory_tcp_and_processes(tmp_path) -> None:
    n, seed = 5, 21
    procs = run_processes(
        "plainsum", n, seed=seed, params={"cells": 3, "run": "t"}, transcript=True,
        workdir=tmp_path, timeout=60,
    )  # fmt: skip
    label = procs.reports[0]["run"]  # "t#<the run's nonce>": same label, same bytes
    assert label.startswith("t#") and len(label) == len("t#") + 16
    mem = run_memory_sync(roles(n, seed, label), transcript=True)
    tcp = run_tcp_sync(roles(n, seed, label), transcript=True)
    assert mem.ok and tcp.ok and procs.ok, (mem.errors, tcp.errors, procs.errors)
    want = expected_total(n - 1, seed, 3)
    for res in (mem.results(), tcp.results()):
        assert all(np.array_equal(r.total, want) for r in res.values())
    assert all(r["total"] == want.tolist() for r in procs.results.values())
    assert mem.links() == tcp.links() == procs.links()
    assert len(mem.links()) == 2 * (n - 1)
    for key in ("messages", "bytes", "rounds"):
        assert mem.costs.to_json()[key] == tcp.costs.to_json()[key] == procs.costs.to_json()[key]
    other = run_memory_sync(roles(n, seed + 1, label), transcript=True)
    assert other.links() != mem.links()  # the comparison can fail
