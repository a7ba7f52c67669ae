"""Shamir over GF(2^31-1), the one-step KDF, the mask PRG and the SecAgg+ graph."""

from __future__ import annotations

import numpy as np
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.concatkdf import ConcatKDFHash
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._graph import Graph


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(1, 9), extra=st.integers(0, 6))
def test_shamir_any_t_shares_reconstruct(seed: int, t: int, extra: int) -> None:
    ent = SeededEntropy(seed)
    rng = np.random.default_rng(seed)
    secret = np.frombuffer(ent.key(32), np.uint8)
    chunks = shamir.bytes_to_chunks(secret)
    holders = rng.choice(np.arange(1, 40_000), size=t + extra, replace=False)
    shares = shamir.share(chunks, holders, t, ent)
    assert shares.shape == (t + extra, shamir.CHUNKS) and shares.max() < shamir.PRIME
    pick = rng.choice(t + extra, size=t, replace=False)
    got = shamir.reconstruct(holders[pick][None, :], shares[pick][None, :, :])
    np.testing.assert_array_equal(shamir.chunks_to_bytes(got)[0], secret)
    if t > 1:  # t - 1 shares do not determine the secret
        bad = shamir.reconstruct(holders[pick[:-1]][None, :], shares[pick[:-1]][None, :, :])
        assert not np.array_equal(bad[0], chunks)


def test_vectorized_reconstruction_with_a_different_holder_set_per_secret() -> None:
    ent = SeededEntropy(1)
    rng = np.random.default_rng(1)
    secrets = np.frombuffer(ent.randbytes(50 * 32), np.uint8).reshape(50, 32)
    t = 4
    xs, ys = [], []
    for s in secrets:
        holders = rng.choice(np.arange(1, 1000), size=7, replace=False)
        sh = shamir.share(shamir.bytes_to_chunks(s), holders, t, ent)
        keep = rng.choice(7, size=t, replace=False)
        xs.append(holders[keep])
        ys.append(sh[keep])
    got = shamir.chunks_to_bytes(shamir.reconstruct(np.array(xs), np.array(ys)))
    np.testing.assert_array_equal(got, secrets)


def test_lagrange_and_chunk_errors() -> None:
    with pytest.raises(UsageError, match="must be distinct"):
        shamir.lagrange_at_zero(np.array([[3, 3]]))
    with pytest.raises(UsageError, match="exceeds 24 bits"):
        shamir.chunks_to_bytes(np.full(shamir.CHUNKS, 2**24))
    with pytest.raises(UsageError, match="need 1 <= t"):
        shamir.share(np.zeros(3), np.array([1, 2]), 3, SeededEntropy(0))


def test_kdf_matches_the_reference_implementation() -> None:
    """SP 800-56C one-step KDF (SHA-256) == cryptography's ConcatKDFHash, any length."""
    ikm = bytes(range(32))
    for length, info in ((32, b"ctx"), (64, b"x"), (1, b"i"), (33, b""), (100, b"i" * 300)):
        ref = ConcatKDFHash(algorithm=hashes.SHA256(), length=length, otherinfo=info).derive(ikm)
        assert crypto.kdf_sha256(ikm, info, length) == ref
    with pytest.raises(UsageError, match="length must be"):
        crypto.kdf_sha256(ikm, b"", 0)


def _ref_kdf(ikm: bytes, info: str, length: int = 32) -> bytes:
    return ConcatKDFHash(algorithm=hashes.SHA256(), length=length, otherinfo=info.encode()).derive(ikm)


def test_batch_key_derivations_match_the_reference_kdf() -> None:
    """The per-neighbourhood KDF batches (hashlib) equal cryptography's ConcatKDFHash, key for key."""
    rng = np.random.default_rng(5)
    shared = [rng.bytes(32) for _ in range(7)]
    me, others = 40, [3, 39, 41, 77, 1000, 12, 2**31]
    masks = crypto.pair_keys(shared, "mask", "run/x", me, others)
    assert masks == [
        _ref_kdf(s, f"mpc_rr/secagg/v1/mask/run/x/{min(me, v)}/{max(me, v)}")
        for s, v in zip(shared, others, strict=True)
    ]
    out, into = crypto.enc_keys_many(shared, "run/x", me, others)
    for s, v, o, i in zip(shared, others, out, into, strict=True):
        okm = _ref_kdf(s, f"mpc_rr/secagg/v1/enc/run/x/{min(me, v)}/{max(me, v)}", 64)
        assert (o, i) == ((okm[:32], okm[32:]) if me < v else (okm[32:], okm[:32]))
        assert (o, i) == crypto.enc_keys(s, "run/x", me, v)
    seeds = b"".join(shared)
    assert crypto.self_keys(seeds, "r", others) == [
        _ref_kdf(s, f"mpc_rr/secagg/v1/self/r/{u}/{u}")
        for s, u in zip(shared, others, strict=True)
    ]


