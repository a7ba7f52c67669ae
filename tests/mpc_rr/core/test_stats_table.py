"""Per-party costs as columns: a StatsTable reads back as the PartyStats it was made of, and a
CostReport over it gives the same totals as over the objects, without building them."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import CostReport, PartyStats, PeerError, ProtocolAbort, UsageError
from mpc_rr.core._errors import ErrorLog
from mpc_rr.core._stats_table import StatsColumns, StatsTable

LABELS = st.tuples(st.sampled_from(["a", "b", "sum"]), st.integers(0, 40))


@st.composite
def party_stats(draw: st.DrawFn) -> dict[int, PartyStats]:
    ids = draw(st.lists(st.integers(0, 500), min_size=0, max_size=12, unique=True))
    out: dict[int, PartyStats] = {}
    for pid in ids:
        s = PartyStats(pid, draw(st.sampled_from(["Coordinator", "DataParty"])))
        for k in ("messages_sent", "messages_received", "bytes_sent", "bytes_received", "deadlines"):
            setattr(s, k, draw(st.integers(0, 2**40)))
        s.wall_s = draw(st.floats(0, 100))
        s.rounds_sent = set(draw(st.lists(LABELS, max_size=25)))
        s.rounds_received = set(draw(st.lists(LABELS, max_size=5)))
        if draw(st.booleans()):
            s.peer_errors.append(PeerError("bad frame", draw(st.integers(0, 9))))
        if draw(st.booleans()):
            s.error = ProtocolAbort(f"party {pid} gave up", (1,))
        out[pid] = s
    return out


def _same(a: PartyStats, b: PartyStats) -> None:
    assert (a.party_id, a.role, a.wall_s, a.deadlines) == (b.party_id, b.role, b.wall_s, b.deadlines)
    assert str(a.error) == str(b.error)  # pickled: an equal abort, not the same object
    assert (a.messages_sent, a.messages_received, a.bytes_sent, a.bytes_received) == (
        b.messages_sent, b.messages_received, b.bytes_sent, b.bytes_received,
    )  # fmt: skip
    assert (a.rounds_sent, a.rounds_received) == (b.rounds_sent, b.rounds_received)
    assert [str(e) for e in a.peer_errors] == [str(e) for e in b.peer_errors]


@settings(max_examples=60, deadline=None)
@given(party_stats(), st.integers(1, 4))
def test_a_table_reads_back_its_stats_and_reports_the_same_costs(
    stats: dict[int, PartyStats], pieces: int
) -> None:
    ids = sorted(stats)
    # split in pieces, as shards are, and put back together (in reverse order: concat sorts)
    parts = [StatsTable.of({p: stats[p] for p in ids[k::pieces]}) for k in range(pieces)]
    table = pickle.loads(pickle.dumps(StatsTable.concat(reversed(parts))))
    assert list(table) == ids and len(table) == len(stats)
    for pid in ids:
        assert pid in table
        _same(table[pid], stats[pid])
    assert 10**6 not in table and "1" not in table
    with pytest.raises(KeyError):
        table[10**6]
    a, b = CostReport(stats, 1.0, "x"), CostReport(table, 1.0, "x")
    assert a.to_json() == b.to_json()
    assert (a.messages, a.bytes, a.rounds, a.peer_errors) == (b.messages, b.bytes, b.rounds, b.peer_errors)
    assert a.peer_error_logs().keys() == b.peer_error_logs().keys()


def test_columns_share_label_sets_and_keep_large_ones_per_party() -> None:
    cols = StatsColumns([5, 3, 9])
    with pytest.raises(UsageError, match="role index"):
        cols.table()  # no role named yet
    for i in range(3):
        cols.role[i] = cols.role_index("Coordinator" if i == 1 else "DataParty")
    for i in range(3):  # the same steps: one shared set
        for step in range(3):
            cols.rounds_sent[i] = cols.add_label(cols.rounds_sent[i], ("pipe", step))
    ref = cols.rounds_sent[0]
    assert cols.rounds_sent.tolist() == [ref] * 3 and cols.label_count(ref) == 3
    for step in range(100):  # one long-lived party: a set of its own past 16 labels
        cols.rounds_received[2] = cols.add_label(cols.rounds_received[2], ("block", step))
    assert cols.rounds_received[2] < 0 and cols.label_count(cols.rounds_received[2]) == 100
    assert len(cols.label_sets) < 40  # not one frozen set per label added
    cols.peer_errors[1] = ErrorLog()
    cols.peer_errors[1].append(PeerError("junk", 7))
    cols.errors[9] = ProtocolAbort("party 9 stopped", ())
    table = cols.table()
    assert list(table) == [3, 5, 9]
    assert table[9].rounds_received == {("block", s) for s in range(100)}
    assert table[5].rounds_sent == {("pipe", s) for s in range(3)}
    assert (table[3].role, table[9].role) == ("Coordinator", "DataParty")
    assert table[3].peer_errors.total == 1 and table[9].error is not None and table[5].error is None
    table.set_error(5, ProtocolAbort("late", ()))
    assert str(table[5].error) == "late"
    with pytest.raises(KeyError):
        table.set_error(4, ProtocolAbort("no such party", ()))


def test_a_table_refuses_unsorted_ids_or_short_columns() -> None:
    import numpy as np

    z = np.zeros(2)
    cols = dict.fromkeys(("messages_sent", "messages_received", "bytes_sent", "bytes_received", "deadlines"), z)
    with pytest.raises(UsageError, match="sorted and distinct"):
        StatsTable(np.array([2, 1]), z, ["R"], cols, z, z, z, [frozenset()])
    with pytest.raises(UsageError, match="needs 2 entries"):
        StatsTable(np.array([1, 2]), z[:1], ["R"], cols, z, z, z, [frozenset()])
