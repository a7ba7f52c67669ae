"""The projected wall time of a deployment (parties/pricing.py) against a real TCP + mutual TLS
deployment on loopback with a known delay on every message (transports/delay.py: this kernel has
no netem).  The projection = the same run's CPU figure over TCP without delay + the network
critical path of the memory transport in virtual time under a profile of that delay."""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.workflows import run_secure_sum
from parties.pricing import network_runner
from parties.tcp_runner import TcpRunner


def _flat(tmp: Path, one_way: float) -> str:
    f = tmp / "delay.toml"
    f.write_text(
        f"[network]\nrtt = [{one_way}, {one_way}]\nserver_rtt = {one_way}\n"
        "uplink = [1e12, 1e12]\ndownlink = [1e12, 1e12]\nserver_uplink = 1e12\nserver_downlink = 1e12\n"
    )
    return str(f)


def test_delay_over_tcp_tls_adds_whole_hops() -> None:
    """Fast twin: a delayed TCP + TLS run stays exact and takes at least its hops' delay."""
    x = np.eye(4, dtype=np.int64)[np.arange(5) % 4]
    rep = run_secure_sum("secagg", x, seed=2, runner=TcpRunner(step_timeout=60.0, delay=0.05))
    assert rep.exact
    assert rep.costs.wall_s >= 4 * 0.05  # at least four sequential client -> server messages


@pytest.mark.slow
def test_projection_within_15_percent_of_tcp_tls_with_a_known_delay(tmp_path: Path) -> None:
    delay, parties, cells, seed = 0.2, 10, 64, 4
    x = np.eye(cells, dtype=np.int64)[np.random.default_rng(seed).integers(0, cells, parties)]
    priced = network_runner(_flat(tmp_path, delay), seed, transport=None)
    assert run_secure_sum("secagg", x, seed=seed, runner=priced).exact
    network_s = priced.summary()["network_s"]
    cpu, measured = [], []
    for _ in range(3):  # interleaved: the load of a shared machine hits both alike
        plain = run_secure_sum("secagg", x, seed=seed, runner=TcpRunner(step_timeout=60.0))
        late = run_secure_sum("secagg", x, seed=seed, runner=TcpRunner(step_timeout=60.0, delay=delay))
        assert plain.exact and late.exact
        cpu.append(plain.costs.wall_s)
        measured.append(late.costs.wall_s)
    projected = statistics.median(cpu) + network_s
    real = statistics.median(measured)
    print(f"\nprojected {projected:.3f} s (cpu {statistics.median(cpu):.3f} + network {network_s:.3f}); "
          f"measured {real:.3f} s; error {projected / real - 1:+.1%}")  # fmt: skip
    assert abs(projected - real) / real < 0.15
