"""Test helper: open the same deployment shape over any transport."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from transports import MemoryNetwork, Tap
from transports.base import Endpoint
from transports.pki import Roster, generate_deployment
from transports.tcp import connect_client, open_hub

KINDS = ["memory", "tcp"]
_ROSTERS: dict[tuple[str, int], Roster] = {}


def roster_for(n: int, base: Path) -> Roster:
    """A cached PKI + roster for ``n`` parties (key generation is the slow part)."""
    key = (str(base), n)
    if key not in _ROSTERS:
        _ROSTERS[key] = generate_deployment(n, base / f"pki-{n}", hub_port=0)
    return _ROSTERS[key]


@asynccontextmanager
async def deployment(
    kind: str,
    n: int,
    tmp: Path,
    *,
    buffer: int = 64,
    tap: Tap | None = None,
    tls: bool = True,
) -> AsyncIterator[dict[int, Endpoint]]:
    """Endpoints ``0..n-1`` (0 is the hub on TCP) on ``kind`` ("memory" or "tcp")."""
    if kind == "memory":
        async with MemoryNetwork(n, buffer=buffer, tap=tap) as net:
            yield dict(net.endpoints())
        return
    roster = roster_for(n, tmp)
    async with open_hub(roster, port=0, buffer=buffer, tap=tap, tls=tls) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        eps: dict[int, Endpoint] = {0: hub}

        async def conn(i: int) -> None:
            eps[i] = await connect_client(r, i, tap=tap, tls=tls)

        async with trio.open_nursery() as nursery:
            for i in range(1, n):
                nursery.start_soon(conn, i)
        try:
            yield eps
        finally:
            for i in range(1, n):
                await eps[i].aclose()
