"""The role interface (one table-driven dispatch) and the synchronous harness."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import (
    COORDINATOR,
    Codec,
    DecodeError,
    HarnessRunner,
    PeerError,
    Role,
    UsageError,
    WireArray,
    run_roles,
    state_diagram,
)
from mpc_rr.secure_sum.plainsum import (
    ClientState,
    HubState,
    PlainSumClient,
    PlainSumHub,
    PlainTotal,
    PlainValue,
    client_input,
    make_role,
)


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


def test_codec_rejects_trailing_bytes_and_unknown_tags() -> None:
    codec = Codec([PlainValue])
    good = codec.encode(PlainValue(x=WireArray.from_numpy(np.arange(3))))
    with pytest.raises(DecodeError, match="party 9"):
        codec.decode(good + b"\x00", sender=9)
    total = Codec([PlainTotal]).encode(PlainTotal(total=WireArray.from_numpy(np.arange(2))))
    with pytest.raises(DecodeError, match="PlainTotal"):
        codec.decode(total, 1)
    with pytest.raises(DecodeError, match="max_frame"):
        Codec([PlainValue], max_frame=8).decode(good, sender=2)


def test_codec_bounds_the_run_label() -> None:
    codec = Codec([PlainValue])
    big = PlainValue(x=WireArray.from_numpy(np.arange(1)), run="r" * 300)
    with pytest.raises(DecodeError, match="Expected `str` of length <= 256"):
        codec.decode(codec._encoder.encode(big), sender=4)


def test_wire_array_validates_shape_and_length() -> None:
    w = WireArray.from_numpy(np.arange(6, dtype=np.uint16).reshape(2, 3))
    assert w.to_numpy(dtype=np.uint16, shape=(2, 3)).sum() == 15
    with pytest.raises(DecodeError, match=r"expected \(3, 2\)"):
        w.to_numpy(shape=(3, 2), sender=4)
    bad = WireArray(dtype="<u2", shape=(4,), data=b"\x00" * 6)
    with pytest.raises(DecodeError, match="do not match"):
        bad.to_numpy()
    with pytest.raises(UsageError, match="not allowed"):
        WireArray.from_numpy(np.array(["a"]))


def test_hostile_shape_whose_element_count_overflows_is_a_decode_error() -> None:
    """Finding A: (2^32, 2^32) with no data overflowed numpy's product to 0 (a ValueError)."""
    w = WireArray(dtype="<u4", shape=(2**32, 2**32), data=b"")
    with pytest.raises(DecodeError, match=r"from party 7: 0 bytes do not match"):
        w.to_numpy(sender=7)
    with pytest.raises(DecodeError, match="not a valid array shape"):
        WireArray(dtype="|u1", shape=(1,) * 9, data=b"\x00").to_numpy(sender=7)


@pytest.mark.parametrize("cells", [-1, 0, 2.5, True, "3"])
def test_plainsum_refuses_a_bad_vector_length(cells: object) -> None:
    with pytest.raises(UsageError, match=r"plainsum: params\['cells'\] must be an int >= 1"):
        make_role(1, 3, 0, {"cells": cells})
