"""The shards as Ray actors, against a local Ray instance this module starts.

Skipped only when Ray is not installed (``pip install 'mpc-rr[ray]'``; ``make
test`` installs it).  Each run is compared with one process: same per-link
messages and virtual times, same results and costs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

ray = pytest.importorskip("ray")
# one worker starts Ray once for the module (pytest-xdist, --dist loadgroup)
pytestmark = pytest.mark.xdist_group("ray")

from mpc_rr.core import COORDINATOR  # noqa: E402
from mpc_rr.workflows import run_secure_sum  # noqa: E402
from parties.runner import MemoryRunner  # noqa: E402
from parties.shards import ShardedRunner  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():  # type: ignore[no-untyped-def]
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_pipeline_on_ray_actors_equals_one_process(adult_plan, same_costs, local_ray) -> None:  # type: ignore[no-untyped-def]
    plan = adult_plan(50, "rr")
    one = MemoryRunner(transcript=True)(plan)
    res = ShardedRunner(workers=3, engine="ray", transcript=True)(plan)
    assert res.ok, res.errors
    assert res.links() == one.links()
    a, b = one.roles[COORDINATOR].result, res.roles[COORDINATOR].result
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x.distribution, y.distribution)
    same_costs(one, res)
    assert res.costs.extra["engine"] == "ray" and res.costs.extra["workers"] == 3
    assert ray.is_initialized()  # a cluster the caller started is left running


def test_secagg_dropouts_on_ray_actors_keep_virtual_time(
    per_link_events, same_costs, local_ray
) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    x = np.zeros((30, 6), np.uint8)
    x[np.arange(30), rng.integers(0, 6, 30)] = 1
    kw = {"seed": 2, "deterministic": True, "max_dropout": 0.25, "victims": {4: "shares", 25: "unmask"}}
    one = run_secure_sum("secagg", x, runner=MemoryRunner(transcript=True), **kw)
    rep = run_secure_sum("secagg", x, runner=ShardedRunner(workers=2, engine="ray", transcript=True), **kw)
    assert one.exact and rep.exact and rep.inputs_in_sum == one.inputs_in_sum == 29  # 25 dropped after its input
    assert one.run is not None and rep.run is not None
    assert per_link_events(rep.run) == per_link_events(one.run)
    same_costs(one.run, rep.run)


def test_ray_refuses_more_workers_than_cpus(adult_plan, local_ray) -> None:  # type: ignore[no-untyped-def]
    from mpc_rr.core import UsageError

    with pytest.raises(UsageError, match="Ray actors need 4 CPUs, the Ray cluster has 3"):
        ShardedRunner(workers=4, engine="ray")(adult_plan(20, "rr"))
