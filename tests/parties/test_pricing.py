"""A run priced on a network profile (parties/pricing.py): the network critical path in virtual
time, the CPU figure beside it, same seed same network; what it cannot price is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.workflows import run_secure_sum
from parties.pricing import PricedRunner, network_runner
from transports.network_profiles import load_profile


def _flat(tmp: Path, one_way: float) -> Path:
    """Every link ``one_way`` seconds, bandwidth unbounded in effect (1 TB/s)."""
    f = tmp / "flat.toml"
    f.write_text(
        f"[network]\nrtt = [{one_way}, {one_way}]\nserver_rtt = {one_way}\n"
        "uplink = [1e12, 1e12]\ndownlink = [1e12, 1e12]\nserver_uplink = 1e12\nserver_downlink = 1e12\n"
    )
    return f


def test_network_time_is_the_chain_of_messages(tmp_path: Path) -> None:
    x = np.eye(4, dtype=np.int64)[np.arange(6) % 4]
    runner = network_runner(str(_flat(tmp_path, 0.1)), 3, transport=None)
    rep = run_secure_sum("secagg", x, seed=3, runner=runner)
    assert rep.exact
    doc = runner.summary()
    # SecAgg+: 6 client sends (with the draw and the consistency round), each answered by the
    # server: 12 one-way hops of 0.1 s at most -> a whole number of hops, compute free
    hops = doc["network_s"] / 0.1
    assert hops == pytest.approx(round(hops), abs=1e-6) and 6 <= round(hops) <= 12
    assert doc["cpu_s"] > 0 and doc["projected_wall_s"] == pytest.approx(doc["network_s"] + doc["cpu_s"])
    assert rep.costs.extra["network_s"] == doc["network_s"]


def test_slower_profile_costs_more_and_same_seed_same_network() -> None:
    x = np.eye(8, dtype=np.int64)[np.arange(20) % 8]
    times = {}
    for name in ("lan", "wan", "mobile"):
        runs = [PricedRunner(load_profile(name), 5) for _ in range(2)]
        for r in runs:
            assert run_secure_sum("secagg", x, seed=5, runner=r).exact
        assert runs[0].summary()["network_s"] == runs[1].summary()["network_s"]
        times[name] = runs[0].summary()["network_s"]
    assert times["lan"] < times["wan"] < times["mobile"]


def test_refusals() -> None:
    with pytest.raises(UsageError, match="--network prices the run over the simulated network"):
        network_runner("wan", 0, transport="tcp")
    with pytest.raises(UsageError, match="drop --workers"):
        network_runner("wan", 0, transport="memory", workers=2)
    with pytest.raises(UsageError, match="neither a profile"):
        network_runner("satellite", 0, transport=None)
    with pytest.raises(UsageError, match="no link or rng option"):
        PricedRunner(load_profile("lan"), 0, link=None)
