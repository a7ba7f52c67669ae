"""The pipeline over real transports: memory and TCP (mutual TLS) give identical results."""

from __future__ import annotations

import numpy as np

from mpc_rr.data import load_adult
from mpc_rr.workflows import RunOptions
from mpc_rr.workflows._pipeline import run_and_report
from parties.runners import runner_for


def _estimates(ev) -> list[np.ndarray]:
    return [e.distribution for e in ev.execution.result.estimates]


def test_memory_tcp_and_harness_agree_with_150_parties() -> None:
    # 300 parties (300 TLS handshakes) took 24 s under load and timed out at load 17-25
    n = 150
    opts = RunOptions(parties=n, seed=5, queries=50)
    data = load_adult()
    runs = {name: run_and_report(opts, runner_for(name), data) for name in ("harness", "memory", "tcp")}
    ref_result, ref_ex = runs["memory"]
    for name, (result, ex) in runs.items():
        assert result.clusters == ref_result.clusters, name
        for a, b in zip(_estimates(ex), _estimates(ref_ex), strict=True):
            np.testing.assert_array_equal(a, b)
        assert result.relative_error == ref_result.relative_error, name
        assert result.cost.messages == 3 * n, name  # n x (record, clustering, release)
    assert runs["tcp"][0].cost.transport == "tcp"


