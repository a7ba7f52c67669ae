"""Memory transport: N parties ping a hub once through Party actors vs a bare trio loop.

Both sides do the same work pattern in the same process and run: N client
tasks each send one small payload to a hub task, which answers each one;
``2 N`` messages in total.  "ours" = Party actors over a MemoryNetwork
(strict decode, role, encode, counters); "bare" = raw ``trio`` memory
channels carrying pre-encoded bytes, nothing else.  Reports medians of
``--repeats`` runs, messages per second, the ratio (target >= 0.5), and the
memory per party at N (tracemalloc, network + endpoints + parties + roles).

    python -m benchmarks.runtime_memory --parties 10000 --repeats 5
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
import tracemalloc

import trio

from benchmarks._echo import echo_roles
from mpc_rr.core import COORDINATOR
from parties.party import Party
from parties.runner import run_parties
from transports.memory import MemoryNetwork


async def ours(n: int, size: int) -> float:
    roles = echo_roles(n, size)
    t0 = time.perf_counter()
    async with MemoryNetwork(roles.keys(), buffer=1024) as net:
        parties = {p: Party(r, net.endpoint(p)) for p, r in roles.items()}
        res = await run_parties(parties)
    dt = time.perf_counter() - t0
    if not res.ok or res.costs.messages != 2 * n:
        raise RuntimeError(f"echo run failed: {list(res.errors.values())[:3]}")
    return dt


async def bare(n: int, size: int) -> float:
    ping = bytes(size + 16)
    t0 = time.perf_counter()
    chans = {i: trio.open_memory_channel[tuple[int, bytes]](1024) for i in range(n + 1)}
    hub_send = chans[COORDINATOR][0]

    async def client(i: int) -> None:
        await hub_send.send((i, ping))
        await chans[i][1].receive()

    async def hub() -> None:
        recv = chans[COORDINATOR][1]
        for _ in range(n):
            src, data = await recv.receive()
            await chans[src][0].send((COORDINATOR, data))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub)
        for i in range(1, n + 1):
            nursery.start_soon(client, i)
    return time.perf_counter() - t0


def memory_per_party(n: int, size: int) -> tuple[float, float]:
    """Bytes per party: idle (network + endpoints + Party objects + roles) and peak in a run.

    The peak includes the trio task of every party and the messages in flight.
    """
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    holder: list[int] = []

    async def build_and_run() -> None:
        roles = echo_roles(n, size)
        async with MemoryNetwork(roles.keys()) as net:
            parties = {p: Party(r, net.endpoint(p)) for p, r in roles.items()}
            holder.append(tracemalloc.get_traced_memory()[0] - before)
            await run_parties(parties)

    trio.run(build_and_run)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return holder[0] / (n + 1), peak / (n + 1)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parties", type=int, default=10_000)
    ap.add_argument("--size", type=int, default=32, help="payload bytes")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    t_ours, t_bare = [], []
    for _ in range(a.repeats):  # interleaved, so contention hits both alike
        t_bare.append(trio.run(bare, a.parties, a.size))
        t_ours.append(trio.run(ours, a.parties, a.size))
    mo, mb = statistics.median(t_ours), statistics.median(t_bare)
    msgs = 2 * a.parties
    rep = {
        "parties": a.parties,
        "messages": msgs,
        "ours_s": mo,
        "bare_s": mb,
        "ours_msgs_per_s": msgs / mo,
        "bare_msgs_per_s": msgs / mb,
        "ratio_ours_over_bare": mb / mo,
    }
    rep["bytes_per_party_idle"], rep["bytes_per_party_peak"] = memory_per_party(a.parties, a.size)
    if a.json:
        print(json.dumps(rep))
    else:
        print(f"{a.parties} parties, {msgs} messages, median of {a.repeats} (interleaved runs)")
        print(f"  Party actors : {mo:.3f} s  {msgs / mo:>10,.0f} msgs/s")
        print(f"  bare trio    : {mb:.3f} s  {msgs / mb:>10,.0f} msgs/s")
        print(f"  ratio ours/bare (rate): {mb / mo:.2f}  (target >= 0.5)")
        print(
            f"  memory per party (tracemalloc): {rep['bytes_per_party_idle'] / 1024:.1f} KiB "
            f"idle, {rep['bytes_per_party_peak'] / 1024:.1f} KiB peak while running"
        )
    return rep


if __name__ == "__main__":
    main()
