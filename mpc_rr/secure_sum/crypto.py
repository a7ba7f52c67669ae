"""Cryptographic primitives of SecAgg: key agreement, key derivation, mask PRG, AEAD.

* Key agreement: X25519 (``cryptography``).  The *full* 32-byte agreed secret
  is the HKDF input; nothing is ever folded to a short seed.
* Key derivation: HKDF-SHA256 (RFC 5869) written with :mod:`hashlib` (same
  output as ``cryptography``'s HKDF).  HMAC-SHA256 is computed as RFC 2104
  defines it, from SHA-256 states of the padded key: the extract step's key
  (the all-zero salt) is public, so its two states are computed once; an
  expand key's two pads are XORed as integers (no secret-indexed table) and
  serve both blocks of a 64-byte output.  About half the CPU of
  :func:`hmac.digest` (whose every call sets up OpenSSL's HMAC context).  The ``info``
  string binds the purpose, the run id and the party ids, so every
  (run, pair, purpose) gets its own key.
* Mask PRG: AES-256-CTR keystream under the derived key (zero nonce -- each key
  is used for exactly one stream).  For a power-of-two modulus ``R`` each cell
  takes one little-endian word of the smallest dtype holding ``R - 1``, masked
  to ``log2 R`` bits: exactly uniform.  For another modulus each cell takes a
  64-bit word reduced mod ``R`` (statistical distance < ``R / 2^64``).
* Share encryption: AES-256-GCM under a direction-specific key (sender ->
  receiver), zero nonce (one message per key), the run id and both ids as
  associated data, so the routing server can neither read nor redirect it.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from mpc_rr.errors import UsageError
from mpc_rr.secure_sum.entropy import Entropy, smallest_uint

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
    "hkdf_sha256",
    "keypair",
    "keystreams",
    "pair_key",
    "pair_keys",
    "self_keys",
    "signed_mask_sum",
]

_ZERO_NONCE = bytes(12)
_CTR_IV = bytes(16)
_CTR = modes.CTR(_CTR_IV)  # immutable: one mode object serves every stream
_ZERO_SALT = bytes(32)  # HKDF without a salt uses HashLen zero bytes (RFC 5869, 2.2)
_sha256 = hashlib.sha256
# HMAC-SHA256 (RFC 2104): H((K ^ opad) || H((K ^ ipad) || m)), K zero-padded to the 64-byte block
_IPAD = int.from_bytes(b"\x36" * 64, "little")
_OPAD = int.from_bytes(b"\x5c" * 64, "little")
# the extract step's key is the public all-zero salt: its padded states, computed once
_EXTRACT_IN = _sha256(b"\x36" * 64)
_EXTRACT_OUT = _sha256(b"\x5c" * 64)


def _extract(ikm: bytes) -> bytes:
    """HKDF-Extract without a salt: ``HMAC-SHA256(32 zero bytes, ikm)``."""
    inner = _EXTRACT_IN.copy()
    inner.update(ikm)
    outer = _EXTRACT_OUT.copy()
    outer.update(inner.digest())
    return outer.digest()


def _pads(key: bytes) -> tuple[bytes, bytes]:
    """``(K ^ ipad, K ^ opad)`` of a key of at most 64 bytes (HMAC-SHA256's block)."""
    k = int.from_bytes(key, "little")  # little-endian: the zero padding is the high bytes
    return (k ^ _IPAD).to_bytes(64, "little"), (k ^ _OPAD).to_bytes(64, "little")


def _hmac(key: bytes, msg: bytes) -> bytes:
    """HMAC-SHA256 (equal to ``hmac.digest(key, msg, "sha256")``) of a key of <= 64 bytes."""
    ipad, opad = _pads(key)
    return _sha256(opad + _sha256(ipad + msg).digest()).digest()


def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    """HKDF-SHA256 (RFC 5869) extract-then-expand."""
    if length > 255 * 32:
        raise UsageError(f"hkdf_sha256: length {length} too large")
    prk = _extract(ikm) if not salt else hmac.digest(salt, ikm, "sha256")
    ipad, opad = _pads(prk)
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = _sha256(opad + _sha256(ipad + block + info + bytes([i])).digest()).digest()
        out += block
        i += 1
    return out[:length]


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


# public API only: cryptography's private bindings would save ~0.9 us a key (~1.5 s of a
# 57 s Adult run) and could change under any upgrade of a security library
_load_pk = X25519PublicKey.from_public_bytes


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
    return hkdf_sha256(shared, info)


def enc_keys(shared: bytes, run: str, a: int, b: int) -> tuple[bytes, bytes]:
    """The two direction keys ``(a -> b, b -> a)`` of a pair from one 64-byte HKDF output."""
    lo, hi = min(a, b), max(a, b)
    okm = hkdf_sha256(shared, f"mpc_rr/secagg/v1/enc/{run}/{lo}/{hi}".encode(), 64)
    k_lo_hi, k_hi_lo = okm[:32], okm[32:]
    return (k_lo_hi, k_hi_lo) if a == lo else (k_hi_lo, k_lo_hi)


def pair_keys(shared: list[bytes], purpose: str, run: str, me: int, others: list[int]) -> list[bytes]:
    """``[pair_key(s, purpose, run, min(me, v), max(me, v)) for s, v in zip(shared, others)]``."""
    prefix = f"mpc_rr/secagg/v1/{purpose}/{run}/"
    extract, h = _extract, _hmac
    return [
        h(extract(s), f"{prefix}{min(me, v)}/{max(me, v)}\x01".encode())
        for s, v in zip(shared, others, strict=True)
    ]


def self_keys(seeds: bytes, run: str, ids: list[int]) -> list[bytes]:
    """``pair_key(seed_u, "self", run, u, u)`` for the concatenated 32-byte seeds of ``ids``."""
    if len(seeds) != 32 * len(ids):
        raise UsageError(f"self_keys: {len(seeds)} bytes are not {len(ids)} seeds of 32 bytes")
    prefix = f"mpc_rr/secagg/v1/self/{run}/"
    extract, h = _extract, _hmac
    return [
        h(extract(seeds[32 * i : 32 * i + 32]), f"{prefix}{u}/{u}\x01".encode())
        for i, u in enumerate(ids)
    ]


def enc_keys_many(
    shared: list[bytes], run: str, me: int, others: list[int]
) -> tuple[list[bytes], list[bytes]]:
    """:func:`enc_keys` for each pair ``(me, others[i])``: the lists ``(me -> v)`` and ``(v -> me)``."""
    prefix = f"mpc_rr/secagg/v1/enc/{run}/"
    extract, pads, sha = _extract, _pads, _sha256
    out: list[bytes] = []
    into: list[bytes] = []
    for s, v in zip(shared, others, strict=True):
        info = f"{prefix}{min(me, v)}/{max(me, v)}".encode()
        # HKDF-Expand of hkdf_sha256, inlined: this runs per neighbour, and a shared helper
        # measured 13-18 % slower here (timeit, 30 neighbours)
        ipad, opad = pads(extract(s))  # one key, both expand blocks
        k1 = sha(opad + sha(ipad + info + b"\x01").digest()).digest()  # the output is k1 || k2
        k2 = sha(opad + sha(ipad + k1 + info + b"\x02").digest()).digest()
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



def _keystream(key: bytes, nbytes: int) -> bytes:
    return bytes(_ctr(algorithms.AES(key), _CTR).update(bytes(nbytes)))


def keystreams(keys: list[bytes], nbytes: int) -> bytes:
    """The first ``nbytes`` of the AES-256-CTR keystream of each key, concatenated."""
    zeros = bytes(nbytes)
    aes, ctr, mode = algorithms.AES, _ctr, _CTR
    return b"".join([ctr(aes(k), mode).update(zeros) for k in keys])


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
    buf = keystreams(keys, cells * word.itemsize)
    w = np.frombuffer(buf, dtype=word).reshape(len(keys), cells).astype(np.uint64)
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
                part = np.frombuffer(keystreams(keys, nbytes), word).reshape(len(keys), cells)
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
