"""Signed messages: bound to protocol, run, round and sender; the simulated and the deployment PKI."""

from __future__ import annotations

import numpy as np
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from mpc_rr.core import COORDINATOR, HarnessRunner, UsageError
from mpc_rr.secure_sum import Identity, Roster, SeededEntropy, simulated_pki
from mpc_rr.secure_sum._identity import (
    default_identity,
    merkle_paths,
    merkle_root_from_path,
    signed_payload,
    simulation_secret,
    use_simulation_secret,
)
from mpc_rr.secure_sum.secagg import secagg_public, secagg_roles


def test_a_signature_verifies_only_for_its_run_round_protocol_and_sender() -> None:
    pki = simulated_pki(range(3), SeededEntropy(1))
    roster = pki[0].roster
    sig = pki[1].sign(signed_payload("secagg", "run-a", "keys", 1, b"pk"))
    assert roster.verify_signed("secagg", "run-a", "keys", 1, sig, b"pk")
    for wrong in (("secagg", "run-b", "keys", 1), ("secagg", "run-a", "shares", 1),
                  ("full-mesh", "run-a", "keys", 1), ("secagg", "run-a", "keys", 2)):  # fmt: skip
        assert not roster.verify_signed(*wrong, sig, b"pk"), wrong
    assert not roster.verify_signed("secagg", "run-a", "keys", 1, sig, b"pk2")
    assert not roster.verify_signed("secagg", "run-a", "keys", 7, sig, b"pk")  # not in the roster
    # length prefixes: moving bytes between fields changes the payload
    assert signed_payload("p", "ab", "c", 1) != signed_payload("p", "a", "bc", 1)


def _p256_pki(ids: range) -> dict[int, Identity]:
    keys = {i: ec.generate_private_key(ec.SECP256R1()) for i in ids}
    roster = Roster({i: k.public_key() for i, k in keys.items()})
    return {i: Identity(i, k, roster) for i, k in keys.items()}


@pytest.mark.parametrize("scheme", ["ed25519", "p256"])  # 64-byte and DER-encoded signatures
def test_rows_of_signed_fields_verify_once_and_exactly(scheme: str) -> None:
    pki = simulated_pki(range(4), SeededEntropy(2)) if scheme == "ed25519" else _p256_pki(range(4))
    roster = pki[0].roster
    fields = [(bytes([v]) * 3, bytes([v + 9]) * 2) for v in (1, 2, 3)]
    sigs = [pki[v].sign(signed_payload("secagg", "r", "keys", v, *f)) for v, f in zip((1, 2, 3), fields, strict=True)]
    rows = b"".join(a + b for a, b in fields)
    check = roster.first_unsigned_row
    for _ in range(2):  # the second pass is answered by the memo, with the same verdicts
        assert check("secagg", "r", "keys", [1, 2, 3], sigs, rows, (3, 2)) is None
        assert check("secagg", "r", "keys", [1, 3, 2], sigs, rows, (3, 2)) == 1  # claims another sender
        assert check("secagg", "r2", "keys", [1, 2, 3], sigs, rows, (3, 2)) == 0  # another run
        assert check("secagg", "r", "shares", [1, 2, 3], sigs, rows, (3, 2)) == 0  # another round
        assert check("secagg", "r", "keys", [1, 2, 3], sigs, rows[:5] + rows[6:] + b"x", (3, 2)) == 1
        assert check("secagg", "r", "keys", [1, 2, 3], sigs, rows, (2, 3)) == 0  # other field cuts
        assert check("secagg", "r", "keys", [1, 2, 3], [sigs[0], sigs[2], sigs[1]], rows, (3, 2)) == 1
    with pytest.raises(UsageError, match="3 senders, 2 signatures"):
        check("secagg", "r", "keys", [1, 2, 3], sigs[:2], rows, (3, 2))


def test_deployment_keys_are_ecdsa_p256_and_mixed_rosters_are_refused() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    ident = Identity(4, key, Roster({4: key.public_key()}))
    assert ident.roster.verify_signed("secagg", "r", "keys", 4, ident.sign(signed_payload("secagg", "r", "keys", 4)))
    with pytest.raises(UsageError, match="neither Ed25519 nor ECDSA P-256"):
        Roster({1: ec.generate_private_key(ec.SECP384R1()).public_key()})


def test_audit_paths_prove_each_item_and_nothing_else() -> None:
    for count in (1, 2, 3, 7, 38):
        items = [bytes([i]) * 5 for i in range(count)]
        root, paths = merkle_paths(items)
        for i, item in enumerate(items):
            assert merkle_root_from_path(item, i, count, paths[i]) == root
            assert merkle_root_from_path(item + b"!", i, count, paths[i]) != root
            if count > 1:
                assert merkle_root_from_path(item, (i + 1) % count, count, paths[i]) != root


