"""Cryptographic randomness for secret shares, masks and keys (injectable).

Secret shares, mask seeds and private keys must never come from numpy's PRNG.  Every
secure-sum role therefore takes an :class:`Entropy` object:

* :class:`SystemEntropy` (the default) reads the operating system's CSPRNG
  (``os.urandom``);
* :class:`SeededEntropy` is a deterministic SHAKE-256 stream for tests and
  reproducible teaching traces -- never for real deployments.

Uniform residues modulo ``m`` are drawn by **rejection sampling** on 32- or
64-bit words (:meth:`Entropy.uniform`): a word ``w`` is accepted when
``w < 2^b - (2^b mod m)``, so every accepted residue ``w mod m`` is exactly
uniform (no modulo bias).  Rejected words are redrawn; the rejection rate is
below ``m / 2^b`` (at most 2^-8 with the word-size rule used here).
"""

from __future__ import annotations

import hashlib
import math
import os

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["Entropy", "SeededEntropy", "SystemEntropy", "smallest_uint"]

_U4, _U8 = np.dtype("<u4"), np.dtype("<u8")


def smallest_uint(modulus: int) -> np.dtype:
    """Smallest unsigned numpy dtype holding every residue ``0 .. modulus - 1``.

    >>> smallest_uint(32_562)
    dtype('uint16')
    """
    if modulus < 2:
        raise UsageError(f"modulus must be >= 2, got {modulus}")
    for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
        if modulus - 1 <= np.iinfo(dt).max:
            return np.dtype(dt)
    raise UsageError(f"modulus {modulus} does not fit in 64 bits")


class Entropy:
    """A source of cryptographically strong random bytes.

    Subclasses implement :meth:`randbytes`; the derived helpers draw keys and
    exactly uniform residues.
    """

    def randbytes(self, n: int) -> bytes:  # pragma: no cover - abstract
        raise NotImplementedError

    def key(self, nbytes: int = 32) -> bytes:
        """A fresh secret key / seed of ``nbytes`` bytes."""
        return self.randbytes(nbytes)

    def uniform(self, modulus: int, size: int | tuple[int, ...]) -> np.ndarray:
        """Exactly uniform residues mod ``modulus`` (uint64 array of shape ``size``).

        Rejection sampling: 32-bit words when ``modulus <= 2^24`` (rejection
        rate < 2^-8), else 64-bit words (``modulus <= 2^56``).
        """
        modulus = int(modulus)
        if modulus < 1 or modulus > 2**56:
            raise UsageError(f"uniform: modulus must be in [1, 2^56], got {modulus}")
        shape = (size,) if isinstance(size, int) else tuple(size)
        count = math.prod(shape)
        word = _U4 if modulus <= 2**24 else _U8
        bits = 8 * word.itemsize
        limit = (1 << bits) - ((1 << bits) % modulus)  # accept w < limit
        if count == 0:
            return np.zeros(shape, np.uint64)
        w: np.ndarray = np.frombuffer(self.randbytes(count * word.itemsize), dtype=word)
        if limit >= 1 << bits or int(w.max(initial=0)) < limit:  # the usual case: all accepted
            first: np.ndarray = np.remainder(w, modulus, dtype=word).astype(np.uint64).reshape(shape)
            return first
        # rare: redraw the rejected words (the same bytes as drawing them one batch at a time)
        out = np.empty(count, dtype=np.uint64)
        ok = w.astype(np.uint64) < np.uint64(limit)
        out[ok] = w[ok].astype(np.uint64) % np.uint64(modulus)
        todo = np.flatnonzero(~ok)
        while todo.size:
            w = np.frombuffer(self.randbytes(todo.size * word.itemsize), dtype=word)
            ok = (
                w.astype(np.uint64) < np.uint64(limit)
                if limit < (1 << 64)
                else np.ones(w.size, bool)
            )
            out[todo[ok]] = w[ok].astype(np.uint64) % np.uint64(modulus)
            todo = todo[~ok]
        return out.reshape(shape)


class SystemEntropy(Entropy):
    """The operating system's CSPRNG (``os.urandom``); the default everywhere."""

    def randbytes(self, n: int) -> bytes:
        return os.urandom(int(n))

    def __repr__(self) -> str:
        return "SystemEntropy()"


class SeededEntropy(Entropy):
    """Deterministic SHAKE-256 byte stream -- for tests and teaching traces only.

    Parameters
    ----------
    seed:
        Any integer; with ``label`` it determines the whole stream.
    label:
        Distinguishes independent streams under one seed (e.g. the party id).
    """

    def __init__(self, seed: int, label: int | str = 0) -> None:
        self._prefix = f"mpc_rr.SeededEntropy/{int(seed)}/{label}/".encode()
        self._counter = 0

    def randbytes(self, n: int) -> bytes:
        self._counter += 1
        h = hashlib.shake_256(self._prefix + self._counter.to_bytes(8, "little"))
        return h.digest(int(n))

    def spawn(self, label: int | str) -> SeededEntropy:
        """An independent stream for ``label`` (e.g. one per party)."""
        child = SeededEntropy(0)
        child._prefix = self._prefix + f"{label}/".encode()
        return child

    def __repr__(self) -> str:
        return f"SeededEntropy({self._prefix!r})"
