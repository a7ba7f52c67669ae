"""Role outcomes as columns: an OutcomeTable reads back the RoleOutcome of every role it was
made of (done, aborted, still waiting), split and merged as shards are, results shipped once."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import ProtocolAbort, RunResult, UsageError
from mpc_rr.core._costs import CostReport
from mpc_rr.core._outcome_table import OutcomeTable
from mpc_rr.core._runs import RoleOutcome


@st.composite
def outcomes(draw: st.DrawFn) -> dict[int, RoleOutcome]:
    ids = draw(st.lists(st.integers(0, 300), max_size=10, unique=True))
    out = {}
    for pid in ids:
        kind = draw(st.sampled_from(["done", "aborted", "waiting"]))
        out[pid] = RoleOutcome(
            pid, draw(st.sampled_from(["Coordinator", "DataParty"])),
            draw(st.sampled_from(["DONE", "AWAIT", "ABORTED"])),
            draw(st.sampled_from([("a", 1), ("b",), 7])) if kind == "done" else None,
            ProtocolAbort(f"party {pid} stopped", (1,)) if kind == "aborted" else None,
            draw(st.sets(st.integers(0, 9), max_size=3)) if kind == "waiting" else (),
            done=kind == "done",
        )  # fmt: skip
    return out


def _same(a: RoleOutcome, b: RoleOutcome) -> None:
    assert (a.party_id, a.role_type, a.final_state, a.done, a.waiting_for()) == (
        b.party_id, b.role_type, b.final_state, b.done, b.waiting_for(),
    )  # fmt: skip
    assert str(a.error) == str(b.error)
    if a.done and a.error is None:
        assert a.result == b.result


@settings(max_examples=60, deadline=None)
@given(outcomes(), st.integers(1, 3))
def test_a_table_reads_back_every_outcome(roles: dict[int, RoleOutcome], pieces: int) -> None:
    ids = sorted(roles)
    parts = []
    for k in range(pieces):  # as the workers do: results pickled once, unpickled by the parent
        t = OutcomeTable.of({p: roles[p] for p in ids[k::pieces]}, result_key=pickle.dumps)
        t = pickle.loads(pickle.dumps(t))
        parts.append(t.with_results([pickle.loads(b) for b in t.results]))
    table = OutcomeTable.concat(reversed(parts))
    assert list(table) == ids and len(table) == len(roles)
    for pid in ids:
        assert pid in table
        _same(table[pid], RoleOutcome.of(roles[pid]))  # what a worker used to ship
    assert table.unfinished() == [p for p in ids if not roles[p].done]
    run = RunResult(table, CostReport({}, 0.0, "x"))
    assert run.ok == all(r.done and r.error is None for r in roles.values())
    assert run.results() == {p: r.result for p, r in roles.items() if r.done and r.error is None}
    assert -1 not in table and "3" not in table
    with pytest.raises(KeyError):
        table[10**6]


def test_equal_results_are_kept_once_and_bad_columns_refused() -> None:
    import numpy as np

    roles = {p: RoleOutcome(p, "DataParty", "DONE", ("same", 1), done=True) for p in range(1, 50)}
    table = OutcomeTable.of(roles, result_key=pickle.dumps)
    assert len(table.results) == 1 and table.all_ok()
    z = np.zeros(2, np.int32)
    with pytest.raises(UsageError, match="sorted and distinct"):
        OutcomeTable(np.array([3, 1]), z, z, z.astype(bool), z - 1, ["R"], [])
    with pytest.raises(UsageError, match="outside its list"):
        OutcomeTable(np.array([1, 3]), z, z + 1, z.astype(bool), z - 1, ["R"], [])