def test_no_change_to_results_when_nobody_cheats() -> None:
    """Same seed, same sum -- the signed protocol adds checks, not noise."""
    pub = secagg_public(30, 8, run="same")
    x = np.random.default_rng(9).integers(0, 2, (30, 8))
    totals = []
    for _ in range(2):
        roles = secagg_roles(x, pub, entropy=lambda i: SeededEntropy(3, i))
        res = HarnessRunner()(roles)
        assert not res.peer_errors()
        totals.append(roles[COORDINATOR].result.total)
        np.testing.assert_array_equal(roles[1].result.total, x.sum(axis=0))
    np.testing.assert_array_equal(totals[0], totals[1])


def test_one_simulated_pki_per_coordinator_secret() -> None:
    """Every process that adopts the coordinator's secret derives the same roster (shard
    workers, Ray actors); another secret is another PKI, whose signatures do not verify."""
    mine = simulation_secret()
    try:
        signer = default_identity(3, 5)
        sig = signer.sign(signed_payload("secagg", "r", "keys", 3, b"pk"))
        use_simulation_secret(bytes(32))  # a worker that did not get the coordinator's secret
        other = default_identity(3, 5)
        assert not other.roster.verify_signed("secagg", "r", "keys", 3, sig, b"pk")
        use_simulation_secret(mine)  # a worker that did
        again = default_identity(0, 5)
        assert again.roster.verify_signed("secagg", "r", "keys", 3, sig, b"pk")
        assert default_identity(3, 5).sign(b"x") == signer.sign(b"x")  # Ed25519 is deterministic
    finally:
        use_simulation_secret(mine)
    with pytest.raises(UsageError, match="32 bytes"):
        use_simulation_secret(b"short")
    with pytest.raises(UsageError, match="no identity for party 9"):
        default_identity(9, 5)


def _rfc6962_mth(items: list[bytes]) -> bytes:
    """RFC 6962 Sec. 2.1, MTH(D[n]) as written there (recursive: the reference)."""
    import hashlib

    if len(items) == 1:
        return hashlib.sha256(b"\x00" + items[0]).digest()
    k = 1 << ((len(items) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + _rfc6962_mth(items[:k]) + _rfc6962_mth(items[k:])).digest()


def test_the_bottom_up_tree_hash_is_rfc6962s() -> None:
    for count in (1, 2, 3, 5, 6, 7, 8, 9, 31, 33, 100):
        items = [bytes([i % 256]) * (i % 5 + 1) for i in range(count)]
        root, paths = merkle_paths(items)
        assert root == _rfc6962_mth(items) == merkle_paths(items, with_paths=False)[0]
        assert all(merkle_root_from_path(item, i, count, paths[i]) == root for i, item in enumerate(items))


def test_simulated_signatures_are_deterministic_p256_of_64_bytes_and_der_is_refused() -> None:
    ident = default_identity(3, 5)
    assert isinstance(ident.key, ec.EllipticCurvePrivateKey) and isinstance(ident.key.curve, ec.SECP256R1)
    sig = ident.sign(b"payload")
    assert len(sig) == 64 and sig == ident.sign(b"payload")  # RFC 6979: a seeded run is byte-reproducible
    assert ident.roster.verify(3, sig, b"payload")
    assert not ident.roster.verify(3, sig, b"other") and not ident.roster.verify(4, sig, b"payload")
    der = ident.key.sign(b"payload", ec.ECDSA(hashes.SHA256()))
    assert not ident.roster.verify(3, der, b"payload")  # one encoding on the wire: r || s


def test_a_sub_identity_keeps_the_key_and_names_the_members_by_inner_id() -> None:
    from mpc_rr.secure_sum._identity import sub_identity

    pki = simulated_pki(range(8), SeededEntropy(4))
    members = [5, 6, 7]  # inner 1, 2, 3; inner 0 is outer 0
    inner = sub_identity(pki[6], 2, members)
    assert inner.party_id == 2 and inner.key is pki[6].key
    sig = pki[6].sign(b"m")
    assert inner.roster.verify(2, sig, b"m") and not inner.roster.verify(6, sig, b"m")
    assert sub_identity(pki[0], 0, members).roster is inner.roster  # one roster per block
    with pytest.raises(UsageError, match="not inner party 1"):
        sub_identity(pki[6], 1, members)
    with pytest.raises(UsageError, match="not in the roster"):
        sub_identity(pki[5], 1, [5, 9])
