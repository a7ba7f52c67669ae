"""Distributed noise in RRBA's secure block tallies: the calibration and the consistent counts.

With ``dp_epsilon`` every client of a block adds its share of Skellam noise to its one-hot
answer vector inside the block's secure sum
(:class:`~mpc_rr.secure_sum._noisy_sum.NoisySum`), calibrated for the fewest honest
survivors the sum protocol's bounds leave in a block of ``m`` clients.

**Sensitivity.**  A client answers at most ``L`` tables (the longest view), one 1 in each
table's cells; replacing its record moves, in each of them, one 1 to another cell:
``L1 = 2L``, ``Linf = 1`` (replace-one, the ledger's relation).  Blocks hold disjoint
clients, so each client's record is in one block's tally: the run's central ``(epsilon,
delta)`` per record is its block's (parallel composition; later blocks only post-process
the earlier ones' output through the tables they are asked).

**Consistent counts.**  The aggregator's estimators take, per table, non-negative integer
counts summing to the answers the table received.  The noisy counts ``c`` of a table with
``t`` answers are replaced by ``t`` times the Euclidean projection of ``c / t`` onto the
probability simplex, rounded by largest remainders (:func:`consistent_counts`): a
post-processing of the noisy release, so it changes no privacy figure.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.estimation._frequencies import project_simplex
from mpc_rr.privacy import Sensitivity
from mpc_rr.secure_sum._noisy_sum import NoisySum, plan_noisy_sum

__all__ = ["consistent_counts", "tally_noise", "tally_sensitivity"]


def tally_sensitivity(view_tables: int) -> Sensitivity:
    """``L1 = 2L``, ``L2 = sqrt(2L)``, ``Linf = 1`` for answers to ``L`` tables (module docstring)."""
    if view_tables < 1:
        raise UsageError(f"view_tables must be >= 1, got {view_tables}")
    cells = 2 * int(view_tables)
    return Sensitivity(l1=cells, l2=math.sqrt(cells), linf=1, relation="replace-one")


@lru_cache(maxsize=32)
def tally_noise(
    protocol: str, options: Any, clients: int, cells: int, view_tables: int, epsilon: float, delta: float
) -> NoisySum:
    """The noise of one block's tally among ``clients`` clients over ``cells`` cells."""
    return plan_noisy_sum(protocol, clients, cells=cells, epsilon=epsilon, delta=delta,
                          sensitivity=tally_sensitivity(view_tables), options=options)  # fmt: skip


def consistent_counts(noisy: np.ndarray, answers: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per table (rows of ``noisy``, its real cells ``mask``): non-negative integers summing
    to ``answers[s]`` closest to the noisy counts (module docstring); 0 in padding cells."""
    c = np.asarray(noisy, dtype=float)
    t = np.asarray(answers, dtype=np.int64)
    out = np.zeros(c.shape, np.int64)
    for s in np.flatnonzero(t > 0).tolist():
        cells = np.flatnonzero(mask[s])
        share = project_simplex(c[s, cells] / t[s]) * t[s]
        whole = np.floor(share).astype(np.int64)
        rest = int(t[s] - whole.sum())
        if rest > 0:  # largest remainders first (stable: the lower cell on ties)
            whole[np.argsort(-(share - whole), kind="stable")[:rest]] += 1
        out[s, cells] = whole
    return out
