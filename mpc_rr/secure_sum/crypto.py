"""Cryptographic primitives of SecAgg: key agreement, key derivation, mask PRG, AEAD.

* Key agreement: X25519 (``cryptography``).  The *full* 32-byte agreed secret
  is the HKDF input; nothing is ever folded to a short seed.
* Key derivation: HKDF-SHA256 (RFC 5869) written with :func:`hmac.digest` (same
  output as ``cryptography``'s HKDF, about 3x cheaper per call).  The ``info``
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
    "decrypt",
    "enc_keys",
    "encrypt",
    "expand_mask",
    "expand_masks",
    "hkdf_sha256",
    "keypair",
    "pair_key",
]

_ZERO_NONCE = bytes(12)
_CTR_IV = bytes(16)


def hkdf_sha256(ikm: bytes, info: bytes, length: int = 32, salt: bytes = b"") -> bytes:
    """HKDF-SHA256 (RFC 5869) extract-then-expand."""
    if length > 255 * 32:
        raise UsageError(f"hkdf_sha256: length {length} too large")
    prk = hmac.digest(salt or bytes(32), ikm, "sha256")
    if length <= 32:  # one expand block: the common case, two HMAC calls in all
        return hmac.digest(prk, info + b"\x01", "sha256")[:length]
    out, block, i = b"", b"", 1
    while len(out) < length:
        block = hmac.digest(prk, block + info + bytes([i]), "sha256")
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
    """A peer's X25519 public key is malformed or of low order (all-zero shared secret)."""


def agree(sk: X25519PrivateKey | bytes, peer_pk: bytes) -> bytes:
    """The full 32-byte X25519 shared secret; :class:`InvalidPublicKey` on a bad peer key."""
    if isinstance(sk, bytes):
        sk = X25519PrivateKey.from_private_bytes(sk)
    try:
        return sk.exchange(_load_pk(peer_pk))
    except ValueError as exc:
        raise InvalidPublicKey(f"invalid X25519 public key: {exc}") from None


_load_pk = X25519PublicKey.from_public_bytes


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


def _keystream(key: bytes, nbytes: int) -> bytes:
    enc = Cipher(algorithms.AES(key), modes.CTR(_CTR_IV)).encryptor()
    return enc.update(bytes(nbytes))


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
    nbytes = cells * word.itemsize
    buf = b"".join([_keystream(k, nbytes) for k in keys])
    w = np.frombuffer(buf, dtype=word).reshape(len(keys), cells).astype(np.uint64)
    if pow2:
        return w & np.uint64(modulus - 1)
    return w % np.uint64(modulus)


def encrypt(key: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """AES-256-GCM with a zero nonce (each key encrypts one message only)."""
    return AESGCM(key).encrypt(_ZERO_NONCE, plaintext, aad)


def decrypt(key: bytes, ciphertext: bytes, aad: bytes) -> bytes:
    """Inverse of :func:`encrypt`; raises :class:`InvalidTag` on tampering or a wrong key."""
    return AESGCM(key).decrypt(_ZERO_NONCE, ciphertext, aad)


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
