"""Fixtures shared across the suite: deployment keys, connected endpoints of every kind, a
small CSV file, and SecAgg+ roles with a hostile party.

The suite reads the data sets shipped in the package: ``MPC_RR_DATA`` (a user's override) is
removed from the environment here, for this process and every process a test starts; a test of
the override sets it itself."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, Send, WireArray
from mpc_rr.data import Dataset, data_file, load_csv, load_network
from mpc_rr.secure_sum import SeededEntropy, secagg
from mpc_rr.secure_sum.secagg import EncryptedShares, SecAggClient, secagg_public, secagg_roles
from transports.pki import Roster, generate_deployment
from transports.testing import (
    OpenEndpoints,
    open_memory_endpoints,
    open_shard_endpoints,
    tcp_endpoints,
)

os.environ.pop("MPC_RR_DATA", None)

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


@pytest.fixture(scope="session")
def survey() -> Dataset:
    """The Survey network's 10,000 records (the shipped ``survey_10000.csv``)."""
    return load_csv(data_file("survey_10000.csv"), load_network("survey").schema)


PEOPLE = """id,age,sex,region,income,note
1,34,F,north,"10,000-20,000",x
2,9,M,south,<10000,y

3,100,F,north,"10,000-20,000",z
4,9,?,east,>20000,x
"""


@pytest.fixture
def people() -> str:
    """A small CSV file's text: a header, quoted commas, a blank line, a missing value ``?``."""
    return PEOPLE


@pytest.fixture
def write_csv(tmp_path: Path) -> Callable[..., Path]:
    """``write_csv(text, name="people.csv", encoding="utf-8")``: the file ``tmp_path / name``."""

    def write_csv(text: str, name: str = "people.csv", encoding: str = "utf-8") -> Path:
        f = tmp_path / name
        f.write_bytes(text.encode(encoding))
        return f

    return write_csv


HUGE = WireArray(dtype="<u4", shape=(2**32, 2**32), data=b"")
"""An array that claims 2^64 elements and holds none."""


class HostileShares(SecAggClient):
    """Sends EncryptedShares whose recipients array claims 2^64 elements and holds none."""

    def _on_neighbor_keys(self, src: int, msg: secagg.NeighborKeys) -> list[Send]:
        super()._on_neighbor_keys(src, msg)
        shares = EncryptedShares(run=self.run, step=1, recipients=HUGE, ciphertexts=HUGE)
        return [Send(COORDINATOR, shares)]


def _hostile_run_roles(
    n: int = 8, cells: int = 4, seed: int = 0
) -> tuple[Any, np.ndarray, dict[int, Any]]:
    pub = secagg_public(n, cells, run="hostile", max_dropout=0.25)
    x = np.random.default_rng(seed).integers(0, 2, size=(n, cells))
    roles = secagg_roles(x, pub, entropy=SeededEntropy(seed).spawn)
    return pub, x, roles


@pytest.fixture(scope="session")
def hostile_run_roles() -> Callable[..., tuple[Any, np.ndarray, dict[int, Any]]]:
    """``hostile_run_roles(n=8, cells=4, seed=0)`` -> ``(public, inputs, roles)``: SecAgg+ over
    random 0/1 inputs, run "hostile", a quarter of the parties allowed to drop out."""
    return _hostile_run_roles


@pytest.fixture(scope="session")
def hostile_shares() -> type[SecAggClient]:
    """:class:`HostileShares`, a SecAgg+ client whose shares claim 2^64 recipients."""
    return HostileShares
