"""Cryptographic primitives of SecAgg: key agreement, key derivation, mask PRG, AEAD.

* Key agreement: X25519 (``cryptography``).  The *full* 32-byte agreed secret
  is the KDF input; nothing is ever folded to a short seed.
* Key derivation: the one-step KDF of NIST SP 800-56C Rev. 2 with SHA-256
  (:func:`kdf_sha256`; JOSE's "Concat KDF"), one :mod:`hashlib` call per 32
  bytes.  Its ``info`` (FixedInfo) binds the purpose, the run id and the party
  ids, so every (run, pair, purpose) gets its own key.
* Mask PRG: AES-256-CTR keystream under the derived key, from the counter
  block ``0^96 || 2`` (each key is used for exactly one stream), computed
  through AES-GCM's API (:func:`stream_rows`).  For a power-of-two modulus ``R`` each cell
  takes one little-endian word of the smallest dtype holding ``R - 1``, masked
  to ``log2 R`` bits: exactly uniform.  For another modulus each cell takes a
  64-bit word reduced mod ``R`` (statistical distance < ``R / 2^64``).
* Share encryption: AES-256-GCM under a direction-specific key (sender ->
  receiver), zero nonce (one message per key), the run id and both ids as
  associated data, so the routing server can neither read nor redirect it.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mpc_rr.core import UsageError
from mpc_rr.secure_sum._entropy import Entropy, smallest_uint

__all__ = [
    "InvalidPublicKey",
    "InvalidTag",
    "X25519PrivateKey",
    "agree",
    "agree_many",
    "decrypt",
    "decrypt_many",
    "enc_keys",
    "enc_keys_many",
    "encrypt",
    "encrypt_many",
    "expand_mask",
    "expand_masks",
    "kdf_sha256",
    "keypair",
    "pair_key",
    "pair_keys",
    "self_keys",
    "signed_mask_sum",
    "stream_rows",
]

_ZERO_NONCE = bytes(12)
_CTR_IV = bytes(12) + (2).to_bytes(4, "big")  # where GCM's CTR starts under the zero nonce
_CTR = modes.CTR(_CTR_IV)  # immutable: one mode object serves every stream
_GCM_MAX = 2**31 - 16  # cryptography's AESGCM takes at most 2^31 - 1 bytes
_sha256 = hashlib.sha256
# the big-endian 32-bit counters of the one-step KDF (SP 800-56C Rev. 2, 4.1)
_COUNTER_1 = (1).to_bytes(4, "big")
_COUNTER_2 = (2).to_bytes(4, "big")


def kdf_sha256(secret: bytes, info: bytes, length: int = 32) -> bytes:
    """One-step key derivation, NIST SP 800-56C Rev. 2, Sec. 4.1, option 1 (H = SHA-256).

    ``K(i) = SHA-256(i || secret || info)`` for the 32-bit big-endian counters
    ``i = 1, 2, ...``, concatenated and cut to ``length`` bytes: the KDF that
    SP 800-56C approves for a Diffie-Hellman shared secret ``Z``, and the
    "Concat KDF" of JOSE's ECDH-ES (RFC 7518, 4.6); ``cryptography``'s
    ``ConcatKDFHash(SHA256(), length, info)`` gives the same bytes (tested).
    ``info`` is SP 800-56C's FixedInfo: here it binds purpose, run and party ids.

    Chosen over HKDF-SHA256 (RFC 5869, used here before) for cost, with the same
    inputs and bindings: one SHA-256 call per 32 bytes instead of four HMAC
    compressions, 0.8 against 2.2 us per key from Python (1.2 against 3.0 us for
    the 64 bytes of a pair's two share keys); SecAgg+ derives two keys per
    neighbour per party, ~2 million at Adult's size.
    """
    if not 0 < length <= 255 * 32:
        raise UsageError(f"kdf_sha256: length must be in 1..{255 * 32}, got {length}")
    blocks = (length + 31) // 32
    out = b"".join(
        _sha256(i.to_bytes(4, "big") + secret + info).digest() for i in range(1, blocks + 1)
    )
    return out[:length]


PUBLIC_KEY_CACHE = 1 << 16
"""Parsed X25519 public keys kept per process (~450 bytes each: ~30 MB when full).  A SecAgg+
step uses one key of each party (the encryption keys, then the mask keys), so 2^16 holds a
whole step's keys up to 65,536 parties."""


def keypair(entropy: Entropy) -> tuple[X25519PrivateKey, bytes]:
    """A fresh X25519 key pair from ``entropy``: (private key object, raw public key)."""
    sk = X25519PrivateKey.from_private_bytes(entropy.key(32))
    return sk, sk.public_key().public_bytes_raw()


def private_bytes(sk: X25519PrivateKey) -> bytes:
    return sk.private_bytes_raw()


class InvalidPublicKey(ValueError):
    """A peer's X25519 public key is malformed or of low order (all-zero shared secret).

    ``index``: position of the bad key in a batch (:func:`agree_many`), else 0.
    """

    index: int = 0


def agree(sk: X25519PrivateKey | bytes, peer_pk: bytes) -> bytes:
    """The full 32-byte X25519 shared secret; :class:`InvalidPublicKey` on a bad peer key."""
    if isinstance(sk, bytes):
        sk = X25519PrivateKey.from_private_bytes(sk)
    try:
        return sk.exchange(_load_pk(peer_pk))
    except ValueError as exc:
        raise InvalidPublicKey(f"invalid X25519 public key: {exc}") from None


@functools.lru_cache(maxsize=PUBLIC_KEY_CACHE)
def _load_pk(raw: bytes) -> X25519PublicKey:
    """The parsed public key of ``raw`` (public API only: ``cryptography``'s private bindings
    would be faster and could change under any upgrade of a security library).

    Cached by its bytes: a simulation runs thousands of parties in one process, and each
    public key reaches every neighbour of its owner (30-44 loads of the same 32 bytes at
    Adult's size; 1.7 us a parse against 0.15 us a hit, ~3 core-seconds of a 58 s run).
    A public key is public, the cache hands out immutable objects, and a bad key is never
    cached (the parse raises); a bounded LRU, so hostile input cannot grow it.
    """
    return X25519PublicKey.from_public_bytes(raw)


def agree_many(sk: X25519PrivateKey, peer_pks: bytes, count: int) -> list[bytes]:
    """X25519 of ``sk`` with each of ``count`` concatenated 32-byte public keys.

    The batch form of :func:`agree` (one Python frame for a party's whole
    neighbourhood).  Raises :class:`InvalidPublicKey` whose ``index`` names the
    first bad key.
    """
    if len(peer_pks) != 32 * count:
        raise UsageError(f"agree_many: {len(peer_pks)} bytes are not {count} keys of 32 bytes")
    exchange, load = sk.exchange, _load_pk
    out = []
    try:
        for i in range(0, 32 * count, 32):
            out.append(exchange(load(peer_pks[i : i + 32])))
    except ValueError as exc:
        bad = InvalidPublicKey(f"invalid X25519 public key: {exc}")
        bad.index = len(out)
        raise bad from None
    return out


def pair_key(shared: bytes, purpose: str, run: str, a: int, b: int) -> bytes:
    """Derive a 32-byte key for ``purpose`` from a shared secret, bound to run and ids ``a, b``."""
    info = f"mpc_rr/secagg/v1/{purpose}/{run}/{a}/{b}".encode()
    return kdf_sha256(shared, info)


def enc_keys(shared: bytes, run: str, a: int, b: int) -> tuple[bytes, bytes]:
    """The two direction keys ``(a -> b, b -> a)`` of a pair from one 64-byte KDF output."""
    lo, hi = min(a, b), max(a, b)
    okm = kdf_sha256(shared, f"mpc_rr/secagg/v1/enc/{run}/{lo}/{hi}".encode(), 64)
    k_lo_hi, k_hi_lo = okm[:32], okm[32:]
    return (k_lo_hi, k_hi_lo) if a == lo else (k_hi_lo, k_lo_hi)


def pair_keys(shared: list[bytes], purpose: str, run: str, me: int, others: list[int]) -> list[bytes]:
    """``[pair_key(s, purpose, run, min(me, v), max(me, v)) for s, v in zip(shared, others)]``."""
    prefix = f"mpc_rr/secagg/v1/{purpose}/{run}/"
    sha, c1 = _sha256, _COUNTER_1
    return [
        sha(c1 + s + f"{prefix}{min(me, v)}/{max(me, v)}".encode()).digest()
        for s, v in zip(shared, others, strict=True)
    ]


def self_keys(seeds: bytes, run: str, ids: list[int]) -> list[bytes]:
    """``pair_key(seed_u, "self", run, u, u)`` for the concatenated 32-byte seeds of ``ids``."""
    if len(seeds) != 32 * len(ids):
        raise UsageError(f"self_keys: {len(seeds)} bytes are not {len(ids)} seeds of 32 bytes")
    prefix = f"mpc_rr/secagg/v1/self/{run}/"
    sha, c1 = _sha256, _COUNTER_1
    return [
        sha(c1 + seeds[32 * i : 32 * i + 32] + f"{prefix}{u}/{u}".encode()).digest()
        for i, u in enumerate(ids)
    ]


def enc_keys_many(
    shared: list[bytes], run: str, me: int, others: list[int]
) -> tuple[list[bytes], list[bytes]]:
    """:func:`enc_keys` for each pair ``(me, others[i])``: the lists ``(me -> v)`` and ``(v -> me)``."""
    prefix = f"mpc_rr/secagg/v1/enc/{run}/"
    sha, c1, c2 = _sha256, _COUNTER_1, _COUNTER_2
    out: list[bytes] = []
    into: list[bytes] = []
    for s, v in zip(shared, others, strict=True):
        z_info = s + f"{prefix}{min(me, v)}/{max(me, v)}".encode()
        k1 = sha(c1 + z_info).digest()  # kdf_sha256(s, info, 64) is k1 || k2
        k2 = sha(c2 + z_info).digest()
        if me < v:
            out.append(k1)
            into.append(k2)
        else:
            out.append(k2)
            into.append(k1)
    return out, into


def _ctr(algorithm: algorithms.AES, mode: modes.CTR) -> Any:
    """An AES-CTR encryptor through ``cryptography``'s public API."""
    return Cipher(algorithm, mode).encryptor()


def stream_rows(keys: list[bytes], nbytes: int) -> np.ndarray:
    """``(len(keys), nbytes)`` uint8: row ``i`` is the first ``nbytes`` of key ``i``'s mask stream.

    The stream of key ``k`` is AES-256-CTR under ``k`` from the counter block
    ``0^96 || 2`` (:data:`_CTR_IV`).  It is computed through AES-GCM's public
    API: GCM's encryption of zeros under the zero nonce is exactly that CTR
    keystream (GCM starts its CTR at ``nonce || 2``) followed by a 16-byte tag,
    which the rows skip (a strided view, no copy).  1.4 us for a 3 KB stream
    against 3.9 us through the CTR encryptor, whose set-up dominates at this
    size (each of Adult's parties expands 31 streams).  Tested equal to the CTR
    encryptor's bytes; streams of 2 GiB or more (beyond GCM's API) take the CTR
    encryptor.
    """
    zeros = bytes(nbytes)
    if nbytes >= _GCM_MAX:
        aes, ctr, mode = algorithms.AES, _ctr, _CTR
        ctr_out = b"".join([ctr(aes(k), mode).update(zeros) for k in keys])
        return np.frombuffer(ctr_out, np.uint8).reshape(len(keys), nbytes)
    gcm, nonce = AESGCM, _ZERO_NONCE
    out = b"".join([gcm(k).encrypt(nonce, zeros, None) for k in keys])
    rows: np.ndarray = np.frombuffer(out, np.uint8).reshape(len(keys), nbytes + 16)[:, :nbytes]
    return rows


def _layout(modulus: int) -> tuple[np.dtype, bool]:
    if modulus < 2 or modulus > 2**32:
        raise UsageError(f"mask modulus must be in [2, 2^32], got {modulus}")
    if modulus & (modulus - 1) == 0:
        return smallest_uint(modulus).newbyteorder("<"), True
    return np.dtype("<u8"), False


def expand_mask(key: bytes, cells: int, modulus: int) -> np.ndarray:
    """Mask vector of ``cells`` residues mod ``modulus`` (uint64) from a 32-byte key."""
    result: np.ndarray = expand_masks([key], cells, modulus)[0]
    return result


def expand_masks(keys: list[bytes], cells: int, modulus: int) -> np.ndarray:
    """``(len(keys), cells)`` uint64 masks, one independent AES-CTR stream per key."""
    word, pow2 = _layout(modulus)
    w = stream_rows(keys, cells * word.itemsize).view(word).astype(np.uint64)
    if pow2:
        return w & np.uint64(modulus - 1)
    return w % np.uint64(modulus)


def signed_mask_sum(plus: list[bytes], minus: list[bytes], cells: int, modulus: int) -> np.ndarray:
    """``sum PRG(plus) - sum PRG(minus)`` mod ``modulus``, as :func:`expand_masks` words.

    Equal to summing :func:`expand_masks` rows with signs, without the uint64
    copies: for a power-of-two modulus the words are summed in their own
    dtype, whose wrap-around (mod ``2^bits``) is exact mod ``modulus``.
    Returns the smallest unsigned dtype holding ``modulus - 1`` (power of two)
    or uint64.
    """
    word, pow2 = _layout(modulus)
    nbytes = cells * word.itemsize
    if pow2:
        out = np.zeros(cells, word)
        for keys, add in ((plus, True), (minus, False)):
            if keys:
                part = stream_rows(keys, nbytes).view(word)  # (len(keys), cells)
                s = part.sum(axis=0, dtype=word)
                out = out + s if add else out - s
        result: np.ndarray = out & word.type(modulus - 1)
        return result.astype(smallest_uint(modulus))
    total = np.zeros(cells, np.int64)
    for keys, sign in ((plus, 1), (minus, -1)):
        if keys:
            m = expand_masks(keys, cells, modulus).astype(np.int64)
            total += sign * (m.sum(axis=0) % modulus)
    reduced: np.ndarray = np.mod(total, modulus).astype(np.uint64)
    return reduced


def encrypt(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """AES-256-GCM with a zero nonce (each key encrypts one message only)."""
    return AESGCM(key).encrypt(_ZERO_NONCE, plaintext, aad)


def decrypt(key: bytes, ciphertext: bytes, aad: bytes) -> bytes:
    """Inverse of :func:`encrypt`; raises :class:`InvalidTag` on tampering or a wrong key."""
    return AESGCM(key).decrypt(_ZERO_NONCE, ciphertext, aad)


def encrypt_many(keys: list[bytes], plaintexts: bytes, aads: list[bytes]) -> bytes:
    """:func:`encrypt` of equal-width slices of ``plaintexts`` (one per key), concatenated."""
    width = len(plaintexts) // len(keys) if keys else 0
    if width * len(keys) != len(plaintexts):
        raise UsageError("encrypt_many: plaintexts do not split evenly over the keys")
    gcm, nonce = AESGCM, _ZERO_NONCE
    return b"".join(
        [
            gcm(k).encrypt(nonce, plaintexts[i * width : (i + 1) * width], a)
            for i, (k, a) in enumerate(zip(keys, aads, strict=True))
        ]
    )


def decrypt_many(keys: list[bytes], ciphertexts: bytes, aads: list[bytes]) -> tuple[bytes, int]:
    """:func:`decrypt` of equal-width slices of ``ciphertexts``, concatenated.

    Returns ``(plaintexts, -1)``, or ``(b"", i)`` when slice ``i`` fails authentication.
    """
    width = len(ciphertexts) // len(keys) if keys else 0
    if width * len(keys) != len(ciphertexts):
        raise UsageError("decrypt_many: ciphertexts do not split evenly over the keys")
    gcm, nonce = AESGCM, _ZERO_NONCE
    out = []
    for i, (k, a) in enumerate(zip(keys, aads, strict=True)):
        try:
            out.append(gcm(k).decrypt(nonce, ciphertexts[i * width : (i + 1) * width], a))
        except InvalidTag:
            return b"", i
    return b"".join(out), -1


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
