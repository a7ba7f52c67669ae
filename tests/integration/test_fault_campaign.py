"""The fault campaign: kill -9 a party process at each step of each protocol.

Within the protocol's declared bound the result is exact; beyond it, a clean abort that
names the missing parties by id; and no process is left behind.  The default tier runs a
representative subset; ``-m slow`` runs every cell of the table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mpc_rr.data import load_adult
from mpc_rr.pipeline import new_coordinator_key
from mpc_rr.secure_sum import party_input
from mpc_rr.secure_sum.plainsum._roles import client_input
from parties.procs import ProcessRunResult, run_processes


@dataclass(frozen=True)
class Case:
    protocol: str
    parties: int  # processes, hub included
    crash: dict[int, str]
    expect: str  # "exact" or "abort"
    params: dict[str, Any] = field(default_factory=dict)
    default_tier: bool = False

    @property
    def id(self) -> str:
        kills = "+".join(f"{p}@{m}" for p, m in sorted(self.crash.items()))
        return f"{self.protocol}-{kills}-{self.expect}"


SECAGG = {"cells": 12, "max_dropout": 0.34}  # 6 data parties: 2 dropouts allowed
CASES = [
    *(Case("secagg", 7, {3: m}, "exact", SECAGG)
      for m in ("AdvertiseKeys", "EncryptedShares", "MaskedInput", "UnmaskShares")),
    *(Case("secagg", 7, {2: m, 4: m, 6: m}, "abort", SECAGG)
      for m in ("AdvertiseKeys", "EncryptedShares", "MaskedInput", "UnmaskShares")),
    # the deployment that failed before: 6 clients, one killed before start, one later
    Case("secagg", 7, {2: "AdvertiseKeys", 5: "MaskedInput"}, "exact", SECAGG, default_tier=True),
    *(Case("full-mesh-board", 5, {2: m}, "abort", {"cells": 6}, default_tier=(m == "MeshShare"))
      for m in ("MeshKey", "MeshShare", "MeshPublish")),
    Case("plainsum", 5, {2: "PlainValue"}, "abort", {"cells": 3}),
    Case("plainsum", 5, {2: "PlainValue"}, "exact", {"cells": 3, "proceed_on_timeout": True}),
    Case("pipeline", 7, {4: "RandomizedRecord"}, "exact", {}),
    Case("pipeline", 7, {4: "Release"}, "exact", {}),
    *(Case("pipeline", 7, {4: m}, "exact", {"dependence": "secure-sum", "sum_options": {"max_dropout": 0.34}},
           default_tier=(m == "UnmaskShares"))
      for m in ("AdvertiseKeys", "MaskedInput", "UnmaskShares")),
]  # fmt: skip


def _leftovers(workdir: Path) -> list[int]:
    """Processes still running whose command line mentions this run's folder."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if str(workdir).encode() in cmd:
            out.append(int(pid))
    return out


def _expected(case: Case, included: list[int]) -> list[int]:
    if case.protocol == "plainsum":
        return sum(client_input(i, 5, 3) for i in included).tolist()
    return sum(party_input(i, 5, case.params["cells"]).astype(int) for i in included).tolist()


def _run(case: Case, tmp_path: Path) -> ProcessRunResult:
    params = dict(case.params)
    if case.protocol == "pipeline":
        key = new_coordinator_key(tmp_path / "coord.key")
        params |= {"coordinator_key": key, "signing_key": str(tmp_path / "coord.key"), "p": 0.5}
    work = tmp_path / "run"
    r = run_processes(case.protocol, case.parties, seed=5, params=params, step_timeout=3.0,
                      timeout=120, linger=90, crash=case.crash, workdir=work)  # fmt: skip
    assert _leftovers(work) == []
    for victim in case.crash:
        assert r.exit_codes[victim] == -9, (victim, r.exit_codes)  # a real kill -9
    return r


def _check(case: Case, r: ProcessRunResult) -> None:
    victims = set(case.crash)
    survivors = set(range(case.parties)) - victims
    if case.expect == "abort":
        hub = r.reports[0]
        assert not hub["ok"] and hub["cause"] == "aborted" and r.exit_codes[0] == 1
        assert victims <= set(hub["culprits"]), (hub["error"], hub["culprits"])
        for p in survivors:
            assert r.reports[p]["cause"] != "ok" and r.exit_codes[p] == 1
        return
    assert all(r.reports[p]["ok"] and r.exit_codes[p] == 0 for p in survivors), r.errors
    hub = r.results[0]
    if case.protocol == "pipeline":
        kept = set(range(1, case.parties)) - victims
        assert set(hub["parties_release"]) == kept
        assert len(hub["randomized"]) == len(kept)
        truth = load_adult().codes[: case.parties - 1]
        assert np.asarray(hub["randomized"]).shape[1] == truth.shape[1]
        return
    included = hub["included"] if isinstance(hub, dict) else sorted(set(range(1, case.parties)) - victims)
    total = hub["total"] if isinstance(hub, dict) else hub
    assert not (victims & set(included)) or case.crash.get(min(victims & set(included))) == "UnmaskShares"
    assert total == _expected(case, included)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.id, marks=() if c.default_tier else pytest.mark.slow) for c in CASES],
)
def test_kill_at_each_step(case: Case, tmp_path: Path) -> None:
    _check(case, _run(case, tmp_path))
