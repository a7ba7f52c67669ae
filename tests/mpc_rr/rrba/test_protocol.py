"""Distributed RRBA: the Aggregator and Client roles.

Distributed == centralized for the same seeds (harness, memory, TCP); the
secure tally gives identical estimates and the aggregator never receives an
answer; dropouts within a block are left out and counted; hostile clients
are named and left out while the run goes on; the client refuses bad asks.
"""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import (
    COORDINATOR,
    Codec,
    DecodeError,
    DropAt,
    HarnessRunner,
    PeerError,
    Send,
    UsageError,
    run_roles,
    state_diagram,
)
from mpc_rr.data import Attribute, Dataset, Schema
from mpc_rr.rrba import (
    RRBAAggregator,
    RRBAClient,
    RRBAConfig,
    rrba_roles,
    run_distributed,
    run_rrba,
)
from mpc_rr.rrba._aggregator_role import AggState
from mpc_rr.rrba._client_role import ClientState
from mpc_rr.rrba._messages import MAX_VIEW, RRBA_MESSAGES, Answer, AskBlock, Dismiss, wire_cells
from mpc_rr.rrba._protocol import client_step_timeouts, config_for
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum._identity import default_identity
from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES, AdvertiseKeys, MaskedInput
from parties.runner import MemoryRunner
from parties.tcp_runner import TcpRunner

SEED = 11
SIZES = (3, 2, 2, 3, 2)  # 5 attributes: 5 views of 2 pairs (cover(5, 2))


def small_data(n: int, seed: int = 0) -> Dataset:
    """Dependent records: later attributes copy the first one half of the time."""
    rng = np.random.default_rng(seed)
    schema = Schema(tuple(Attribute(f"a{i}", tuple(map(str, range(s)))) for i, s in enumerate(SIZES)))
    codes = rng.integers(0, SIZES, size=(n, len(SIZES)))
    copy = rng.random((n, len(SIZES))) < 0.5
    return Dataset(schema, np.where(copy, codes[:, :1] % np.asarray(SIZES), codes))


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    """Bit-identical collections: estimates, per-block history, epsilon, stopping."""
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x, y)
    for f in ("answers", "blocks_used", "first_held", "converged", "tuples", "error", "held",
              "epsilon_block", "epsilon_table_max"):  # fmt: skip
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
    assert (a.clients, a.blocks) == (b.clients, b.blocks)


@pytest.fixture(scope="module")
def data():  # type: ignore[no-untyped-def]
    return small_data(300, seed=2)


# ------------------------------------------------------------------ distributed == centralized
@pytest.mark.parametrize(
    "runner",
    [HarnessRunner(), MemoryRunner(), TcpRunner(step_timeout=30.0)],
    ids=["harness", "memory", "tcp"],
)
def test_distributed_equals_centralized_for_the_same_seed(data, runner) -> None:  # type: ignore[no-untyped-def]
    if isinstance(runner, TcpRunner):  # 300 TLS handshakes took 20 s under load; 150 still make 3 blocks
        data = small_data(150, seed=2)
    kw = dict(p=0.4, block=70, t_floor=0.005, estimator="pooled")
    ref = run_rrba(data, seed=SEED, client_rng="per-client", **kw)  # type: ignore[arg-type]
    d = run_distributed(data, config_for(data, 70, 0.4, t_floor=0.005), runner, SEED)
    _same(d.run, ref)
    assert d.result.ok and d.result.costs.transport == runner.name
    # one AskBlock to and one Answer from each client, nothing else
    assert d.result.costs.messages == 2 * data.n
    assert d.result.costs.coordinator()["messages_received"] == data.n
    assert d.run.dropouts() == {"asked": data.n, "answered": data.n, "left_out": 0, "silent": 0,
                                "rejected": 0, "lost_blocks": 0}  # fmt: skip


def test_stop_first_dismisses_the_clients_never_asked(data) -> None:  # type: ignore[no-untyped-def]
    ref = run_rrba(data, p=0.6, block=30, stop="first", estimator="paper", seed=SEED)
    cfg = config_for(data, 30, 0.6, stop="first", estimator="paper")
    d = run_distributed(data, cfg, MemoryRunner(), SEED)
    _same(d.run, ref)
    assert ref.clients < data.n  # the collection stopped early
    outcomes = d.result.results()
    assert all(outcomes[i].asked for i in range(1, ref.clients + 1))
    assert not any(outcomes[i].asked for i in range(ref.clients + 1, data.n + 1))
    assert d.result.ok  # nobody timed out waiting for a block that never came


