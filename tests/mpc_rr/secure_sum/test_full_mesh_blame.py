"""Who a full-mesh share failure names: every share carries its sender's signature
on the tree hash of its ciphertexts and its audit path, so a share that does not open names its
sender alone when it signed it, else whoever relayed it -- the board (it checks every share it
relays), or in all-to-all mode the suspects {sender, relay}."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import PeerError, WireArray, run_roles
from mpc_rr.core._errors import RELAY
from mpc_rr.secure_sum._identity import signed_payload
from mpc_rr.secure_sum.full_mesh import (
    FullMeshParty,
    MeshAbort,
    MeshKeys,
    MeshShare,
    full_mesh_roles,
)
from mpc_rr.secure_sum.full_mesh._messages import share_index, sign_shares
from tests.mpc_rr.secure_sum.test_full_mesh import _keyed, _seal, _share, onehot, seeded


def _signed_seal(roles, src: int, dst: int, plain: bytes, run: str = "t", peer: int = 0) -> MeshShare:
    """:func:`_seal`, signed by ``src`` with its audit path: a sender that sent garbage, provably."""
    n = len([j for j in roles if j != 0])
    cts = [_seal(roles, src, j, plain if j == dst else bytes(len(plain)), run).ciphertext
           for j in range(1, n + 1) if j != src]  # fmt: skip
    sig, paths = sign_shares(roles[src].identity, run, np.frombuffer(b"".join(cts), np.uint8).reshape(n - 1, -1))
    k = share_index(src, dst)
    return MeshShare(ciphertext=cts[k], run=run, step=2, signature=sig, path=paths[k], peer=peer)


def test_a_malformed_share_is_blamed_on_its_signer_or_suspected_with_the_relay() -> None:
    roles, _ = _keyed()
    assert all(r.state.name == "SHARING" for r in roles.values())
    p = roles[1]
    bad = MeshShare(ciphertext=bytes(5), run="t", step=2)  # unsigned: party 2's or the hub's doing
    with pytest.raises(PeerError, match=r"malformed share \(5 bytes, expected 18\), without its signature"):
        p.receive(2, bad)
    assert p.error is not None and p.error.culprits == () and p.error.suspects == ((RELAY, 2),)
    roles, _ = _keyed()  # a value out of range under party 3's own signature: party 3 alone
    with pytest.raises(PeerError, match=r"share out of range, signed by it .* from party 3"):
        roles[1].receive(3, _signed_seal(roles, 3, 1, bytes([9, 0])))
    assert roles[1].error.culprits == (3,) and roles[1].error.suspects == ()


def test_a_signed_garbage_share_names_its_sender_alone_in_both_modes() -> None:
    junk = bytes(range(18))  # 2 cells + tag, not under the pair's key: it never opens
    for publication in ("all-to-all", "board"):
        roles, _ = _keyed(publication)
        n = 3
        cts = np.frombuffer(junk * (n - 1), np.uint8).reshape(n - 1, -1)
        sig, paths = sign_shares(roles[2].identity, "t", cts)
        share = MeshShare(ciphertext=junk, run="t", step=2, signature=sig, path=paths[share_index(2, 1)],
                          peer=2 if publication == "board" else 0)  # fmt: skip
        if publication == "board":  # the abort is reported to the board (a complaint), which stops the run
            out = roles[1].receive(0, share)
            assert [(s.dst, type(s.msg), s.msg.culprits) for s in out] == [(0, MeshAbort, [2])]
            roles[0].receive(1, out[0].msg)
            assert roles[0].error is not None and roles[0].error.culprits == () and roles[0].error.suspects == ((1, 2),)
        else:
            with pytest.raises(PeerError, match="fails authentication, signed by it"):
                roles[1].receive(2, share)
        assert "fails authentication, signed by it" in str(roles[1].error)
        assert roles[1].error.culprits == (2,) and roles[1].error.suspects == (), publication


def test_a_tampered_or_redirected_share_suspects_the_relay_or_names_the_board() -> None:
    roles, sent = _keyed()
    share = _share(sent, 2, 1)
    ct = bytearray(share.ciphertext)
    ct[0] ^= 1  # one flipped bit in transit: the path no longer leads to party 2's signed root
    with pytest.raises(PeerError, match="share that fails authentication, without its signature from party 2"):
        roles[1].receive(2, MeshShare(ciphertext=bytes(ct), run="t", step=2, signature=share.signature, path=share.path))
    assert roles[1].error.culprits == () and roles[1].error.suspects == ((RELAY, 2),)
    # a relay that hands party 1 the share 2 sent to party 3: wrong key, data and tree item
    roles, sent = _keyed()
    with pytest.raises(PeerError, match="fails authentication, without its signature from party 2"):
        roles[1].receive(2, _share(sent, 2, 3))
    assert roles[1].error.suspects == ((RELAY, 2),)
    # board mode: the board checks every share it relays, so one whose path fails names the board;
    # a share that arrives before the board's key list is held, then checked
    roles, sent = _keyed("board")
    late = FullMeshParty(1, 3, np.array([1, 0]), publication="board", entropy=seeded(0)(1), run="t")
    late.start()
    assert late.pk == roles[1].pk  # same seed, same key pair as the party the shares were for
    assert late.receive(0, _share(sent, 3, 1)) == []
    share = _share(sent, 2, 1)
    ct = bytearray(share.ciphertext)
    ct[-1] ^= 1  # the tag
    assert late.receive(0, MeshShare(ciphertext=bytes(ct), run="t", step=2, signature=share.signature,
                                     path=share.path, peer=2)) == []  # held  # fmt: skip
    assert late.error is None and late.state.name == "KEYS"
    keys = MeshKeys(pks=WireArray.from_numpy(roles[0]._keys), run="t", step=1, signatures=roles[0]._sigs)
    with pytest.raises(PeerError, match=r"relayed from party 2 without its signature from party 0"):
        late.receive(0, keys)
    assert late.error.culprits == (0,) and late.error.suspects == ()


def test_the_share_batch_signature_is_bound_to_run_round_and_sender() -> None:
    """A share batch signed for another run, as another round, or as another sender does not
    verify: the board (which gets a party's shares without paths and checks the signature on
    their tree hash once all are in) refuses it naming its sender and tells every party."""
    from mpc_rr.secure_sum._identity import merkle_paths, share_items

    roles, sent = _keyed("board", run="t", through_board=False)
    genuine = {j: next(s.msg for s in sent[2] if s.msg.peer == j) for j in (1, 3)}
    assert {m.path for m in genuine.values()} == {b""}  # to the board: no paths
    board, me = roles[0], roles[2].identity
    cts = np.frombuffer(genuine[1].ciphertext + genuine[3].ciphertext, np.uint8).reshape(2, -1)
    root, _ = merkle_paths(share_items(np.array([1, 3]), cts), with_paths=False)
    assert board._batch_signed(2, root, genuine[1].signature)
    wrong = {"run": me.sign(signed_payload("full-mesh", "u", "shares", 2, root)),
             "round": me.sign(signed_payload("full-mesh", "t", "publish", 2, root)),
             "sender": me.sign(signed_payload("full-mesh", "t", "shares", 3, root))}  # fmt: skip
    for what, sig in wrong.items():
        assert not board._batch_signed(2, root, sig), what
    forged = {j: MeshShare(ciphertext=m.ciphertext, run="t", step=2, signature=wrong["run"], peer=j)
              for j, m in genuine.items()}  # fmt: skip
    assert board.receive(2, forged[1]) == []  # held until the batch is complete
    out = board.receive(2, forged[3])
    assert board.error is not None and board.error.culprits == (2,)
    assert "without its signature on their tree hash" in str(board.error)
    assert sorted(s.dst for s in out) == [1, 2, 3] and all(isinstance(s.msg, MeshAbort) for s in out)
    assert all(s.msg.culprits == [2] for s in out)
    roles[1].receive(0, out[0].msg)
    assert roles[1].error.culprits == () and roles[1].error.suspects == ((0, 2),)


@pytest.mark.parametrize("publication", ["all-to-all", "board"])
def test_signed_shares_change_no_result_when_nobody_cheats(publication: str) -> None:
    """Same seed, same run: the same publications r_j and the exact sum (the signatures draw
    nothing from the parties' entropy), and no party reports anything."""
    x = onehot(np.random.default_rng(8), 9, 5)
    runs = []
    for _ in range(2):
        roles = full_mesh_roles(x, entropy=seeded(8), run="same", publication=publication)
        res = run_roles(roles, rng=np.random.default_rng(8), shuffle=True)
        assert not res.peer_errors() and all(r.error is None for r in roles.values())
        np.testing.assert_array_equal(roles[1].result.total, x.sum(axis=0))
        runs.append([roles[j]._r_j.tolist() for j in range(1, 10)])
    assert runs[0] == runs[1]
