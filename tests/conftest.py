"""Fixtures shared across the suite: deployment keys, and connected endpoints of every kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from transports.pki import Roster, generate_deployment
from transports.testing import (
    OpenEndpoints,
    open_memory_endpoints,
    open_shard_endpoints,
    tcp_endpoints,
)

ENDPOINT_KINDS = ["memory", "tcp-tls", "tcp-plaintext", "shards"]
"""Every kind of endpoint a party can run on (the ids of the ``endpoint_kind`` fixture)."""


@pytest.fixture(scope="session")
def roster_for(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], Roster]:
    """``roster_for(n)``: a deployment (CA, keys, roster) of ``n`` parties with the hub on
    port 0, made once per session (key generation is the slow part)."""
    base: Path = tmp_path_factory.mktemp("pki")
    rosters: dict[int, Roster] = {}

    def roster_for(n: int) -> Roster:
        if n not in rosters:
            rosters[n] = generate_deployment(n, base / f"pki-{n}", hub_port=0)
        return rosters[n]

    return roster_for


@pytest.fixture(params=ENDPOINT_KINDS)
def endpoint_kind(request: pytest.FixtureRequest) -> str:
    """One of :data:`ENDPOINT_KINDS` (a test may parametrize it itself, to mark one kind)."""
    return str(request.param)


@pytest.fixture
def open_endpoints(endpoint_kind: str, roster_for: Callable[[int], Roster]) -> OpenEndpoints:
    """``open_endpoints(n, *, buffer=64, tap=None)``: connected endpoints ``0..n-1`` of
    ``endpoint_kind`` (party 0 is the hub on TCP; see :mod:`transports.testing`)."""
    kinds: dict[str, OpenEndpoints] = {
        "memory": open_memory_endpoints,
        "tcp-tls": tcp_endpoints(roster_for, tls=True),
        "tcp-plaintext": tcp_endpoints(roster_for, tls=False),
        "shards": open_shard_endpoints,
    }
    return kinds[endpoint_kind]