# ------------------------------------------------------------------------------ secure tally
@pytest.mark.parametrize("runner", [HarnessRunner(transcript=True), MemoryRunner(transcript=True)],
                         ids=["harness", "memory"])  # fmt: skip
def test_secure_tally_gives_identical_estimates_and_hides_every_answer(data, runner) -> None:  # type: ignore[no-untyped-def]
    sub = small_data(90, seed=3)
    ref = run_rrba(sub, p=0.5, block=30, seed=SEED)
    cfg = config_for(sub, 30, 0.5, secure_tally=True)
    d = run_distributed(sub, cfg, runner, SEED, entropy=SeededEntropy(5).spawn)
    _same(d.run, ref)
    plain = run_distributed(sub, config_for(sub, 30, 0.5), runner, SEED)
    # what reached the aggregator: only SecAgg+ messages, never an Answer
    codec = Codec(RRBA_MESSAGES + SECAGG_MESSAGES)
    to_agg = [codec.decode(e.data) for e in d.result.transcript.events if e.dst == COORDINATOR]
    assert to_agg and not any(isinstance(m, Answer) for m in to_agg)
    assert {type(m) for m in to_agg} <= set(SECAGG_MESSAGES)
    assert sum(isinstance(m, MaskedInput) for m in to_agg) == sub.n
    # the price: five SecAgg+ steps (keys, shares, masked input, consistency, unmask) instead of one Answer
    assert d.result.costs.data_parties()["mean"]["messages_sent"] == 6
    assert d.result.costs.bytes > 5 * plain.result.costs.bytes


def test_each_inner_party_of_a_secure_tally_signs_with_its_own_outer_key() -> None:
    """Block b's inner party i is outer party ``members[i - 1]``: it signs with that party's
    key, and its roster names the block's outer parties by inner id.  (Deployed, a process
    holds only its own key: block 2's inner party 1 was checked against outer party 1's key,
    and every block but the first lost its tally.)"""
    sub = small_data(60, seed=3)
    cfg = config_for(sub, 30, 0.5, secure_tally=True)
    d = run_distributed(sub, cfg, HarnessRunner(), SEED, entropy=SeededEntropy(5).spawn)
    roles = d.result.roles
    assert not roles[COORDINATOR].culprits
    for outer in (1, 31, 45, 60):
        inner = roles[outer].sub.role
        mine = default_identity(outer, cfg.n_clients)
        inner_id = outer - cfg.members(cfg.block_of(outer)).start + 1
        assert inner.identity.party_id == inner_id and inner.identity.key is mine.key
        assert inner.roster.verify(inner_id, mine.sign(b"x"), b"x")
        assert not inner.roster.verify(inner_id % 30 + 1, mine.sign(b"x"), b"x")


def test_secure_tally_over_tcp_gives_identical_estimates(data) -> None:  # type: ignore[no-untyped-def]
    sub = small_data(60, seed=3)
    ref = run_rrba(sub, p=0.5, block=30, seed=SEED)
    cfg = config_for(sub, 30, 0.5, secure_tally=True)
    d = run_distributed(sub, cfg, TcpRunner(step_timeout=30.0), SEED, entropy=SeededEntropy(5).spawn)
    _same(d.run, ref)
    assert d.result.costs.data_parties()["mean"]["messages_sent"] == 6


def test_an_inconsistent_secure_tally_loses_the_block_and_the_run_goes_on() -> None:
    sub = small_data(60, seed=4)

    class TwoHot(RRBAClient):
        def _tally_input(self, tables: np.ndarray, cells: np.ndarray) -> np.ndarray:
            x = super()._tally_input(tables, cells)
            other = min(set(range(len(self.cfg.cover.subsets))) - set(tables.tolist()))
            x[self.cfg.offsets[other]] = 1  # one more 1, in a table it was not asked
            return x

    cfg = config_for(sub, 30, 0.5, secure_tally=True)
    roles = rrba_roles(cfg, sub.codes, SEED, entropy=SeededEntropy(1).spawn)
    victim = roles[7]
    assert isinstance(victim, RRBAClient)
    roles[7] = TwoHot(7, cfg, sub.codes[6], victim.rng, entropy=SeededEntropy(2).spawn(7))
    res = run_roles(roles)
    out = roles[COORDINATOR].result
    assert res.ok and out.blocks == 2
    b1, b2 = out.records
    assert b1.lost.startswith("secure tally inconsistent") and b1.answered == 0
    assert not b2.lost and b2.answered == 30
    assert out.answers.sum() == 30 * 2  # only block 2 counted (2 pairs per client)