def test_mask_streams_are_aes_ctr_from_counter_two(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GCM-computed rows equal AES-256-CTR from 0^96 || 2 through the CTR encryptor,
    row by row, for several lengths (tags dropped), and the large-stream path agrees."""
    rng = np.random.default_rng(3)
    keys = [rng.bytes(32) for _ in range(5)]
    iv = bytes(12) + (2).to_bytes(4, "big")
    for nbytes in (0, 1, 16, 17, 3164):
        rows = crypto.stream_rows(keys, nbytes)
        assert rows.shape == (5, nbytes)
        for k, row in zip(keys, rows, strict=True):
            ref = Cipher(algorithms.AES(k), modes.CTR(iv)).encryptor().update(bytes(nbytes))
            assert row.tobytes() == ref
    gcm_rows = crypto.stream_rows(keys, 3164)
    monkeypatch.setattr(crypto, "_GCM_MAX", 100)  # force the CTR path at a small size
    assert np.array_equal(crypto.stream_rows(keys, 3164), gcm_rows)
    monkeypatch.undo()
    words = crypto.expand_masks(keys, 1582, 2**16)
    assert np.array_equal(words, gcm_rows.view("<u2").astype(np.uint64))


def test_masks_are_uniform_and_keyed_by_the_full_secret() -> None:
    # two secrets that agree on their first 28 bytes (Flower folds seeds to 32 bits) still
    # give unrelated keys and unrelated streams
    a = bytes(28) + b"\x00\x00\x00\x01"
    b = bytes(28) + b"\x00\x00\x00\x02"
    ka, kb = crypto.pair_key(a, "mask", "r", 1, 2), crypto.pair_key(b, "mask", "r", 1, 2)
    assert ka != kb
    ma, mb = crypto.expand_mask(ka, 4096, 2**16), crypto.expand_mask(kb, 4096, 2**16)
    assert (ma == mb).mean() < 0.01
    # ids and purpose are bound into the key
    assert crypto.pair_key(a, "mask", "r", 1, 3) != ka
    assert crypto.pair_key(a, "self", "r", 1, 2) != ka
    # power-of-two modulus: exactly uniform words; other modulus: reduced 64-bit words
    m = crypto.expand_mask(ka, 200_000, 8)
    counts = np.bincount(m.astype(np.int64), minlength=8)
    assert ((counts - 25_000) ** 2 / 25_000).sum() < 30
    m3 = crypto.expand_mask(ka, 1000, 1000)
    assert m3.max() < 1000 and m3.min() >= 0
    with pytest.raises(UsageError, match="mask modulus"):
        crypto.expand_mask(ka, 3, 2**33)


def test_share_encryption_is_bound_to_key_and_ids() -> None:
    k = crypto.pair_key(bytes(32), "enc", "r", 1, 2)
    ct = crypto.encrypt(k, b"secret share", b"r/1/2")
    assert b"secret share" not in ct
    assert crypto.decrypt(k, ct, b"r/1/2") == b"secret share"
    with pytest.raises(crypto.InvalidTag):
        crypto.decrypt(k, ct, b"r/3/2")
    with pytest.raises(crypto.InvalidTag):
        crypto.decrypt(crypto.pair_key(bytes(32), "enc", "r", 2, 1), ct, b"r/1/2")


@pytest.mark.parametrize(("n", "k"), [(5, 4), (6, 10), (100, 8), (101, 7), (2000, 22)])
def test_graph_is_regular_symmetric_without_loops(n: int, k: int) -> None:
    g = Graph.random_regular(n, k, np.random.default_rng(n))
    expect = min(n - 1, k + k % 2)
    assert g.degree == expect and g.neighbors.shape == (n + 1, expect)
    nb = g.neighbors[1:]
    assert (nb != np.arange(1, n + 1)[:, None]).all()
    assert all(len(set(r)) == expect for r in nb.tolist())
    adj = np.zeros((n + 1, n + 1), bool)
    adj[np.repeat(np.arange(1, n + 1), expect), nb.ravel()] = True
    assert (adj == adj.T).all()
