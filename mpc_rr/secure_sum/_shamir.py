"""Vectorized Shamir secret sharing of 32-byte keys over the prime field GF(2^31 - 1).

A 32-byte secret is split into :data:`CHUNKS` = 11 chunks of 24 bits (the
last padded with zero bits); every chunk is shared independently with the
same evaluation points, so one share of a key is an array of 11 field
elements (uint32 on the wire, 44 bytes).  Evaluation points are the party ids
(``1 <= id < p``).  Field products stay below 2^62, so everything runs in
uint64 numpy arithmetic with no Python big ints and no object arrays.

* :func:`share` -- Horner evaluation of random degree ``t - 1`` polynomials
  (coefficients from the injected cryptographic entropy) at all holders at once.
* :func:`reconstruct` -- Lagrange interpolation at 0 for *many* secrets, each
  with its own set of ``t`` holders: the coefficients are computed for all
  secrets together (vectorized Fermat inversion), then combined with the
  shares in ``t`` array operations.

Reference: Shamir, "How to share a secret", CACM 1979; the chunking is ours.
"""

from __future__ import annotations

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.secure_sum._entropy import Entropy

__all__ = ["CHUNKS", "PRIME", "bytes_to_chunks", "chunks_to_bytes", "reconstruct", "share"]

PRIME = 2**31 - 1
"""The field modulus (a Mersenne prime)."""
CHUNK_BITS = 24
CHUNKS = 11
"""Field elements per 32-byte secret (11 x 24 bits >= 256 bits)."""
_P = np.uint64(PRIME)


def bytes_to_chunks(secrets: np.ndarray) -> np.ndarray:
    """``(..., 32)`` uint8 secrets -> ``(..., 11)`` uint64 chunks of 24 bits (little-endian)."""
    s = np.asarray(secrets, dtype=np.uint8)
    if s.shape[-1] != 32:
        raise UsageError(f"secrets must have 32 bytes in the last axis, got shape {s.shape}")
    pad = np.zeros((*s.shape[:-1], 1), np.uint8)
    b = np.concatenate([s, pad], axis=-1).reshape(*s.shape[:-1], CHUNKS, 3).astype(np.uint64)
    result: np.ndarray = b[..., 0] | (b[..., 1] << np.uint64(8)) | (b[..., 2] << np.uint64(16))
    return result


def chunks_to_bytes(chunks: np.ndarray) -> np.ndarray:
    """Inverse of :func:`bytes_to_chunks`: ``(..., 11)`` -> ``(..., 32)`` uint8.

    Raises :class:`UsageError` if a chunk does not fit in 24 bits or the padding
    byte is not zero (a sign of inconsistent shares).
    """
    c = np.asarray(chunks, dtype=np.uint64)
    if c.size and int(c.max()) >= 1 << CHUNK_BITS:
        raise UsageError("chunks_to_bytes: a chunk exceeds 24 bits (inconsistent shares?)")
    b = np.stack([(c >> np.uint64(8 * i)) & np.uint64(0xFF) for i in range(3)], axis=-1)
    b = b.astype(np.uint8).reshape(*c.shape[:-1], 3 * CHUNKS)
    if b.size and b[..., 32].any():
        raise UsageError("chunks_to_bytes: non-zero padding (inconsistent shares?)")
    return b[..., :32]


def share(secret_chunks: np.ndarray, holders: np.ndarray, t: int, entropy: Entropy) -> np.ndarray:
    """Shares of field vectors for every holder.

    Parameters
    ----------
    secret_chunks:
        ``(C,)`` field elements (< p) to share, each with its own polynomial.
    holders:
        ``(m,)`` distinct evaluation points in ``[1, p)`` (party ids), ``m >= t``.
    t:
        Threshold: any ``t`` shares reconstruct, ``t - 1`` reveal nothing.

    Returns
    -------
    ``(m, C)`` uint64 shares, ``shares[i] = f(holders[i])``.
    """
    s = np.asarray(secret_chunks, dtype=np.uint64)
    x = np.asarray(holders, dtype=np.uint64)
    if t < 1 or x.size < t:
        raise UsageError(f"share: need 1 <= t <= number of holders, got t={t}, m={x.size}")
    if s.size and int(s.max()) >= PRIME:
        raise UsageError("share: secret chunk not in the field")
    coeffs = entropy.uniform(PRIME, (t - 1, s.size))
    if t == 1:
        flat: np.ndarray = np.broadcast_to(s, (x.size, s.size)).copy()
        return flat
    # Horner, in place: every product of two field elements stays below 2^62
    xc = x[:, None]
    acc: np.ndarray = coeffs[-1] * xc
    for k in range(t - 3, -1, -1):
        acc += coeffs[k]
        acc %= _P
        acc *= xc
    acc += s
    acc %= _P
    return acc


def _powmod(a: np.ndarray, e: int) -> np.ndarray:
    result = np.ones_like(a)
    base = a % _P
    while e:
        if e & 1:
            result = (result * base) % _P
        base = (base * base) % _P
        e >>= 1
    return result


def lagrange_at_zero(xs: np.ndarray) -> np.ndarray:
    """Lagrange coefficients at 0 for each row of distinct points ``xs`` (``(U, t)``)."""
    x = np.asarray(xs, dtype=np.uint64)
    u, t = x.shape
    num = np.ones((u, t), np.uint64)
    den = np.ones((u, t), np.uint64)
    for m in range(t):
        for j in range(t):
            if m == j:
                continue
            num[:, j] = (num[:, j] * x[:, m]) % _P
            den[:, j] = (den[:, j] * ((x[:, m] + _P - x[:, j]) % _P)) % _P
    if (den == 0).any():
        raise UsageError("lagrange_at_zero: evaluation points in a row must be distinct")
    result: np.ndarray = (num * _powmod(den, PRIME - 2)) % _P
    return result


def reconstruct(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Reconstruct many secrets at once.

    Parameters
    ----------
    xs:
        ``(U, t)`` evaluation points (holder ids) per secret, distinct per row.
    ys:
        ``(U, t, C)`` the corresponding shares.

    Returns
    -------
    ``(U, C)`` uint64 secrets ``f_u(0)``.
    """
    ys = np.asarray(ys, dtype=np.uint64)
    lam = lagrange_at_zero(xs)
    acc = np.zeros((ys.shape[0], ys.shape[2]), np.uint64)
    for j in range(ys.shape[1]):
        acc = (acc + (lam[:, j, None] * ys[:, j, :]) % _P) % _P
    return acc