# ---------------------------------------------------------------------------------- dropouts
@pytest.mark.parametrize("secure", [False, True], ids=["plain", "secure"])
def test_dropouts_within_a_block_are_left_out_and_counted(secure: bool) -> None:
    sub = small_data(80, seed=5)
    cfg = config_for(sub, 20, 0.5, secure_tally=secure)
    silent = {3, 4, 25, 61, 80}
    at = MaskedInput if secure else Answer

    def run(runner):  # type: ignore[no-untyped-def]
        return run_distributed(
            sub, cfg, runner, SEED, entropy=SeededEntropy(3).spawn,
            wrap=lambda pid, r: DropAt(r, at) if pid in silent else r,
        )  # fmt: skip

    d = run(MemoryRunner(step_timeout=30.0))  # virtual time: the block deadlines cost nothing
    recs = d.run.records
    assert [r.silent for r in recs] == [(3, 4), (25,), (), (61, 80)]
    assert [r.answered for r in recs] == [18, 19, 20, 18]
    assert d.run.dropouts()["left_out"] == 5 and d.run.answers.sum() == 75 * 2  # 2 pairs per view
    # every block closed at its deadline at the latest, and nobody gave up waiting
    assert d.result.costs.parties[COORDINATOR].deadlines == 3  # blocks 1, 2 and 4
    assert d.result.errors == {}
    # the same dropouts give the same estimates whatever the transport and the tally
    h = run(HarnessRunner())
    _same(h.run, d.run)
    other = run_distributed(
        sub, config_for(sub, 20, 0.5, secure_tally=not secure), HarnessRunner(), SEED,
        entropy=SeededEntropy(3).spawn,
        wrap=lambda pid, r: DropAt(r, Answer if secure else MaskedInput) if pid in silent else r,
    )  # fmt: skip
    _same(other.run, d.run)


def test_secure_tally_dropouts_at_key_advertisement_too() -> None:
    sub = small_data(40, seed=6)
    cfg = config_for(sub, 20, 0.5, secure_tally=True)
    d = run_distributed(
        sub, cfg, HarnessRunner(), SEED, entropy=SeededEntropy(4).spawn,
        wrap=lambda pid, r: DropAt(r, AdvertiseKeys) if pid in (2, 33) else r,
    )  # fmt: skip
    assert [r.silent for r in d.run.records] == [(2,), (33,)]
    assert [r.answered for r in d.run.records] == [19, 19]


def test_dropouts_beyond_secaggs_bound_lose_the_block_and_the_run_goes_on() -> None:
    sub = small_data(40, seed=6)
    cfg = config_for(sub, 20, 0.5, secure_tally=True, sum_options={"max_dropout": 0.1})  # 2 of 20 tolerated
    silent = {2, 5, 8, 11, 14}
    d = run_distributed(
        sub, cfg, MemoryRunner(step_timeout=30.0), SEED, entropy=SeededEntropy(4).spawn,
        wrap=lambda pid, r: DropAt(r, MaskedInput) if pid in silent else r,
    )  # fmt: skip
    b1, b2 = d.run.records
    assert b1.lost.startswith("secure sum failed") and "5 of 20 parties dropped out" in b1.lost
    assert b1.answered == 0 and b1.silent == tuple(sorted(silent)) and b1.left_out == 20
    assert not b2.lost and b2.answered == 20
    assert d.run.answers.sum() == 20 * 2 and d.result.errors == {}
    failed = [r for r in d.result.results().values() if getattr(r, "tally", "").startswith("secure sum failed")]
    assert len(failed) == 15  # block 1's survivors were told, finished, and say so


def test_a_block_with_no_answer_at_all_changes_no_table_and_the_run_goes_on() -> None:
    sub = small_data(40, seed=6)
    d = run_distributed(sub, config_for(sub, 10, 0.5), HarnessRunner(), SEED,
                        wrap=lambda pid, r: DropAt(r, Answer) if 11 <= pid <= 20 else r)  # fmt: skip
    r2 = d.run.records[1]
    assert r2.answered == 0 and r2.silent == tuple(range(11, 21))
    np.testing.assert_array_equal(d.run.tuples[1], d.run.tuples[0])  # nothing added in block 2
    assert d.run.blocks == 4 and d.run.tuples[-1].sum() == 30 * 2


