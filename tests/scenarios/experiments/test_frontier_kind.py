"""The ``frontier`` scenario kind: one model at one epsilon per run, on a sample and queries
shared by every grid point; its point is the frontier's own."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.workflows._frontier import LOCAL, frontier, frontier_models, frontier_sums
from scenarios.experiments.kinds import RunContext, get
from scenarios.workloads.data_source import Source
from tests.mpc_rr.workflows.test_frontier import _data


def test_a_run_is_the_frontiers_point_with_the_runs_own_randomness() -> None:
    kind = get("frontier")
    model = f"{frontier_sums()[0]} + noise"
    assert model in frontier_models()
    src = Source("toy", "toy table", "x", table=_data(60))
    prm = msgspec.convert({"kind": "frontier", "model": model, "epsilon": 4.0, "parties": 40, "queries": 12},
                          kind.params)  # fmt: skip
    kind.check(prm, src)  # type: ignore[misc]
    a, b = kind.run(RunContext(prm, 11, 0, src)), kind.run(RunContext(prm, 12, 1, src))
    assert a.status == "ok" and a.metrics["central_epsilon"] <= 4.0  # type: ignore[operator]
    assert a.metrics["error"] != b.metrics["error"]  # each repeat draws its own noise
    assert a.result["queries"] == b.result["queries"] == 12  # the same sample and queries
    sample = src.draw(40, np.random.default_rng(np.random.SeedSequence([0, 0xF1])))
    want = frontier(sample, [4.0], repeats=1, queries=12, models=[model], seed=0, repeat_seed=11)
    assert a.metrics["error"] == want.point(model, 4.0).errors[0]
    with pytest.raises(UsageError, match="unknown frontier model"):
        kind.run(RunContext(msgspec.structs.replace(prm, model="nobody"), 1, 0, src))
    with pytest.raises(UsageError, match="parties must be at most the 60 records"):
        kind.check(msgspec.structs.replace(prm, parties=100), src)  # type: ignore[misc]
    assert LOCAL in frontier_models()
