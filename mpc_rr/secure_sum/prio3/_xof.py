"""XofTurboShake128 (draft-irtf-cfrg-vdaf-20, Sec. 6.2.1) on pycryptodome's TurboSHAKE128 (RFC 9861).

The XOF absorbs ``len(dst) (2 bytes LE) || dst || len(seed) (1 byte) || seed
|| binder`` with domain byte 1 and is squeezed as one stream: successive
:meth:`XofTurboShake128.next` calls return consecutive slices of it (the
draft's "absorb-then-squeeze" implementation note).  Field vectors are drawn
by rejection sampling (``next_vec``): each ``ENCODED_SIZE``-byte word is
masked to the bit length of the modulus and kept when below it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from Crypto.Hash import TurboSHAKE128

from mpc_rr.secure_sum.prio3._field import Field

__all__ = ["SEED_SIZE", "XofTurboShake128", "format_dst"]

SEED_SIZE = 32
VERSION = 18  # the draft's global VERSION constant (Sec. 2)


def format_dst(algo_class: int, algo: int, usage: int) -> bytes:
    """The draft's ``format_dst``: version, class, algorithm id (4 bytes), usage (2 bytes), big-endian."""
    return (
        VERSION.to_bytes(1, "big")
        + algo_class.to_bytes(1, "big")
        + algo.to_bytes(4, "big")
        + usage.to_bytes(2, "big")
    )


class XofTurboShake128:
    """The draft's XofTurboShake128 (module docstring)."""

    SEED_SIZE = SEED_SIZE

    def __init__(self, seed: bytes, dst: bytes, binder: bytes) -> None:
        if len(seed) > 255:
            raise ValueError(f"XOF seed of {len(seed)} bytes exceeds 255")
        if len(dst) > 65535:
            raise ValueError(f"XOF domain separation tag of {len(dst)} bytes exceeds 65535")
        self._h: Any = TurboSHAKE128.new(domain=1)
        self._h.update(
            len(dst).to_bytes(2, "little") + dst + len(seed).to_bytes(1, "little") + seed + binder
        )

    def next(self, length: int) -> bytes:
        """The next ``length`` bytes of the stream."""
        out: bytes = self._h.read(length)
        return out

    def next_vec(self, field: type[Field], length: int) -> Any:
        """The next ``length`` field elements (rejection sampling, in stream order).

        The draft masks each word to the modulus' bit length first; both fields'
        moduli have the word's full length (``p > 2^63``, ``p > 2^127``), so the
        mask clears nothing and is left out."""
        kept: list[Any] = []
        have = 0
        need = length
        while need > 0:
            raw = field.parse(self.next(need * field.ENCODED_SIZE))
            ok = field.below_modulus(raw)
            kept.append(raw[ok])
            have += int(ok.sum())
            need = length - have
        return np.concatenate(kept) if len(kept) > 1 else kept[0]

    @classmethod
    def derive_seed(cls, seed: bytes, dst: bytes, binder: bytes) -> bytes:
        """A fresh seed derived from ``seed`` (the draft's ``derive_seed``)."""
        return cls(seed, dst, binder).next(cls.SEED_SIZE)

    @classmethod
    def expand_into_vec(
        cls, field: type[Field], seed: bytes, dst: bytes, binder: bytes, length: int
    ) -> Any:
        """``length`` field elements expanded from ``seed`` (the draft's ``expand_into_vec``)."""
        if length == 0:
            return field.zeros(0)
        return cls(seed, dst, binder).next_vec(field, length)
