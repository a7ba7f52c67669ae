"""SecAgg+'s share proofs on request: a share that does not open is attributed to its sender
or to the aggregator, though the common run sends no audit path at all."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, Codec, Send, WireArray, run_roles
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg import (
    SECAGG_MESSAGES,
    EncryptedShares,
    ForwardedShares,
    MaskedInput,
    SecAggConfig,
    SecAggPublic,
    ShareComplaint,
    ShareProofs,
    UnmaskShares,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._judge import share_proofs
from mpc_rr.secure_sum.secagg._messages import SHARE_ROW, share_batch, share_digest

N, CELLS = 10, 4
CODEC = Codec(SECAGG_MESSAGES)


def setup(seed: int = 3):
    cfg = SecAggConfig.create(N, CELLS, max_dropout=0.2, max_corrupt=0.0)
    rng = np.random.default_rng(seed)
    graph = Graph.random_regular(N, cfg.degree, rng)
    x = rng.integers(0, 2, size=(N, CELLS))
    return x, secagg_roles(x, SecAggPublic(cfg, graph), entropy=SeededEntropy(seed).spawn)


def rewrite(role, msg_type, change) -> None:
    """Pass every ``msg_type`` that ``role`` sends through ``change(dst, msg)``."""
    orig = role.receive

    def receive(src, msg):
        return [Send(s.dst, change(s.dst, s.msg)) if isinstance(s.msg, msg_type) else s for s in orig(src, msg)]

    role.receive = receive


def sent(res, msg_type, src=None) -> list[tuple[int, int]]:
    """The links ``(src, dst)`` that carried a ``msg_type``, once per message, sorted."""
    return sorted(
        (a, b)
        for (a, b), payloads in res.links().items()
        if src is None or a == src
        for data in payloads
        if isinstance(CODEC.decode(data, sender=a), msg_type)
    )


def forge_one_share_to(victim: int):
    def change(dst, msg: ForwardedShares):
        if dst != victim:
            return msg
        cts = msg.ciphertexts.to_numpy().copy()
        cts[0, 0] ^= 1
        return ForwardedShares(run=msg.run, step=msg.step, senders=msg.senders, ciphertexts=WireArray.from_numpy(cts))

    return change


def assert_left_naming_the_server_without_evidence(res, roles, x, victim: int) -> None:
    err = roles[victim].error
    assert err is not None and err.culprits == (COORDINATOR,)
    assert not sent(res, MaskedInput, src=victim)  # no masked input, so no complaint key revealed
    server = roles[COORDINATOR].result
    assert victim not in server.included
    np.testing.assert_array_equal(server.total, x[np.asarray(server.included) - 1].sum(axis=0))


def test_an_honest_run_sends_no_complaint_and_no_proof() -> None:
    _, roles = setup()
    res = run_roles(roles, transcript=True)
    assert roles[COORDINATOR].result.n_included == N
    assert not sent(res, ShareComplaint) and not sent(res, ShareProofs)
    assert len(sent(res, ForwardedShares)) == N


def test_a_share_forged_by_the_server_is_proved_forged_and_the_server_named() -> None:
    x, roles = setup()
    victim = 4
    rewrite(roles[COORDINATOR], ForwardedShares, forge_one_share_to(victim))
    res = run_roles(roles, transcript=True)
    # the victim asked, the server answered with the sender's true signature and batch, which
    # do not hold the forged ciphertext
    assert sent(res, ShareComplaint) == [(victim, COORDINATOR)]
    assert sent(res, ShareProofs) == [(COORDINATOR, victim)]
    assert "is not signed by it (altered by the relay)" in str(roles[victim].error)
    assert_left_naming_the_server_without_evidence(res, roles, x, victim)
    assert all(roles[u].error is None for u in range(1, N + 1) if u != victim)


def test_a_server_that_withholds_the_proofs_is_named_after_the_deadline() -> None:
    x, roles = setup()
    victim = 2
    rewrite(roles[COORDINATOR], ForwardedShares, forge_one_share_to(victim))
    res = run_roles(roles, transcript=True, drop=lambda src, dst, msg: isinstance(msg, ShareProofs))
    assert sent(res, ShareComplaint) == [(victim, COORDINATOR)]
    assert "timed out waiting for parties [0]" in str(roles[victim].error)
    assert_left_naming_the_server_without_evidence(res, roles, x, victim)


def _other_signature(dst, msg: ShareProofs) -> ShareProofs:
    return ShareProofs(run=msg.run, step=msg.step, senders=msg.senders, signatures=[bytes(64)], batches=msg.batches)


def _batch_matching_the_forgery(dst, msg: ShareProofs) -> ShareProofs:
    """The sender's batch with the victim's row made to match what it was forwarded."""
    rows = np.frombuffer(msg.batches[0], np.uint8).reshape(-1, SHARE_ROW).copy()
    mine = np.flatnonzero(rows[:, :4].copy().view("<u4").ravel() == dst)[0]
    rows[mine, 4] ^= 1
    return ShareProofs(run=msg.run, step=msg.step, senders=msg.senders, signatures=msg.signatures,
                       batches=[rows.tobytes()])  # fmt: skip


def _truncated_batch(dst, msg: ShareProofs) -> ShareProofs:
    return ShareProofs(run=msg.run, step=msg.step, senders=msg.senders, signatures=msg.signatures,
                       batches=[msg.batches[0][:-1]])  # fmt: skip


def _no_proof(dst, msg: ShareProofs) -> ShareProofs:
    return ShareProofs(run=msg.run, step=msg.step, senders=msg.senders, signatures=[], batches=[])


@pytest.mark.parametrize("lie", [_other_signature, _batch_matching_the_forgery, _truncated_batch, _no_proof])
def test_a_forged_proof_names_the_server(lie) -> None:
    x, roles = setup()
    victim = 7
    rewrite(roles[COORDINATOR], ForwardedShares, forge_one_share_to(victim))
    rewrite(roles[COORDINATOR], ShareProofs, lie)
    res = run_roles(roles, transcript=True)
    assert sent(res, ShareProofs) == [(COORDINATOR, victim)]
    assert_left_naming_the_server_without_evidence(res, roles, x, victim)


def test_proofs_nobody_asked_for_make_a_party_leave_naming_the_server() -> None:
    x, roles = setup()
    victim = 5
    server = roles[COORDINATOR]
    orig = server.receive

    def receive(src, msg):
        out = orig(src, msg)
        if any(isinstance(s.msg, ForwardedShares) for s in out):
            fw = next(s.msg for s in out if s.dst == victim)
            senders = fw.senders.to_numpy()[:1].astype(np.int64).tolist()
            out.append(Send(victim, share_proofs(server.ledger, server.run, senders)))
        return out

    server.receive = receive
    res = run_roles(roles, transcript=True)
    assert "proofs nobody asked for" in str(roles[victim].error)
    assert roles[victim].error.culprits == (COORDINATOR,)
    # it had sent its masked input, so its input may count; it reveals nothing from then on
    assert not sent(res, UnmaskShares, src=victim)
    np.testing.assert_array_equal(server.result.total, x[np.asarray(server.result.included) - 1].sum(axis=0))


def test_a_sender_that_signed_garbage_is_convicted_through_the_proofs() -> None:
    x, roles = setup()
    cheater = 3
    me = roles[cheater]

    def garbage(dst, msg: EncryptedShares) -> EncryptedShares:
        cts = np.frombuffer(bytes(len(msg.ciphertexts.data)), np.uint8).reshape(msg.ciphertexts.shape) + 1
        root = share_digest(share_batch(msg.recipients.to_numpy(), cts))
        sig = me.identity.sign(me._signed("shares", cheater, root))
        return EncryptedShares(run=msg.run, step=1, recipients=msg.recipients,
                               ciphertexts=WireArray.from_numpy(cts), signature=sig)  # fmt: skip

    rewrite(me, EncryptedShares, garbage)
    res = run_roles(roles, transcript=True)
    holders = roles[COORDINATOR].graph.of(cheater).tolist()
    assert sorted(a for a, _ in sent(res, ShareComplaint)) == holders  # each holder asked once
    assert sorted(b for _, b in sent(res, ShareProofs)) == holders
    for u in holders:  # and accused it with evidence, naming nobody else
        assert roles[u].accused == [cheater] and roles[u].error is None
    server = roles[COORDINATOR].result
    assert roles[COORDINATOR].culprits == [cheater] and cheater not in server.included
    np.testing.assert_array_equal(server.total, x[np.asarray(server.included) - 1].sum(axis=0))


@pytest.mark.parametrize("what", ["twice", "stranger"])
def test_a_complaint_about_shares_never_forwarded_or_repeated_excludes_the_complainer(what: str) -> None:
    x, roles = setup()
    liar = 6
    client = roles[liar]
    orig = client.receive

    def receive(src, msg):
        out = orig(src, msg)
        if isinstance(msg, ForwardedShares):
            mine = msg.senders.to_numpy().astype(np.int64)
            if what == "twice":
                asked = mine[:1]
                extra = [ShareComplaint(run=client.run, step=2, senders=WireArray.from_numpy(asked.astype("<u4")))] * 2
            else:
                stranger = sorted(set(range(1, N + 1)) - set(mine.tolist()) - {liar})[:1]
                extra = [ShareComplaint(run=client.run, step=2, senders=WireArray.from_numpy(np.asarray(stranger, "<u4")))]
            out = [Send(COORDINATOR, m) for m in extra] + out
        return out

    client.receive = receive
    res = run_roles(roles)
    server = roles[COORDINATOR]
    assert liar in server.culprits and liar not in server.result.included
    assert any(e.peer == liar and "excluded" in str(e) for e in res.peer_errors())
    np.testing.assert_array_equal(server.result.total, x[np.asarray(server.result.included) - 1].sum(axis=0))
