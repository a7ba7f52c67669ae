"""Fixtures of the party tests: plaintext-sum roles, and comparisons of two runs of one plan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mpc_rr.core import Role, RunResult
from mpc_rr.data import load_adult
from mpc_rr.pipeline import PipelineConfig, PipelinePlan
from mpc_rr.pipeline import _signing as signing
from mpc_rr.secure_sum.plainsum import make_role


def _plainsum_roles(n: int, seed: int, cells: int = 3) -> dict[int, Role]:
    return {i: make_role(i, n + 1, seed, {"cells": cells}) for i in range(n + 1)}


@pytest.fixture
def plainsum_roles() -> Callable[..., dict[int, Role]]:
    """``plainsum_roles(n, seed, cells=3)``: the hub (0) and ``n`` clients of the plaintext sum."""
    return _plainsum_roles


def _per_link_events(res: RunResult) -> dict[tuple[int, int], list[tuple[float, bytes]]]:
    """(virtual time, bytes) of every message per link, in send order."""
    assert res.transcript is not None
    out: dict[tuple[int, int], list[tuple[float, bytes]]] = {}
    for e in res.transcript:
        out.setdefault((e.src, e.dst), []).append((e.time, e.data))
    return out


@pytest.fixture
def per_link_events() -> Callable[[RunResult], dict[tuple[int, int], list[tuple[float, bytes]]]]:
    """``per_link_events(run)``: (virtual time, bytes) of every message per link, in send order."""
    return _per_link_events


def _same_costs(a: RunResult, b: RunResult) -> None:
    assert set(a.costs.parties) == set(b.costs.parties)
    for pid, s in a.costs.parties.items():
        t = b.costs.parties[pid]
        got = (t.messages_sent, t.messages_received, t.bytes_sent, t.bytes_received, t.deadlines)
        want = (s.messages_sent, s.messages_received, s.bytes_sent, s.bytes_received, s.deadlines)
        assert got == want, pid
        assert len(t.rounds_sent) == len(s.rounds_sent), pid

    def no_wall(c: RunResult) -> dict[str, Any]:
        return {k: {**v, "max_wall_s": 0} for k, v in c.costs.per_role().items()}

    assert no_wall(a) == no_wall(b)
    assert (a.costs.messages, a.costs.bytes, a.costs.rounds) == (
        b.costs.messages, b.costs.bytes, b.costs.rounds,
    )  # fmt: skip


@pytest.fixture
def same_costs() -> Callable[[RunResult, RunResult], None]:
    """``same_costs(a, b)``: asserts two runs cost the same per party and per role (wall time aside)."""
    return _same_costs


def _adult_plan(n: int, dependence: str, seed: int = 3) -> PipelinePlan:
    data = load_adult()
    codes = data.codes[:n]
    key = signing.new_signing_key(bytes(range(32)))
    cfg = PipelineConfig(
        schema=data.schema, n=n, p=0.7, dependence=dependence, run=f"shards-{dependence}",
        coordinator_key=signing.public_bytes(key),
    )  # fmt: skip
    ent = 11 if dependence != "rr" else None
    return PipelinePlan(cfg, codes, seed, key.private_bytes_raw(), entropy_seed=ent)


@pytest.fixture
def adult_plan() -> Callable[..., PipelinePlan]:
    """``adult_plan(n, dependence, seed=3)``: the pipeline's plan on the first ``n`` Adult records."""
    return _adult_plan