@pytest.mark.parametrize("scaled", [False, True], ids=["counted-deadlines", "one-long-timeout"])
def test_a_client_waits_long_enough_for_every_earlier_block_to_time_out(scaled: bool) -> None:
    """Every block loses a client: each spends a full deadline; the last block's clients
    (patience = blocks before theirs + 2) must still be there to answer.  With per-client
    step timeouts of that whole wait, a waiting client never wakes up before its block."""
    sub = small_data(60, seed=7)
    cfg = config_for(sub, 10, 0.5)
    assert cfg.client_patience(60) == 6 + 2 and cfg.client_patience(1) == 3
    timeouts = client_step_timeouts(cfg, 5.0) if scaled else 5.0
    if isinstance(timeouts, dict):
        assert (timeouts[0], timeouts[1], timeouts[60]) == (5.0, 5.0 * 3, 5.0 * 8)
    d = run_distributed(sub, cfg, MemoryRunner(step_timeout=timeouts), SEED,
                        client_patience=1 if scaled else None,
                        wrap=lambda pid, r: DropAt(r, Answer) if pid % 10 == 1 else r)  # fmt: skip
    assert d.result.errors == {} and [r.answered for r in d.run.records] == [9] * 6
    wakeups = [d.result.costs.parties[i].deadlines for i in range(51, 61)]  # the last block
    assert wakeups == ([0] * 10 if scaled else [5] * 10)


def test_a_client_whose_aggregator_is_gone_gives_up_after_its_patience() -> None:
    sub = small_data(40, seed=7)
    cfg = config_for(sub, 10, 0.5, secure_tally=True)
    client = rrba_roles(cfg, sub.codes, SEED, parties=[25])[25]
    assert client.patience == 5 * 3 + 2  # block 3, five SecAgg+ steps per block (consistency round)
    for _ in range(client.patience - 1):
        client.on_timeout()
    assert not client.done
    client.on_timeout()
    assert client.error is not None and client.error.culprits == (COORDINATOR,)
    assert "timed out waiting for parties [0]" in str(client.error)


# ------------------------------------------------------------------------- hostile clients
def _drive(cfg: RRBAConfig, codes: np.ndarray, hostile: dict[int, type[RRBAClient]]):  # type: ignore[no-untyped-def]
    roles = rrba_roles(cfg, codes, SEED)
    for pid, cls in hostile.items():
        old = roles[pid]
        assert isinstance(old, RRBAClient)
        roles[pid] = cls(pid, cfg, codes[pid - 1], old.rng)
    return roles, run_roles(roles)


def _answer(c: RRBAClient, msg: AskBlock, **change: object) -> Answer:
    fields = dict(run=c.run, step=msg.step, view=msg.view, cells=wire_cells([0] * len(msg.subsets)))
    fields.update(change)
    return Answer(**fields)  # type: ignore[arg-type]


