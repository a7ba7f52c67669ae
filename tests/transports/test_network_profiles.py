"""Bandwidth and heterogeneous profiles of the memory transport's links (virtual time)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import UsageError
from tests.transports.test_memory_links import collect
from transports import LinkModel
from transports.network_profiles import PROFILES, NetworkProfile, load_profile, profile_links


def test_an_uplink_serializes_one_senders_payloads_in_turn() -> None:
    # 4-byte payloads at 4 B/s: each takes 1 s on the uplink, then 1 s of latency
    got, _ = collect(LinkModel(latency=1.0, uplink=4.0), seed=0, k=3)
    assert [(t, i) for t, _, i in got] == [(2.0, 0), (3.0, 1), (4.0, 2)]


def test_a_downlink_is_shared_by_everyone_sending_to_it() -> None:
    got, _ = collect(LinkModel(latency=1.0, downlink=4.0), seed=0, k=1, senders=3)
    assert sorted(t for t, _, _ in got) == [2.0, 3.0, 4.0]


def test_the_downlink_serves_payloads_in_arrival_order_not_send_order() -> None:
    # party 1 sends first over a 10 s link; party 2's payload reaches the downlink at 1 s
    def link(src: int, dst: int) -> LinkModel:
        return LinkModel(latency=10.0 if src == 1 else 1.0, downlink=4.0)

    got, _ = collect(link, seed=0, k=1, senders=2)  # type: ignore[arg-type]
    assert sorted((t, s) for t, s, _ in got) == [(2.0, 2), (11.0, 1)]


def test_unlimited_rates_change_nothing() -> None:
    slow = collect(LinkModel(latency=0.5, jitter=0.2), seed=4, k=20, senders=3)[0]
    same = collect(LinkModel(latency=0.5, jitter=0.2, uplink=math.inf), seed=4, k=20, senders=3)[0]
    assert slow == same


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_rates_must_be_positive(bad: float) -> None:
    with pytest.raises(UsageError, match="uplink must be > 0 bytes/s"):
        LinkModel(uplink=bad)


def test_profiles_draw_reproducible_heterogeneous_links_and_a_fast_server() -> None:
    prof = PROFILES["mobile"]
    a = profile_links(prof, range(201), np.random.default_rng(7))
    b = profile_links(prof, range(201), np.random.default_rng(7))
    assert [a(i, 0) for i in range(1, 201)] == [b(i, 0) for i in range(1, 201)]
    ups = np.array([a(i, 0).uplink for i in range(1, 201)])
    lo, hi = prof.uplink
    slow = ups < lo * 0.999
    assert 0 < slow.sum() < 60  # about 10 % stragglers, 10x slower
    assert np.all(ups[~slow] <= hi) and np.all(ups[slow] >= lo / prof.straggler_slowdown)
    assert a(3, 0).downlink == prof.server_downlink and a(0, 3).uplink == prof.server_uplink
    assert a(3, 5).latency == pytest.approx((a(3, 0).latency * 2 - prof.server_rtt + a(5, 0).latency * 2 - prof.server_rtt) / 2)


def test_a_profile_file_overrides_a_base_and_names_bad_fields(tmp_path: Path) -> None:
    f = tmp_path / "campus.toml"
    f.write_text('[network]\nbase = "wan"\nuplink_mbit = [8, 8]\nstragglers = 0\n')
    p = load_profile(f)
    assert p.name == "campus" and p.uplink == (1e6, 1e6) and p.rtt == PROFILES["wan"].rtt
    f.write_text("[network]\nrtt = [0.01, 0.02]\nuplink = [1e6, 2e6]\n")
    with pytest.raises(UsageError, match=r"campus.toml: missing downlink"):
        load_profile(f)
    f.write_text('[network]\nbase = "wan"\nbandwidth = 3\n')
    with pytest.raises(UsageError, match=r"unknown field 'bandwidth'"):
        load_profile(f)
    with pytest.raises(UsageError, match=r"neither a profile \(lan, wan, mobile\) nor a .toml file"):
        load_profile("satellite")
    with pytest.raises(UsageError, match=r"rtt must be \[low, high\]"):
        NetworkProfile("x", rtt=(0.2, 0.1), uplink=(1.0, 1.0), downlink=(1.0, 1.0))
