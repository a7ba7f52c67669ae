"""Party actors and the memory runner on the plaintext-sum reference protocol."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
import trio
import trio.testing

from mpc_rr.core import COORDINATOR
from mpc_rr.secure_sum.plainsum import expected_total, make_role
from mpc_rr.secure_sum.plainsum._roles import client_input
from parties import run_memory, run_memory_sync
from transports import LinkModel, Tap


def test_plainsum_over_memory_exact_costs(plainsum_roles) -> None:
    n, cells = 6, 3
    res = run_memory_sync(plainsum_roles(n, seed=11, cells=cells), transcript=True)
    assert res.ok
    want = expected_total(n, 11, cells)
    assert want.sum() > 0
    for r in res.results().values():
        np.testing.assert_array_equal(r.total, want)
    enc = msgspec.msgpack.Encoder()
    value_sizes = [
        len(enc.encode(make_role(i, n + 1, 11, {"cells": cells}).start()[0].msg))
        for i in range(1, n + 1)
    ]
    hub = res.costs.parties[COORDINATOR]
    assert hub.messages_received == n and hub.bytes_received == sum(value_sizes)
    assert hub.messages_sent == n and len(hub.rounds_sent) == 1
    assert res.costs.messages == 2 * n
    assert res.costs.rounds == 1
    j = res.costs.to_json()
    assert j["parties"] == n + 1 and j["per_role"]["PlainSumClient"]["count"] == n
    # the transcript holds exactly the bytes that were counted
    assert res.transcript is not None and res.transcript.total_bytes == res.costs.bytes
    assert {(e.run, e.step) for e in res.transcript} == {("", 0), ("", 1)}


def test_step_timeout_names_the_silent_party_in_virtual_time(plainsum_roles) -> None:
    n = 3
    roles = plainsum_roles(n, seed=4)
    silent = 2
    roles[silent].start = lambda: []  # type: ignore[method-assign]
    clock = trio.testing.MockClock(autojump_threshold=0)
    res = run_memory_sync(roles, clock=clock, step_timeout=30.0)
    assert not res.ok
    assert res.errors[0].culprits == (silent,)
    with pytest.raises(Exception, match=r"timed out waiting for parties \[2\]"):
        _ = roles[0].result
    # clients 1 and 3 wait for the hub, which never answers: after their patience
    # (3 deadlines, to cover the hub's own) they give up naming the hub
    assert res.errors[1].culprits == (COORDINATOR,)
    assert res.costs.parties[0].deadlines == 1 and res.costs.parties[1].deadlines == 3
    assert clock.current_time() == pytest.approx(90.0)


def test_run_timeout_reports_unfinished_parties(plainsum_roles) -> None:
    roles = plainsum_roles(2, seed=4)
    roles[1].start = lambda: []  # type: ignore[method-assign]
    res = run_memory_sync(roles, clock=trio.testing.MockClock(autojump_threshold=0), timeout=5)
    assert set(res.errors) == {0, 1, 2}
    assert "waiting for [1]" in str(res.errors[0])


def test_same_seed_same_transcript_under_link_noise(plainsum_roles) -> None:
    def once(seed: int) -> tuple:
        tap = Tap()
        res = run_memory_sync(
            plainsum_roles(8, seed=5),
            clock=trio.testing.MockClock(autojump_threshold=0),
            link=LinkModel(latency=0.05, jitter=0.02, reorder=0.2),
            rng=np.random.default_rng(seed),
            tap=tap,
            transcript=True,
        )
        assert res.ok
        return res.links(), sorted((r.src, r.dst, r.data) for r in tap.events)

    a, b = once(1), once(1)
    assert a == b
    assert len(a[1]) == 16


async def test_run_memory_in_an_existing_trio_run(plainsum_roles) -> None:
    res = await run_memory(plainsum_roles(3, seed=1))
    assert res.ok and res.costs.messages == 6


@pytest.mark.slow
def test_adult_scale_32561_parties_over_memory_well_under_a_minute(plainsum_roles) -> None:
    import time

    n = 32_561
    t0 = time.perf_counter()
    res = run_memory_sync(plainsum_roles(n, seed=1, cells=8))
    assert res.ok and res.costs.messages == 2 * n
    np.testing.assert_array_equal(res.results()[0].total, expected_total(n, 1, 8))
    assert time.perf_counter() - t0 < 60


def test_on_timeout_can_proceed_without_dropouts_in_virtual_time() -> None:
    n, cells = 5, 2
    roles = {i: make_role(i, n + 1, 8, {"cells": cells, "proceed_on_timeout": True})
             for i in range(n + 1)}  # fmt: skip
    for dead in (2, 4):
        roles[dead].start = lambda: []  # type: ignore[method-assign]
    clock = trio.testing.MockClock(autojump_threshold=0)
    timeouts = {i: 10.0 if i == 0 else 30.0 for i in roles}  # clients wait longer than the hub
    res = run_memory_sync(roles, clock=clock, step_timeout=timeouts)
    want = sum(client_input(i, 8, cells) for i in (1, 3, 5))
    np.testing.assert_array_equal(roles[0].result.total, want)
    assert roles[0].dropped == (2, 4)
    for i in (1, 3, 5):
        np.testing.assert_array_equal(roles[i].result.total, want)
    # the dropouts never get a total: after their patience they give up naming the hub
    assert res.errors[2].culprits == (COORDINATOR,) and set(res.errors) == {2, 4}
    assert res.costs.parties[0].deadlines == 1 and res.costs.parties[0].messages_sent == 3
    assert clock.current_time() == pytest.approx(90.0)  # 3 deadlines of 30 s each


def test_a_network_profile_prices_a_secure_sum_in_virtual_time() -> None:
    """SecAgg+ is 6 client -> aggregator -> client rounds (keys, the draw's reveals, shares,
    masked input, the consistency round, unmasking): with every one-way delay 0.1 s (RTTs of
    0.1 s at both ends) and unlimited rates, the aggregator's last message (the aggregate)
    leaves at 11 x 0.1 s of virtual time, whatever the compute took."""
    from mpc_rr.workflows import run_secure_sum
    from parties.runner import MemoryRunner
    from transports.network_profiles import NetworkProfile, profile_links

    fast = 1e15  # bytes/s: serialization below a picosecond per message
    prof = NetworkProfile("fixed", rtt=(0.1, 0.1), uplink=(fast, fast), downlink=(fast, fast),
                          server_rtt=0.1, server_uplink=fast, server_downlink=fast)  # fmt: skip
    n = 8
    x = np.eye(3, dtype=np.int64)[np.arange(n) % 3]
    link = profile_links(prof, range(n + 1), np.random.default_rng(0))
    runner = MemoryRunner(link=link, rng=np.random.default_rng(1), transcript=True)
    rep = run_secure_sum("secagg", x, seed=1, runner=runner)
    assert rep.exact and rep.run is not None and rep.run.transcript is not None
    assert max(e.time for e in rep.run.transcript) == pytest.approx(1.1, abs=1e-6)
