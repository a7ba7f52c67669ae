"""One simulation sharded over worker processes: the same results, transcript and costs as one.

Every comparison is against :class:`~parties.runner.MemoryRunner` (every party
in this process, virtual time) on the same plan and seed; each also checks
that the comparison can fail (another seed gives other links).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, DropPlan, ProtocolAbort, ProtocolSpec, Role, Send, UsageError
from mpc_rr.core._runs import RoleOutcome, RolePlan, SpecPlan
from mpc_rr.core._stats_table import StatsTable
from mpc_rr.pipeline import _signing as signing
from mpc_rr.secure_sum.plainsum import expected_total, make_role
from mpc_rr.workflows import run_secure_sum
from parties.runner import MemoryRunner
from parties.shards import ShardedRunner, split_parties
from transports.tap import Tap

PLAINSUM = ProtocolSpec("plainsum", make_role)


def test_split_parties_is_contiguous_and_balanced() -> None:
    assert split_parties(range(10), 3) == [(0, 1, 2, 3), (4, 5, 6), (7, 8, 9)]
    assert split_parties([1, 2], 5) == [(1,), (2,)]


@pytest.mark.parametrize(
    ("workers", "method"), [(1, "fork"), (3, "fork"), (3, "spawn"), (3, "forkserver")]
)
def test_plainsum_same_links_results_and_costs(
    per_link_events, same_costs, workers: int, method: str
) -> None:
    plan = SpecPlan(PLAINSUM, 11, 7, {"cells": 4, "run": "t"})
    one = MemoryRunner(transcript=True)(plan)
    tap = Tap()
    many = ShardedRunner(workers=workers, transcript=True, tap=tap, start_method=method)(plan)
    assert one.ok and many.ok, many.errors
    assert many.links() == one.links() and len(one.links()) == 20
    assert per_link_events(many) == per_link_events(one)
    want = expected_total(10, 7, 4)
    assert all(np.array_equal(r.total, want) for r in many.results().values())
    same_costs(one, many)
    assert many.costs.extra["workers"] == workers and sum(many.costs.extra["shard_parties"]) == 11
    assert tap.links() == one.links() and tap.observer.startswith("memory network")
    assert isinstance(many.roles[0], RoleOutcome) and many.roles[0].name == "PlainSumHub 0"
    other = MemoryRunner(transcript=True)(SpecPlan(PLAINSUM, 11, 8, {"cells": 4, "run": "t"}))
    assert other.links() != many.links()  # the comparison can fail


# spawned workers: the start is test_plainsum_same_links_results_and_costs[3-spawn]'s, the
# spill files [fork]'s; the two together are -m slow
@pytest.mark.parametrize("method", ["fork", pytest.param("spawn", marks=pytest.mark.slow)])
def test_frames_through_spill_files_give_the_same_run(
    per_link_events, same_costs, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every frame crossing as a spill file (threshold 1 byte): same links, results, costs;
    the spill folder is gone afterwards."""
    import parties.shards as shards

    made: list[str] = []
    real = shards.spill_dir

    def spy() -> str:
        made.append(real())
        return made[-1]

    monkeypatch.setattr(shards, "SPILL_BYTES", 1)
    monkeypatch.setattr(shards, "spill_dir", spy)
    plan = SpecPlan(PLAINSUM, 11, 7, {"cells": 4, "run": "t"})
    one = MemoryRunner(transcript=True)(plan)
    many = ShardedRunner(workers=3, transcript=True, start_method=method)(plan)
    assert many.ok and many.links() == one.links() and len(one.links()) == 20
    assert per_link_events(many) == per_link_events(one)
    same_costs(one, many)
    assert many.costs.extra["cross_shard_messages"] > 0
    assert len(made) == 1 and not os.path.exists(made[0])


def test_workers_come_from_the_fork_server_when_another_thread_runs() -> None:
    """Forking beside another thread (the command line's heartbeat, Ray) could inherit a held
    lock; such a process starts its workers from the fork server instead."""
    import threading

    from parties.shards import start_method

    # (an earlier test of this worker may have left a thread behind: then it is the server already)
    assert start_method() == ("fork" if threading.active_count() == 1 else "forkserver")
    stop = threading.Event()
    beat = threading.Thread(target=stop.wait)
    beat.start()
    try:
        assert start_method() == "forkserver"
    finally:
        stop.set()
        beat.join()


