"""The role interface (one table-driven dispatch), the protocol registry, the synchronous
harness, and what the dispatch costs per message."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from mpc_rr.core import (
    COORDINATOR,
    Codec,
    HarnessRunner,
    PeerError,
    Role,
    UsageError,
    WireArray,
    get_protocol,
    run_roles,
    state_diagram,
)
from mpc_rr.secure_sum.plainsum import (
    PlainSumClient,
    PlainSumHub,
    PlainTotal,
    PlainValue,
    make_role,
)
from mpc_rr.secure_sum.plainsum._roles import ClientState, HubState, client_input


def make(n: int, cells: int, seed: int, **hub: object) -> tuple[dict[int, Role], np.ndarray]:
    xs = [client_input(i, seed, cells) for i in range(1, n + 1)]
    roles: dict[int, Role] = {i: PlainSumClient(i, xs[i - 1]) for i in range(1, n + 1)}
    roles[COORDINATOR] = PlainSumHub(n, cells, **hub)  # type: ignore[arg-type]
    return roles, np.sum(xs, axis=0)


@pytest.mark.parametrize("shuffle", [False, True])
def test_sum_through_hub_any_order(shuffle: bool) -> None:
    roles, expected = make(7, 5, seed=3)
    res = run_roles(roles, rng=np.random.default_rng(1), shuffle=shuffle)
    for r in res.results().values():
        np.testing.assert_array_equal(r.total, expected)
    assert res.costs.messages == 14
    assert res.costs.rounds == 1 and res.ok


def test_the_table_is_the_state_diagram_and_roles_end_in_done() -> None:
    assert state_diagram(PlainSumHub) == [
        ("COLLECTING", "PlainValue", "COLLECTING"),
        ("COLLECTING", "all in", "DONE"),
        ("COLLECTING", "deadline", "DONE"),
    ]
    roles, _ = make(2, 1, seed=0)
    assert roles[COORDINATOR].state is HubState.COLLECTING
    run_roles(roles)
    assert roles[COORDINATOR].state is HubState.DONE and roles[1].state is ClientState.DONE


def test_a_message_outside_the_table_names_type_sender_and_state() -> None:
    roles, _ = make(2, 3, seed=1)
    hub = roles[COORDINATOR]
    stray = PlainTotal(total=WireArray.from_numpy(np.zeros(3, np.int64)))
    with pytest.raises(PeerError, match=r"cannot handle PlainTotal from party 2 in state COLLECTING"):
        hub.receive(2, stray)
    wrong_run = PlainValue(x=WireArray.from_numpy(np.zeros(3, np.int64)), run="other")
    with pytest.raises(PeerError, match=r"labelled run 'other', this run is ''"):
        hub.receive(1, wrong_run)
    assert hub.state is HubState.COLLECTING  # nothing changed


def test_duplicates_are_reported_not_double_counted() -> None:
    roles, expected = make(5, 3, seed=4)
    res = run_roles(roles, rng=np.random.default_rng(2), duplicate=1.0)
    np.testing.assert_array_equal(roles[COORDINATOR].result.total, expected)
    errs = [e for s in res.costs.parties.values() for e in s.peer_errors]
    assert errs and all(isinstance(e, PeerError) for e in errs)


def test_drop_leads_to_a_deadline_naming_the_silent_party() -> None:
    roles, _ = make(4, 2, seed=5)
    res = run_roles(roles, drop=lambda s, d, m: s == 3)
    err = res.roles[COORDINATOR].error
    assert err is not None and err.culprits == (3,)
    with pytest.raises(Exception, match=r"timed out waiting for parties \[3\]"):
        _ = res.roles[COORDINATOR].result
    # the clients then wait with their patience and give up naming the hub
    assert all(res.errors[i].culprits == (COORDINATOR,) for i in (1, 2, 4))


def test_deadline_transition_proceeds_without_the_silent_party() -> None:
    roles, expected = make(4, 2, seed=6, proceed_on_timeout=True)
    res = run_roles(roles, drop=lambda s, d, m: s == 2)
    hub = res.roles[COORDINATOR]
    assert hub.dropped == (2,)
    x2 = client_input(2, 6, 2)
    np.testing.assert_array_equal(hub.result.total, expected - x2)


def test_randomized_delivery_needs_a_seeded_rng() -> None:
    with pytest.raises(UsageError, match="needs a seeded rng"):
        HarnessRunner(shuffle=True)
    with pytest.raises(UsageError, match="drop must be a probability"):
        HarnessRunner(drop=2.0, rng=np.random.default_rng(0))


def test_transcript_records_every_message_as_encoded() -> None:
    roles, _ = make(3, 2, seed=7)
    res = run_roles(roles, transcript=True)
    t = res.transcript
    assert t is not None and len(t) == 6
    codec = Codec([PlainValue, PlainTotal])
    for e in t:
        msg = codec.decode(e.data)
        assert e.size == len(e.data) and (e.run, e.step) == (msg.run, msg.step)
    assert res.costs.bytes == t.total_bytes


def test_registry_builds_roles_and_names_unknown_protocols() -> None:
    spec = get_protocol("plainsum")
    role = spec.make_role(3, 5, 9, {"cells": 2})
    np.testing.assert_array_equal(role.x, client_input(3, 9, 2))
    assert spec.result_to_json(np.arange(2)) == [0, 1]
    with pytest.raises(ValueError, match=r"unknown protocol 'nope'; known: .*plainsum"):
        get_protocol("nope")


# -- the dispatch tests ``waiting_for()`` after every message: roles keep it as state, so a
# collecting step costs O(1) per message (a role rebuilding an n-set per call made the Adult
# pipeline O(n^2): 359 s of protocol for 32,561 parties)
def _hub_seconds_per_message(n: int, repeats: int = 3) -> float:
    """The best of ``repeats`` collections of ``n`` messages, each by a fresh hub (the clients'
    messages are built once: building the roles, not collecting, was most of this test's time)."""
    sends = [(i, make_role(i, n + 1, 1, {"cells": 1}).start()[0].msg) for i in range(1, n + 1)]
    best = math.inf
    for _ in range(repeats):
        hub = make_role(COORDINATOR, n + 1, 1, {"cells": 1})
        t0 = time.perf_counter()
        for i, msg in sends:
            hub.receive(i, msg)
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def test_collecting_cost_per_message_does_not_grow_with_n() -> None:
    small = _hub_seconds_per_message(1_000)
    large = _hub_seconds_per_message(16_000)
    assert large < 4 * small, (small, large)  # O(n) per message would make this ~16x


def test_waiting_for_is_the_roles_own_state_not_a_copy() -> None:
    roles = {i: make_role(i, 4, 1, {"cells": 1}) for i in range(4)}
    hub = roles[COORDINATOR]
    assert hub.waiting_for() is hub.waiting_for()
    res = run_roles(roles)
    assert res.ok and not hub.waiting_for()
    np.testing.assert_array_equal(hub.result.total, sum(roles[i].x for i in (1, 2, 3)))


def test_receive_prechecked_holds_only_during_the_dispatch_and_reaches_a_sub_protocol() -> None:
    import enum
    from collections.abc import Set as AbstractSet

    from mpc_rr.core import Send, Transition, table
    from mpc_rr.core._compose import SubProtocolHost, sub_protocol_steps

    seen: list[bool] = []

    class InnerState(enum.Enum):
        WAIT = 1
        DONE = 2
        ABORTED = 3

    class Inner(Role):
        TRANSITIONS = table({(InnerState.WAIT, PlainValue): Transition("_on", InnerState.WAIT, also=(InnerState.DONE,))})
        message_types = (PlainValue,)

        def __init__(self) -> None:
            super().__init__(0, InnerState.WAIT)

        def start(self) -> list[Send]:
            return []

        def waiting_for(self) -> frozenset[int]:
            return frozenset({1})  # never all in: the host keeps forwarding

        def _on(self, src: int, msg: PlainValue) -> list[Send]:
            seen.append(self.prechecked)
            return []

    class HostState(enum.Enum):
        RUN = 1
        DONE = 2
        ABORTED = 3

    class Host(SubProtocolHost):
        TRANSITIONS = table(sub_protocol_steps(HostState.RUN, "_end", HostState.DONE))

        def __init__(self) -> None:
            super().__init__(0, HostState.RUN)
            self.attach_sub(Inner())

        def start(self) -> list[Send]:
            return []

        def waiting_for(self) -> AbstractSet[int]:
            return self.sub_waiting()

        def _end(self) -> list[Send]:
            return []

    host = Host()
    msg = PlainValue(x=WireArray.from_numpy(np.zeros(3, np.int64)))
    host.receive_prechecked(1, msg)
    host.receive(1, msg)
    assert seen == [True, False] and not host.prechecked and not host.sub.role.prechecked
