"""SecAgg+ roles against hostile inputs: whatever arrays an authenticated peer sends, a role
answers with a PeerError naming it (or ignores it), excludes it where the protocol allows, and
keeps serving the others."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpc_rr.core import COORDINATOR, PeerError, Send, WireArray, run_roles
from mpc_rr.secure_sum import SeededEntropy, secagg
from mpc_rr.secure_sum._identity import signed_payload
from mpc_rr.secure_sum._public_randomness import commitment, commitments_digest
from mpc_rr.secure_sum.secagg import AdvertiseKeys, EncryptedShares, MaskedInput, UnmaskShares
from mpc_rr.secure_sum.secagg._messages import bitmap

HUGE = WireArray(dtype="<u4", shape=(2**32, 2**32), data=b"")


def test_an_overflowing_shape_is_a_peer_error_naming_the_sender_and_the_sum_completes(
    hostile_shares, hostile_run_roles
) -> None:
    pub, x, roles = hostile_run_roles()
    roles[3] = hostile_shares(3, pub.config, pub.graph, x[2], entropy=SeededEntropy(0).spawn(3))
    res = run_roles(roles)
    errs = [e for e in res.peer_errors() if e.peer == 3]
    assert errs and "from party 3" in str(errs[0]) and "excluded as a dropout" in str(errs[0])
    server = roles[COORDINATOR]
    assert server.culprits == [3] and 3 not in server.result.included
    included = np.asarray(server.result.included) - 1
    np.testing.assert_array_equal(server.result.total, x[included].sum(axis=0))


_DTYPES = st.sampled_from(["|u1", "<u2", "<u4", "<i8", "<f8", "|b1", ">u4", "<U4", "O"])
_SHAPES = st.lists(
    st.one_of(st.integers(0, 40), st.just(2**32), st.just(2**62), st.integers(-3, -1)),
    max_size=10,
).map(tuple)
_ARRAYS = st.builds(WireArray, dtype=_DTYPES, shape=_SHAPES, data=st.binary(max_size=200))


def _server_at(step: str, hostile_run_roles):
    """A server that got valid messages from everyone for every step before ``step``."""
    _pub, _x, roles = hostile_run_roles(n=6, seed=4)
    server = roles.pop(COORDINATOR)
    inbox: list[tuple[int, object]] = []
    for pid, r in roles.items():
        inbox += [(pid, s.msg) for s in r.start()]
    order = ["keys", "draw", "shares", "masked", "unmask"]
    for _ in range(order.index(step)):
        replies: list[Send] = []
        for pid, msg in inbox:
            replies += server.receive(pid, msg)  # type: ignore[arg-type]
        inbox = [(s.dst, m) for s in replies for m in [s.msg]]
        nxt = []
        for pid, msg in inbox:
            nxt += [(pid, s.msg) for s in roles[pid].receive(COORDINATOR, msg)]  # type: ignore[arg-type]
        inbox = nxt
    return server


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(step=st.sampled_from(["keys", "draw", "shares", "masked", "unmask"]), a=_ARRAYS, b=_ARRAYS,
       raw=st.binary(max_size=40))  # fmt: skip
def test_fuzzed_fields_only_ever_raise_peer_errors(
    hostile_run_roles, step: str, a: WireArray, b: WireArray, raw: bytes
) -> None:
    server = _server_at(step, hostile_run_roles)
    msg = {
        "keys": AdvertiseKeys(run="hostile", step=0, c_pk=raw, s_pk=raw, b_commit=raw, draw_commit=raw),
        "draw": secagg.DrawReveal(run="hostile", step=0, reveal=raw, signature=raw),
        "shares": EncryptedShares(run="hostile", step=1, recipients=a, ciphertexts=b),
        "masked": MaskedInput(run="hostile", step=2, y=a),
        "unmask": UnmaskShares(run="hostile", step=3, b_owners=a, b_shares=b, s_owners=a, s_shares=b),
    }[step]
    try:
        server.receive(2, msg)
    except PeerError as exc:
        assert exc.peer == 2
    assert not server.done or server.error is None or 2 in server.error.culprits


@pytest.mark.parametrize("field", ["ids", "c_pks", "s_pks"])
def test_a_client_leaves_on_a_malformed_neighbor_keys_and_blames_the_aggregator(
    hostile_run_roles, field: str
) -> None:
    _pub, _x, roles = hostile_run_roles(n=4, seed=2)
    client = roles[1]
    client.start()
    client.receive(COORDINATOR, secagg.DrawCommitted(run="hostile", step=0, digest=bytes(32)))
    good = dict(ids=WireArray.from_numpy(np.array([2, 3, 4], "<u4")),
                c_pks=WireArray.from_numpy(np.zeros((3, 32), np.uint8)),
                s_pks=WireArray.from_numpy(np.zeros((3, 32), np.uint8)))  # fmt: skip
    good[field] = HUGE
    with pytest.raises(PeerError, match="bad NeighborKeys from the aggregator") as exc:
        client.receive(COORDINATOR, secagg.NeighborKeys(run="hostile", step=0, **good))
    assert exc.value.peer == COORDINATOR
    assert client.error is not None and client.error.culprits == (COORDINATOR,)


def test_low_order_public_keys_are_a_peer_error_not_a_crash(hostile_run_roles) -> None:
    _pub, _x, roles = hostile_run_roles(n=4, seed=3)
    client = roles[1]
    client.start()
    for v in (2, 3, 4):
        roles[v].start()
    # an honest draw: every party's reveal opens its commitment
    members = np.array([False, True, True, True, True])
    reveals = b"".join(roles[v]._r for v in (1, 2, 3, 4))
    commits = [commitment("secagg", "hostile", v, roles[v]._r) for v in (1, 2, 3, 4)]
    digest = commitments_digest("secagg", "hostile", members, b"".join(commits))
    client.receive(COORDINATOR, secagg.DrawCommitted(run="hostile", step=0, digest=digest))
    zeros = WireArray.from_numpy(np.zeros((3, 32), np.uint8))  # the all-zero X25519 point
    # the neighbours themselves sign the low-order keys (a relay could not: the signature binds them)
    z = bytes(32)
    sigs = [roles[v].identity.sign(signed_payload("secagg", "hostile", "keys", v, z, z, z, commits[v - 1]))
            for v in (2, 3, 4)]  # fmt: skip
    draw_sigs = [roles[v].identity.sign(signed_payload("secagg", "hostile", "draw", v, digest)) for v in (2, 3, 4)]
    msg = secagg.NeighborKeys(
        run="hostile", step=0, ids=WireArray.from_numpy(np.array([2, 3, 4], "<u4")), c_pks=zeros, s_pks=zeros,
        commits=zeros, signatures=sigs, contributors=bitmap(members), reveals=reveals,
        draw_commits=WireArray.from_numpy(np.frombuffer(b"".join(commits[1:]), np.uint8).reshape(3, 32)),
        draw_signatures=draw_sigs,
    )  # fmt: skip
    with pytest.raises(PeerError, match="invalid X25519 public key"):
        client.receive(COORDINATOR, msg)


@pytest.mark.parametrize(("n", "degree"), [(20, None), (100, None)])
def test_undecryptable_shares_name_their_sender_and_the_run_completes(n: int, degree) -> None:
    """Issue 21: one client's garbage shares used to make every neighbour abort blaming the
    aggregator, which then named the honest neighbours.  Now each neighbour complains with
    its evidence, the aggregator convicts the sender alone and sums the rest exactly."""
    from mpc_rr.adversary.active import CheatingClient
    from mpc_rr.secure_sum.secagg import secagg_public

    pub = secagg_public(n, 4, run=f"bad-{n}", degree=degree)
    x = np.random.default_rng(n).integers(0, 2, (n, 4))
    roles = secagg.secagg_roles(x, pub, entropy=lambda i: SeededEntropy(n, i))
    cfg, graph = pub.config, pub.graph
    roles[5] = CheatingClient(5, cfg, graph, x[4], strategy="bad-shares", entropy=SeededEntropy(n, 5))
    run_roles(roles)
    server = roles[COORDINATOR]
    assert server.culprits == [5] and 5 not in server.result.included
    assert len(server.result.included) == n - 1
    np.testing.assert_array_equal(server.result.total, np.delete(x, 4, axis=0).sum(axis=0))
    for i in range(1, n + 1):
        if i != 5:
            assert roles[i].error is None, roles[i].error
            assert roles[i].accused in ([], [5])
