"""Memory per TLS party when many parties share one process.

Each connected party holds its client SSL context and connection, the hub's
end of the connection and its queue; nothing per party may grow with the
number of parties (a per-endpoint copy of the roster's id set was 500 KB per
party at 10,000 parties).
"""

from __future__ import annotations

import gc
from pathlib import Path

import trio

from transports.pki import client_context, generate_deployment
from transports.tcp import TcpClient, connect_client, open_hub

KB_PER_TLS_PARTY = 150


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_connected_tls_parties_share_the_roster_ids_and_stay_under_the_memory_bound(
    tmp_path: Path,
) -> None:
    n = 300
    roster = generate_deployment(n + 1, tmp_path, hub_port=0)
    eps: dict[int, TcpClient] = {}
    async with open_hub(roster, host="127.0.0.1", port=0) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        limiter = trio.CapacityLimiter(32)

        async def conn(i: int) -> None:
            async with limiter:
                eps[i] = await connect_client(r, i, ssl_context=client_context(r, i))

        await conn(1)  # the first connection loads what every later one shares
        gc.collect()
        before = _rss()
        async with trio.open_nursery() as nursery:
            for i in range(2, n + 1):
                nursery.start_soon(conn, i)
        await hub.wait_connected(timeout=60)
        gc.collect()
        per_party = (_rss() - before) / (n - 1)
        print(f"{per_party / 1024:.1f} KB per TLS party")
        try:
            assert len({id(ep.peers) for ep in eps.values()} | {id(hub.peers)}) == 1
            assert per_party < KB_PER_TLS_PARTY * 1024, f"{per_party / 1024:.0f} KB per TLS party"
        finally:
            for ep in eps.values():
                await ep.aclose()
