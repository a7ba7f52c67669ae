"""The class poll that the secure-sum lessons count (:mod:`scenarios.classroom.secure_sums`,
:mod:`scenarios.classroom.secagg_lesson`): each data party votes for one of ``options`` answers
(a one-hot vector, :func:`mpc_rr.secure_sum.party_input`); shares, keys and masks come from
one :class:`~mpc_rr.secure_sum.SeededEntropy` stream per party, so the same seed gives the
same trace."""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from mpc_rr.core import COORDINATOR, DropAt, Role
from mpc_rr.secure_sum import SeededEntropy, party_input
from scenarios.classroom.lesson import vec

__all__ = ["crashed", "entropies", "inner_role", "labels", "names", "poll_inputs", "short_hex", "vote_lines", "vsum"]


def labels(options: int | Sequence[str]) -> tuple[str, ...]:
    """The poll's answers: the labels given, or ``A, B, ...`` for a count of them."""
    if isinstance(options, int):
        return tuple(string.ascii_uppercase[:options])
    return tuple(options)


def poll_inputs(n: int, options: int, seed: int) -> np.ndarray:
    """``(n, options)`` one-hot votes of parties ``1..n`` (uint8)."""
    return np.stack([party_input(i, seed, options) for i in range(1, n + 1)])


def entropies(seed: int) -> Callable[[int], SeededEntropy]:
    """One deterministic stream per party (a teaching trace: never for a deployment)."""
    return lambda pid: SeededEntropy(seed, f"classroom/party-{pid}")


def vote_lines(x: np.ndarray, options: int | Sequence[str]) -> list[str]:
    lab = labels(options)
    return [
        f"  P{i}: votes {lab[int(np.argmax(row))]}  x_{i} = {vec(row)}" for i, row in enumerate(x, 1)
    ]


def vsum(arrays: Iterable[np.ndarray], size: int) -> np.ndarray:
    """Element-wise sum of int vectors (zeros when there are none)."""
    out = np.zeros(size, np.int64)
    for a in arrays:
        out += np.asarray(a, dtype=np.int64)
    return out


def inner_role(role: Role) -> Role:
    while isinstance(role, DropAt):
        role = role.inner
    return role


def crashed(role: Role) -> bool:
    return isinstance(role, DropAt) and role.crashed


def names(n: int, hub: str | None) -> dict[int, str]:
    out = {COORDINATOR: hub} if hub else {}
    out.update({i: f"P{i}" for i in range(1, n + 1)})
    return out


# -- the paper's full mesh (Sec. 4.2) -------------------------------------------------------


def short_hex(b: bytes, n: int = 8) -> str:
    return b[:n].hex() + "..."
