"""Pieces shared by the secure-sum protocols: the result record and array checks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpc_rr.core import DecodeError, PeerError, UsageError, WireArray
from mpc_rr.secure_sum._entropy import smallest_uint

__all__ = ["SumResult", "check_inputs", "read_residues"]


@dataclass(frozen=True)
class SumResult:
    """Outcome of one secure-sum run as seen by one role.

    Attributes
    ----------
    total:
        The aggregate vector (int64), already reduced modulo ``modulus``; it
        equals the plain sum of the included inputs because ``modulus``
        exceeds every possible sum.
    included:
        Ids of the parties whose inputs are in ``total`` (known to the
        aggregator; data parties of the full mesh know all ``1..n``; SecAgg
        clients only learn the count).
    n_included:
        ``len(included)`` when known, else the count announced by the server
        (``-1``: not told, e.g. a plaintext sum's client).
    modulus:
        The modulus of the arithmetic (0: plain integers, no reduction).
    """

    total: np.ndarray
    included: tuple[int, ...]
    n_included: int
    modulus: int


def check_inputs(x: np.ndarray, modulus: int, n: int, name: str = "x") -> np.ndarray:
    """Validate one party's private input vector for a sum of ``n`` such vectors mod ``modulus``.

    The caller (not a peer) supplies ``x``, so problems raise :class:`UsageError`.
    """
    a = np.asarray(x)
    if a.ndim != 1:
        raise UsageError(f"{name} must be a 1-D vector, got shape {a.shape}")
    if a.dtype.kind not in "biu":
        raise UsageError(f"{name} must hold integers, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or int(a.max()) * n >= modulus):
        raise UsageError(
            f"{name} entries must be in [0, {(modulus - 1) // n}] so that the sum of {n} "
            f"inputs stays below modulus {modulus}; got range [{a.min()}, {a.max()}]"
        )
    return a.astype(np.uint64)


def read_residues(w: WireArray, modulus: int, cells: int, sender: int, what: str) -> np.ndarray:
    """Decode a vector of residues mod ``modulus`` sent by peer ``sender``.

    Checks dtype (the smallest unsigned type holding the modulus), shape and
    range; any problem raises :class:`~mpc_rr.core.PeerError` naming the peer.
    """
    dt = smallest_uint(modulus)
    try:
        a = w.to_numpy(dtype=dt, shape=(cells,), sender=sender)
    except DecodeError as exc:
        raise DecodeError(f"{what}: {exc}", sender) from None
    if a.size and int(a.max()) >= modulus:
        raise PeerError(
            f"{what} from party {sender}: value {int(a.max())} out of range [0, {modulus})",
            sender,
        )
    return a
