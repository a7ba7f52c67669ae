"""Auditing the RRBA client at the table it was sent (Imran & Meo; docs/rrba.md, true epsilon).

A client answers one subset with ``P(y | x) = p [y = x] + (1 - p) T[y]``
(Algorithm 1, Eq. 3): true epsilon ``max_y ln(1 + p / ((1 - p) T[y]))``,
reached at the *smallest* cell of ``T``; the paper claims ``ln(1 / (1 - p))``
whatever ``T``.  A small-probability event is exactly where the mechanism
leaks, so an auditor that picks its event uniformly (or looks at the
frequent cells) misses most of it.  :func:`smallest_cell_test` targets it:

* candidates ``x_0`` = the smallest cell ``c`` of ``T``, ``x_1`` = the largest;
* guess ``x_0`` when the answer is ``c``, abstain otherwise.

The precision of that guess is ``(p + (1-p) T_c) / (p + 2 (1-p) T_c)``, i.e.
``e^eps / (e^eps + 1)`` at the true epsilon: the test is tight, and its
lower bound exceeds the paper's figure wherever the true epsilon does (every
table with two cells or more) once the trials resolve the gap.

The mechanism (:class:`RRBAClientMechanism`) answers with the client's own
arithmetic (:func:`mpc_rr.rrba.answers_from_uniforms` on the table's
CDF): the function the RRBA client role (:class:`mpc_rr.rrba.RRBAClient`) calls
through ``answer_packed``; a test checks that the role, sent table ``T``,
answers exactly as this mechanism does with the same generator.
"""

from __future__ import annotations

import math

import numpy as np

from mpc_rr.adversary._designs import GuessingTest
from mpc_rr.core import UsageError
from mpc_rr.rrba import answers_from_uniforms, paper_epsilon, table_epsilon
from mpc_rr.rrba._client import cdf_table, check_p
from mpc_rr.rrba._privacy import implied_matrix
from mpc_rr.rrba._tables import Layout

__all__ = ["RRBAClientMechanism", "smallest_cell_test", "uniform_event_test"]


class RRBAClientMechanism:
    """One RRBA answer over a table of ``cells`` cells (flat, row-major), at keep probability ``p``.

    A :class:`~mpc_rr.mechanisms.JointMechanism` (``sizes``, ``epsilon``,
    ``perturb``) for the auditor; ``epsilon`` is the true value (max column
    ratio), ``paper_epsilon`` the paper's ``ln(1/(1-p))``.
    """

    def __init__(self, table: np.ndarray, p: float) -> None:
        t = np.asarray(table, dtype=float).reshape(-1)
        if t.size < 1 or (t < 0).any() or not math.isclose(float(t.sum()), 1.0, abs_tol=1e-6):
            raise UsageError(f"table must be a probability vector (>= 0, sum 1), got {t.tolist()[:8]}")
        self.p = check_p(p)
        self.table = t / t.sum()
        self._layout = Layout((t.size,))
        self._cdf = cdf_table(self.table[None, :], self._layout)

    @property
    def sizes(self) -> tuple[int, ...]:
        return (int(self.table.size),)

    @property
    def epsilon(self) -> float:
        return float(table_epsilon(self.table[None, :], self._layout, self.p)[0])

    @property
    def paper_epsilon(self) -> float:
        return paper_epsilon(self.p)

    def dense(self) -> np.ndarray:
        return implied_matrix(self.table, self.p)

    def perturb(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Answers of ``len(codes)`` clients (two uniforms each, as the client draws them)."""
        c = np.asarray(codes)
        flat = c.reshape(-1).astype(np.int64)
        u = rng.random((2, flat.size))
        ans = answers_from_uniforms(flat, np.zeros(flat.size, np.int64), u[0], u[1], self._cdf, self.p)
        return np.asarray(ans, dtype=c.dtype).reshape(c.shape)

    def __repr__(self) -> str:
        return f"RRBAClientMechanism(cells={self.table.size}, p={self.p:g}, T_min={self.table.min():.4g})"


def smallest_cell_test(mechanism: RRBAClientMechanism) -> GuessingTest:
    """``x_0`` = the smallest cell of ``T``, ``x_1`` = the largest; guess ``x_0`` on answer ``x_0``."""
    t = mechanism.table
    if t.size < 2:
        raise UsageError("a one-cell table cannot be audited (nothing to tell apart)")
    c = int(np.argmin(t))
    other = int(np.argmax(np.where(np.arange(t.size) == c, -np.inf, t)))
    guess = np.full(t.size, -1, np.int64)
    guess[c] = 0
    return GuessingTest(
        mechanism.sizes, np.array([[c], [other]]), guess,
        f"smallest cell of T: cell {c} (T = {t[c]:.4g}) vs cell {other}",
    )  # fmt: skip


def uniform_event_test(mechanism: RRBAClientMechanism, rng: np.random.Generator) -> GuessingTest:
    """The same design on an event drawn uniformly among the cells (what a naive auditor does)."""
    t = mechanism.table
    if t.size < 2:
        raise UsageError("a one-cell table cannot be audited (nothing to tell apart)")
    c = int(rng.integers(t.size))
    other = int((c + 1 + rng.integers(t.size - 1)) % t.size)
    guess = np.full(t.size, -1, np.int64)
    guess[c] = 0
    return GuessingTest(
        mechanism.sizes, np.array([[c], [other]]), guess,
        f"event drawn uniformly: cell {c} (T = {t[c]:.4g}) vs cell {other}",
    )  # fmt: skip