class Twice(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        first = super()._on_ask(src, msg)
        a = first[0].msg
        assert isinstance(a, Answer)
        flipped = (a.cells.to_numpy().astype(int) + 1) % 2
        second = Answer(run=a.run, step=a.step, view=a.view, cells=wire_cells(flipped))
        return [*first, Send(COORDINATOR, second)]


class Echo(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        first = super()._on_ask(src, msg)
        return [*first, *first]  # the network duplicated it: identical copies


class WrongView(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        self.finish(None)
        return [Send(COORDINATOR, _answer(self, msg, view=(msg.view + 1) % 5))]


class TooFew(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        self.finish(None)
        return [Send(COORDINATOR, _answer(self, msg, cells=wire_cells([0])))]


class OutOfRange(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        self.finish(None)
        return [Send(COORDINATOR, _answer(self, msg, cells=wire_cells([99] * len(msg.subsets))))]


class WrongBlock(RRBAClient):
    def _on_ask(self, src: int, msg: AskBlock) -> list[Send]:
        self.finish(None)
        return [Send(COORDINATOR, _answer(self, msg, step=msg.step + 1))]


class Early(RRBAClient):
    """Answers before it is asked (its block is 3): not in the open block."""

    def start(self) -> list[Send]:
        return [Send(COORDINATOR, Answer(run=self.run, step=3, view=0, cells=wire_cells([0, 0])))]


@pytest.mark.parametrize(
    ("cls", "message", "left_out"),
    [
        (Twice, "two different Answers; party 5 left out of block 1", True),
        (Echo, "duplicate Answer from party 5 ignored", False),
        (WrongView, "answered view", True),
        (TooFew, "1 cells for the 2 subsets it was asked; party 5 left out", True),
        (OutOfRange, "cell 99 of subset", True),
        (WrongBlock, "Answer labelled block 2, block 1 is open", True),
    ],
)
def test_a_misbehaving_client_is_named_and_left_out_and_the_run_goes_on(cls, message, left_out) -> None:  # type: ignore[no-untyped-def]
    sub = small_data(30, seed=8)
    cfg = config_for(sub, 10, 0.5)
    roles, res = _drive(cfg, sub.codes, {5: cls})
    errs = [e for e in res.peer_errors() if e.peer == 5]
    assert errs and message in str(errs[0]), [str(e) for e in errs]
    out = roles[COORDINATOR].result
    assert out.records[0].rejected == ((5,) if left_out else ())
    assert out.records[0].answered == (9 if left_out else 10)
    assert out.blocks == 3 and out.records[2].answered == 10
    assert roles[COORDINATOR].error is None


def test_an_answer_from_a_client_not_in_the_open_block_is_named_and_ignored() -> None:
    sub = small_data(30, seed=8)
    roles, res = _drive(config_for(sub, 10, 0.5), sub.codes, {25: Early})
    errs = [e for e in res.peer_errors() if e.peer == 25]
    assert errs and "Answer from party 25, which is not in block 1" in str(errs[0])
    assert roles[COORDINATOR].result.records[2].answered == 10  # asked later, answered then


def test_a_late_answer_is_counted_and_ignored() -> None:
    """By hand (sans-I/O): block 1 closes at its deadline, then one of its clients answers."""
    sub = small_data(20, seed=9)
    cfg = config_for(sub, 10, 0.5)
    roles = rrba_roles(cfg, sub.codes, SEED)
    agg = roles[COORDINATOR]
    asks = agg.start()
    assert sorted(s.dst for s in asks) == list(range(1, 11))
    late = None
    for s in asks:
        (reply,) = roles[s.dst].receive(COORDINATOR, s.msg)
        if s.dst == 4:
            late = reply.msg
            continue
        agg.receive(s.dst, reply.msg)
    assert agg.waiting_for() == {4}
    asks2 = agg.on_timeout()  # block 1 closes without client 4; block 2 opens
    assert sorted(s.dst for s in asks2) == list(range(11, 21))
    assert agg.receive(4, late) == [] and agg.late == 1
    assert agg.collection.records[0].silent == (4,)


def test_the_codec_bounds_every_field() -> None:
    import msgspec

    codec = Codec(RRBA_MESSAGES)
    enc = msgspec.msgpack.encode
    for bad in (
        {"type": "Answer", "view": 0, "cells": [-1]},
        {"type": "Answer", "view": 0, "cells": []},
        {"type": "Answer", "view": 0, "cells": [0] * (MAX_VIEW + 1)},
        {"type": "AskBlock", "view": 0, "subsets": [[0, 1]] * (MAX_VIEW + 1), "tables": [1.0]},
        {"type": "AskBlock", "view": 0, "subsets": [[0] * 65], "tables": [1.0]},
        {"type": "AskBlock", "view": 0, "subsets": [[-3]], "tables": [1.0]},
        {"type": "Dismiss", "blocks": -1},
        {"type": "Answer", "view": 0, "cells": [0], "extra": 1},
    ):
        with pytest.raises(DecodeError, match="from party 7"):
            codec.decode(enc(bad), sender=7)


# ---------------------------------------------------------------------- the client refuses
def _ask(cfg: RRBAConfig, **change: object) -> AskBlock:
    view = cfg.cover.views[0]
    cells = [int(np.prod([cfg.sizes[a] for a in s])) for s in view]
    fields: dict[str, object] = dict(
        run=cfg.run, step=1, view=0, subsets=[list(s) for s in view],
        tables=[x for c in cells for x in [1.0 / c] * c],
    )  # fmt: skip
    fields.update(change)
    return AskBlock(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"step": 2}, "AskBlock for block 2, but this client is in block 1"),
        ({"view": 9}, "view 9 is not one of the cover's 5 views"),
        ({"subsets": [[0, 2]]}, "are not subsets of view 0"),
        ({"tables": [0.1] * 9}, "9 table cells for subsets with 10"),
        ({"tables": [0.3] * 10}, "the table of subset (1, 4) sums to 1.2, not 1"),
        ({"tables": [1.0, 0.0, 0.0, 0.0] + [1 / 6] * 6}, "below the public floor 0.001"),
    ],
)
def test_a_client_refuses_a_bad_ask_naming_the_aggregator(change, message) -> None:  # type: ignore[no-untyped-def]
    sub = small_data(10, seed=1)
    cfg = config_for(sub, 10, 0.5, t_floor=0.001)
    client = rrba_roles(cfg, sub.codes, SEED, parties=[1])[1]
    assert client.receive(COORDINATOR, _ask(cfg, **change)) == []
    assert client.state is ClientState.ABORTED
    assert message in str(client.error) and client.error.culprits == (COORDINATOR,)


def test_a_client_answers_only_the_aggregator() -> None:
    sub = small_data(10, seed=1)
    cfg = config_for(sub, 10, 0.5)
    client = rrba_roles(cfg, sub.codes, SEED, parties=[1])[1]
    with pytest.raises(PeerError, match="AskBlock from party 3, not the aggregator"):
        client.receive(3, _ask(cfg))
    with pytest.raises(PeerError, match="Dismiss from party 2, not the aggregator"):
        client.receive(2, Dismiss(run=cfg.run, blocks=1))
    assert client.state is ClientState.WAITING
    (ans,) = client.receive(COORDINATOR, _ask(cfg))
    assert isinstance(ans.msg, Answer) and ans.msg.cells.shape == (2,)
    # view 0 = pairs (1, 4) and (2, 3): 4 and 6 uniform cells, p = 1/2: ln(1 + c) each, composed
    assert client.result.epsilon == pytest.approx(np.log(5) + np.log(7))


# ---------------------------------------------------------------------- tables and parameters
def test_the_state_diagrams() -> None:
    # the block loop, explicit: open a block (or end), collect, close at all in / deadline, again
    sub = small_data(60)
    plain = RRBAAggregator(config_for(sub, 30, 0.5), np.random.default_rng(0))
    secure = RRBAAggregator(config_for(sub, 30, 0.5, secure_tally=True), np.random.default_rng(0))
    assert state_diagram(plain) == state_diagram(RRBAAggregator) == [
        ("BETWEEN_BLOCKS", "all in", "COLLECTING"),
        ("BETWEEN_BLOCKS", "all in", "DONE"),
        ("COLLECTING", "Answer", "COLLECTING"),
        ("COLLECTING", "all in", "BETWEEN_BLOCKS"),
        ("COLLECTING", "deadline", "BETWEEN_BLOCKS"),
    ]
    assert state_diagram(secure) == [
        ("BETWEEN_BLOCKS", "all in", "TALLYING"),
        ("BETWEEN_BLOCKS", "all in", "DONE"),
        ("TALLYING", "sub-protocol message", "TALLYING"),
        ("TALLYING", "deadline", "TALLYING"),
        ("TALLYING", "all in", "BETWEEN_BLOCKS"),
    ]
    assert not any(e == "Answer" for _, e, _ in state_diagram(secure))  # no plain answers under a secure tally
    for agg, open_state in ((plain, AggState.COLLECTING), (secure, AggState.TALLYING)):
        assert agg.state is AggState.BETWEEN_BLOCKS
        agg.start()  # block 1 opens
        assert agg.state is open_state
    cl = {(s, e) for s, e, _ in state_diagram(RRBAClient)}
    assert cl == {("WAITING", "AskBlock"), ("WAITING", "Dismiss"), ("TALLYING", "sub-protocol message"),
                  ("TALLYING", "deadline"), ("TALLYING", "all in")}  # fmt: skip
    assert ("WAITING", "AskBlock", "DONE") in state_diagram(RRBAClient)  # a plain tally's answer


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"n_clients": 41, "block": 10, "secure_tally": True}, "block 5 would hold 1 client"),
        ({"sum_options": {"max_dropout": 0.2}}, "max_dropout only apply with secure_tally"),
        ({"estimator": "eq4"}, "estimator must be one of ('pooled', 'paper')"),
        ({"block": 0}, "block (clients per block) must be an int >= 1, got 0"),
        ({"run": ""}, "run must be a non-empty string"),
    ],
)
def test_bad_parameters_are_named(kw, message) -> None:  # type: ignore[no-untyped-def]
    base = dict(sizes=(2, 3, 2), n_clients=40, block=10, p=0.5)
    base.update(kw)
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RRBAConfig(**base)  # type: ignore[arg-type]