def test_a_spill_folder_that_cannot_be_written_falls_back_to_the_pipes(
    same_costs, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A full or missing spill folder (e.g. Docker's 64 MB /dev/shm) must not end the run:
    the frames then go through the pipes."""
    import parties.shards as shards

    monkeypatch.setattr(shards, "SPILL_BYTES", 1)
    monkeypatch.setattr(shards, "spill_dir", lambda: str(tmp_path / "missing" / "frames"))
    plan = SpecPlan(PLAINSUM, 11, 7, {"cells": 4, "run": "t"})
    one = MemoryRunner(transcript=True)(plan)
    many = ShardedRunner(workers=3, transcript=True, start_method="fork")(plan)
    assert many.ok and many.links() == one.links()
    same_costs(one, many)


def test_bounded_inbound_buffers_give_the_same_run() -> None:
    """buffer=1: every delivery beyond one waits for the party to read (back-pressure)."""
    plan = SpecPlan(PLAINSUM, 9, 3, {"cells": 2, "run": "t"})
    one = MemoryRunner(transcript=True)(plan)
    many = ShardedRunner(workers=2, transcript=True, buffer=1)(plan)
    assert many.ok and many.links() == one.links()
    with pytest.raises(UsageError, match="buffer must be >= 1 or None"):
        ShardedRunner(workers=2, buffer=0)(plan)


def test_secagg_seeded_same_transcript_and_sum_across_shards(same_costs) -> None:
    rng = np.random.default_rng(3)
    x = np.zeros((36, 9), np.uint8)
    x[np.arange(36), rng.integers(0, 9, 36)] = 1
    kw = {"seed": 5, "deterministic": True, "max_dropout": 0.2}
    one = run_secure_sum("secagg", x, runner=MemoryRunner(transcript=True), **kw)
    many = run_secure_sum("secagg", x, runner=ShardedRunner(workers=3, transcript=True), **kw)
    assert one.exact and many.exact and many.survivors == 36
    assert np.array_equal(many.total, x.sum(axis=0))
    assert many.run is not None and one.run is not None
    assert many.run.links() == one.run.links()
    same_costs(one.run, many.run)
    assert many.costs.extra["cross_shard_messages"] > 0
    again = run_secure_sum(
        "secagg", x, runner=MemoryRunner(transcript=True), seed=6, deterministic=True
    )
    assert again.run is not None and again.run.links() != many.run.links()


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "tasks"])
def test_secagg_dropouts_within_the_bound_across_shards_keep_virtual_time(
    per_link_events, same_costs, direct: bool
) -> None:
    """Parties on different shards crash at different steps; deadlines fire at the same
    virtual times as in one process, and the sum over the survivors is exact (with the
    roles called directly and with one task per party)."""
    rng = np.random.default_rng(4)
    x = np.zeros((40, 6), np.uint8)
    x[np.arange(40), rng.integers(0, 6, 40)] = 1
    victims = {3: "shares", 22: "masked", 39: "unmask"}  # shards [0..13], [14..27], [28..40]
    kw = {"seed": 2, "deterministic": True, "max_dropout": 0.25, "victims": victims}
    one = run_secure_sum("secagg", x, runner=MemoryRunner(transcript=True, step_timeout=30.0), **kw)
    many = run_secure_sum(
        "secagg", x,
        runner=ShardedRunner(workers=3, transcript=True, step_timeout=30.0, direct=direct), **kw,
    )  # fmt: skip
    assert one.exact and many.exact, many.aborted
    assert many.dropped == (3, 22, 39) and many.inputs_in_sum == one.inputs_in_sum == 38
    assert one.run is not None and many.run is not None
    assert per_link_events(many.run) == per_link_events(one.run)
    assert max(e.time for e in many.run.transcript or []) >= 30.0  # deadlines really fired
    same_costs(one.run, many.run)
    assert many.costs.extra["clock_jumps"] >= 2 and many.costs.extra["direct"] is direct


@pytest.mark.parametrize("dependence", ["rr", "secure-sum"])
def test_pipeline_same_transcript_and_estimates_across_shards(
    same_costs, adult_plan, dependence: str
) -> None:
    plan = adult_plan(40, dependence)
    one = MemoryRunner(transcript=True)(plan)
    many = ShardedRunner(workers=2, transcript=True)(plan)
    assert one.ok and many.ok, many.errors
    assert many.links() == one.links()
    a, b = one.roles[COORDINATOR].result, many.roles[COORDINATOR].result
    assert a.clustering.clusters == b.clustering.clusters
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x.distribution, y.distribution)
    np.testing.assert_array_equal(a.randomized, b.randomized)
    assert many.results()[7] == one.results()[7]  # a data party's outcome
    same_costs(one, many)


def test_plan_subsets_build_the_same_roles_as_the_whole_plan(adult_plan) -> None:
    plan = adult_plan(30, "rr")
    whole = MemoryRunner(transcript=True)(plan)
    assert set(plan.subset([0, 5, 9]).build()) == {0, 5, 9}
    assert plan.subset([4]).signing_key is None and plan.subset([0]).signing_key is not None
    from mpc_rr.pipeline import pipeline_roles

    key = signing.new_signing_key(bytes(range(32)))
    ref = MemoryRunner(transcript=True)(pipeline_roles(plan.config, plan.records, 3, key))
    assert ref.links() == whole.links()
    with pytest.raises(UsageError, match="not in the plan"):
        plan.subset([31])


class _Silent(Role):
    """Waits for a message nobody sends (no deadline entry, patience 1)."""

    import enum as _enum

    class S(_enum.Enum):
        WAIT = "waiting"
        DONE = "done"
        ABORTED = "aborted"

    message_types = make_role(0, 2, 0, {"cells": 1}).message_types

    def __init__(self, pid: int) -> None:
        super().__init__(pid, self.S.WAIT)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return {1 - self.party_id}


class _BuggyPlan(RolePlan):
    """Party 1's role raises a bug when the run starts (a worker must report it)."""

    def __init__(self, ids: tuple[int, ...] = (0, 1), *, silent: bool = False) -> None:
        self.ids, self.silent = ids, silent

    @property
    def parties(self) -> tuple[int, ...]:
        return self.ids

    def subset(self, ids):  # type: ignore[no-untyped-def]
        return _BuggyPlan(self._check_subset(ids), silent=self.silent)

    def build(self, progress=None):  # type: ignore[no-untyped-def]
        if self.silent:
            return {i: _Silent(i) for i in self.ids}
        return {i: (_Bug(i) if i == 1 else _Silent(i)) for i in self.ids}


class _Bug(_Silent):
    def start(self) -> list[Send]:
        raise ZeroDivisionError("a bug in a role")


def test_stuck_run_names_whom_each_party_waits_for() -> None:
    res = ShardedRunner(workers=2, step_timeout=None)(_BuggyPlan(silent=True))
    assert not res.ok
    assert isinstance(res.errors[0], ProtocolAbort)
    assert "no party can make progress" in str(res.errors[0]) and res.errors[0].culprits == (1,)


def test_a_bug_in_a_worker_is_raised_with_its_traceback() -> None:
    with pytest.raises(RuntimeError, match=r"(?s)shard worker 1 failed.*ZeroDivisionError: a bug"):
        ShardedRunner(workers=2)(_BuggyPlan())


def test_usage_errors_name_the_rule() -> None:
    roles = {i: make_role(i, 3, 0, {"cells": 1}) for i in range(3)}
    with pytest.raises(UsageError, match="pass a RolePlan"):
        ShardedRunner(workers=2)(roles)
    with pytest.raises(UsageError, match="workers must be an integer >= 1"):
        ShardedRunner(workers=0)
    with pytest.raises(UsageError, match=r"link models .* need every party in one process"):
        ShardedRunner(workers=2, link=object())
    with pytest.raises(UsageError, match="ray_address only applies"):
        ShardedRunner(ray_address="auto")
    plan = DropPlan(SpecPlan(PLAINSUM, 3, 0, {"cells": 1}), {})
    with pytest.raises(UsageError, match="cannot be sent to a worker"):
        plan.inner.params["x"] = lambda: 0  # type: ignore[attr-defined]
        ShardedRunner(workers=2)(plan)


def test_direct_and_task_engines_agree(same_costs) -> None:
    """Roles called directly and one task per party: the same links, costs and dropped
    payloads as one process; a bounded buffer needs the tasks."""
    plan = SpecPlan(PLAINSUM, 9, 3, {"cells": 2, "run": "t"})
    runs = [ShardedRunner(workers=2, transcript=True, direct=d)(plan) for d in (True, False)]
    one = MemoryRunner(transcript=True)(plan)
    for many in runs:
        assert many.ok and many.links() == one.links()
        same_costs(one, many)
        # the costs come back as columns (no PartyStats per party), with every round label
        assert isinstance(many.costs.parties, StatsTable)
        for pid, s in one.costs.parties.items():
            t = many.costs.parties[pid]
            assert (t.role, t.rounds_sent, t.rounds_received) == (s.role, s.rounds_sent, s.rounds_received)
    assert runs[0].costs.extra["messages_undelivered"] == runs[1].costs.extra["messages_undelivered"]
    with pytest.raises(UsageError, match="bounded inbound buffers need one task per party"):
        ShardedRunner(workers=2, buffer=1, direct=True)


class _BadRecordPlan(RolePlan):
    """The pipeline's plan with party ``victim`` sending a record whose codes are out of range."""

    def __init__(self, inner: RolePlan, victim: int) -> None:
        self.inner, self.victim, self.progress = inner, victim, inner.progress

    @property
    def parties(self) -> tuple[int, ...]:
        return self.inner.parties

    def subset(self, ids) -> _BadRecordPlan:  # type: ignore[no-untyped-def]
        return _BadRecordPlan(self.inner.subset(ids), self.victim)

    def coordinator_part(self, ids):  # type: ignore[no-untyped-def]
        return self.inner.coordinator_part(ids)

    def build(self, progress=None) -> dict[int, Role]:  # type: ignore[no-untyped-def]
        from mpc_rr.core import WireArray
        from mpc_rr.pipeline import RandomizedRecord

        roles = self.inner.build(progress)
        if self.victim in roles:
            role = roles[self.victim]
            start = role.start

            def bad_start() -> list[Send]:
                (s,) = start()
                codes = WireArray.from_numpy(np.full(len(s.msg.codes.data), 250, np.uint8))
                return [Send(s.dst, RandomizedRecord(run=s.msg.run, codes=codes))]

            role.start = bad_start  # type: ignore[method-assign]
        return roles


@pytest.mark.parametrize("split", [True, False], ids=["split", "unsplit"])
def test_pipeline_coordinator_split_keeps_dropouts_refusals_and_costs(
    per_link_events, same_costs, adult_plan, split: bool
) -> None:
    """Each shard doing party 0's per-party work (the default) or party 0 doing all of it: a
    party silent in each phase, one sending codes out of range (refused, naming it), on
    different shards; the same links at the same virtual times, costs, refusals and results
    as one process."""
    from mpc_rr.pipeline import RandomizedRecord, Release

    plan = _BadRecordPlan(DropPlan(adult_plan(45, "rr"), {4: RandomizedRecord, 33: Release}), 20)
    one = MemoryRunner(transcript=True, step_timeout=30.0)(plan)
    many = ShardedRunner(workers=3, transcript=True, step_timeout=30.0, split=split)(plan)
    assert many.costs.extra["split"] is split
    a, b = one.roles[COORDINATOR].result, many.roles[COORDINATOR].result
    assert 4 not in a.parties_dependence and 20 not in a.parties_dependence
    assert 33 not in a.parties_release and len(a.parties_release) == 42
    assert a.clustering.clusters == b.clustering.clusters
    assert (a.parties_dependence, a.parties_release) == (b.parties_dependence, b.parties_release)
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x.distribution, y.distribution)
    assert a.adjustment is not None and b.adjustment is not None
    np.testing.assert_array_equal(a.adjustment.weights, b.adjustment.weights)
    assert per_link_events(many) == per_link_events(one)
    assert max(e.time for e in many.transcript or []) >= 30.0  # the deadlines really fired
    same_costs(one, many)
    (err,) = many.costs.parties[COORDINATOR].peer_errors
    assert err.peer == 20 and "RandomizedRecord from party 20: code outside" in str(err)
    assert [e.peer for e in one.costs.parties[COORDINATOR].peer_errors] == [20]


def test_pipeline_split_without_rows_keeps_the_estimates(adult_plan) -> None:
    """``keep_rows=False`` across shards: no party's row reaches the result, the same estimates."""
    plan = adult_plan(40, "rr")
    full = ShardedRunner(workers=2)(plan)
    plan.keep_rows = False
    lean = ShardedRunner(workers=2)(plan)
    a, b = full.roles[COORDINATOR].result, lean.roles[COORDINATOR].result
    assert b.randomized is None and a.randomized is not None and b.patterns is not None
    assert a.clustering.clusters == b.clustering.clusters
    for x, y in zip(a.estimates, b.estimates, strict=True):
        np.testing.assert_array_equal(x.distribution, y.distribution)
    np.testing.assert_array_equal(a.patterns.counts, b.patterns.counts)
