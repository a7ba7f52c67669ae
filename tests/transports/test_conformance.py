"""The conformance suite (:mod:`transports.testing`) on every kind of endpoint.

Kinds (the ``endpoint_kind`` fixture of ``tests/conftest.py``): the memory
network, TCP through the hub with mutual TLS, TCP in plaintext, and the shard
networks of a sharded simulation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from transports import testing
from transports.testing import MEMORY_WIRE, OpenEndpoints, WireView, tcp_wire

ROOT = Path(__file__).resolve().parents[2]

WIRES: dict[str, WireView] = {
    "memory": MEMORY_WIRE,
    "tcp-tls": tcp_wire(tls=True),
    "tcp-plaintext": tcp_wire(tls=False),
    "shards": MEMORY_WIRE,
}


async def test_per_link_order_and_many_peers(open_endpoints: OpenEndpoints) -> None:
    await testing.check_per_link_order(open_endpoints, parties=12, messages=30)


@pytest.mark.parametrize("size", testing.PAYLOAD_SIZES)
async def test_payload_sizes_arrive_intact(open_endpoints: OpenEndpoints, size: int) -> None:
    await testing.check_payload_intact(open_endpoints, size)


async def test_64_mib_payload(open_endpoints: OpenEndpoints) -> None:
    await testing.check_large_payload(open_endpoints, 64 << 20)


async def test_receivers_never_share_a_mutable_buffer(open_endpoints: OpenEndpoints) -> None:
    await testing.check_no_shared_mutable_buffer(open_endpoints)


async def test_unknown_destination(open_endpoints: OpenEndpoints) -> None:
    await testing.check_unknown_destination(open_endpoints)


async def test_close_semantics(open_endpoints: OpenEndpoints) -> None:
    await testing.check_close(open_endpoints)


@pytest.mark.parametrize(
    "endpoint_kind",
    [
        "memory",
        "tcp-tls",
        "tcp-plaintext",
        pytest.param(
            "shards",
            marks=pytest.mark.xfail(
                strict=True,
                reason="does not apply: a shard endpoint's send never blocks (its outboxes are "
                "unbounded within a superstep, transports/shards.py); a bounded buffer makes "
                "the delivery between supersteps wait instead (tests/transports/test_shards.py)",
            ),
        ),
    ],
)
async def test_back_pressure_blocks_then_drains(open_endpoints: OpenEndpoints) -> None:
    await testing.check_back_pressure(open_endpoints)


async def test_tap_records_what_the_wire_carries(
    open_endpoints: OpenEndpoints, endpoint_kind: str
) -> None:
    await testing.check_tap_records_the_wire(open_endpoints, WIRES[endpoint_kind])


async def test_tap_without_data_keeps_sizes_only(open_endpoints: OpenEndpoints) -> None:
    await testing.check_tap_without_data(open_endpoints)


def test_every_check_of_the_suite_runs_here() -> None:
    """A check added to transports.testing without a test here would silently never run."""
    source = open(__file__, encoding="utf-8").read()
    checks = [name for name in testing.__all__ if name.startswith("check_")]
    assert checks and all(f"testing.{name}(" in source for name in checks)


def test_the_suite_imports_without_pytest() -> None:
    """Anyone writing a transport may import it, whatever their test runner (trio.testing
    itself imports pytest when it is installed, so pytest is made unimportable here)."""
    code = "import sys; sys.modules['pytest'] = sys.modules['_pytest'] = None; import transports.testing"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0
