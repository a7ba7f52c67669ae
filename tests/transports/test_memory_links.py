"""The memory transport's simulated links: latency, jitter, loss, reordering, virtual time."""

from __future__ import annotations

import time

import numpy as np
import pytest
import trio
import trio.testing

from mpc_rr.core import UsageError
from transports import LinkModel, MemoryNetwork


def run_virtual(fn):
    return trio.run(fn, clock=trio.testing.MockClock(autojump_threshold=0))


def collect(
    model: LinkModel, seed: int, k: int, senders: int = 1, gap: float = 0.0
) -> tuple[list, MemoryNetwork]:
    """Each sender sends k numbered payloads to party 0, one every ``gap`` seconds from t=0.

    Returns the arrivals ``(time, src, i)``.
    """
    out: list[tuple[float, int, int]] = []
    holder: list[MemoryNetwork] = []

    async def main() -> None:
        async with MemoryNetwork(senders + 1, link=model, rng=np.random.default_rng(seed)) as net:
            holder.append(net)

            async def send(s: int) -> None:
                for i in range(k):
                    await net.endpoint(s).send(0, i.to_bytes(4, "big"))
                    if gap:
                        await trio.sleep(gap)

            async with trio.open_nursery() as nursery:
                for s in range(1, senders + 1):
                    nursery.start_soon(send, s)
                with trio.move_on_after(3600):
                    while True:
                        src, data = await net.endpoint(0).receive()
                        out.append((trio.current_time(), src, int.from_bytes(data, "big")))
                nursery.cancel_scope.cancel()

    run_virtual(main)
    return out, holder[0]


def test_a_simulated_minute_takes_milliseconds() -> None:
    t0 = time.perf_counter()
    got, _ = collect(LinkModel(latency=60.0), seed=1, k=3)
    assert [t for t, _, _ in got] == [60.0, 60.0, 60.0]
    assert time.perf_counter() - t0 < 2.0


def test_jitter_keeps_per_link_fifo_and_stays_in_bounds() -> None:
    got, _ = collect(LinkModel(latency=1.0, jitter=0.5), seed=2, k=300, senders=3)
    assert len(got) == 900
    for s in (1, 2, 3):
        assert [i for _, src, i in got if src == s] == list(range(300))
    times = np.array([t for t, _, _ in got])  # all sent at t=0: FIFO clamps to a running max
    assert times.min() >= 1.0 and times.max() < 1.5
    spaced, _ = collect(LinkModel(latency=1.0, jitter=0.5), seed=2, k=300, gap=1.0)
    delays = np.array([t - i * 1.0 for t, _, i in spaced])  # one send per virtual second
    assert delays.min() >= 1.0 and delays.max() < 1.5
    assert np.unique(delays.round(9)).size > 250  # jitter really varies the delays
    assert abs(delays.mean() - 1.25) < 0.05


def test_reordering_happens_only_when_asked() -> None:
    got, _ = collect(LinkModel(latency=0.01, reorder=0.5, reorder_delay=1.0), seed=3, k=200)
    order = [i for _, _, i in got]
    assert sorted(order) == list(range(200)) and order != list(range(200))


def test_loss_rate_matches_and_is_counted() -> None:
    k, p = 4000, 0.25
    got, net = collect(LinkModel(loss=p), seed=4, k=k)
    lost = k - len(got)
    assert lost == net.lost
    sd = np.sqrt(k * p * (1 - p))
    assert abs(lost - k * p) < 5 * sd
    assert [i for _, _, i in got] == sorted(i for _, _, i in got)


def test_same_seed_same_fates_different_seed_different_fates() -> None:
    model = LinkModel(latency=0.2, jitter=0.3, loss=0.1, reorder=0.2)
    a, _ = collect(model, seed=5, k=100, senders=4)
    b, _ = collect(model, seed=5, k=100, senders=4)
    c, _ = collect(model, seed=6, k=100, senders=4)
    assert sorted(a) == sorted(b)
    assert sorted(a) != sorted(c)


def test_per_link_models_and_validation() -> None:
    def model(src: int, dst: int) -> LinkModel:
        return LinkModel(latency=float(src))

    got, _ = collect(model, seed=7, k=2, senders=3)  # type: ignore[arg-type]
    assert sorted({(src, t) for t, src, _ in got}) == [(1, 1.0), (2, 2.0), (3, 3.0)]
    with pytest.raises(UsageError, match=r"loss must be a probability in \[0, 1\], got 1.5"):
        LinkModel(loss=1.5)
    with pytest.raises(UsageError, match="latency must be finite and >= 0"):
        LinkModel(latency=-1)
    with pytest.raises(UsageError, match="a link model needs a seeded rng"):
        MemoryNetwork(3, link=LinkModel())
    with pytest.raises(UsageError, match="buffer must be >= 1"):
        MemoryNetwork(3, buffer=0)
    with pytest.raises(UsageError, match="no party 9"):
        MemoryNetwork(3).endpoint(9)
