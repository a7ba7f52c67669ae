"""Randomized response on each pair of attributes (Domingo-Ferrer & Soria-Comas, Sec. 4.3).

The ONE implementation of Section 4.3, used by the pipeline's data parties,
by the centralized reproductions and by the adversary module:

* :func:`pair_mechanisms` -- keep-or-uniform(p) over each pair's joint
  domain ``|A_i| x |A_j|``, pairs ``i < j`` in lexicographic order (any
  :class:`~mpc_rr.mechanisms.JointMechanism` can be passed instead);
* :func:`perturb_pairs` -- randomize every pair of every record, vectorized
  over records, pair by pair: for one party, call it with its one record and
  its own generator (the draws are then the same as in a distributed run);
* :func:`pair_cells` -- the one-hot cell indices in the secure-sum vector
  (:class:`~mpc_rr.mdrr.PairLayout`);
* :func:`estimate_pair_tables` -- each pair's table estimated from the
  counts of randomized pairs by Eq. 2 plus ONE repair rule (the ``method`` of
  :func:`~mpc_rr.estimation.estimate_distribution`; with ``"none"`` the raw
  estimate is kept and only clipped at zero for measuring dependence);
* :func:`composed_epsilons` -- per-attribute epsilon under sequential (sum)
  and parallel (max, the paper's unlinkability argument) composition.

Each pair's epsilon is the exact local epsilon of its matrix (docs/rr_library.md, decision 1).
Whether unlinkability holds is measured by :mod:`mpc_rr.adversary` (note 7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data import Schema
from mpc_rr.estimation import Estimate, dependence_matrix_from_tables, estimate_distribution
from mpc_rr.mdrr._pair_cells import PairLayout
from mpc_rr.mechanisms import JointMechanism, keep_or_uniform

__all__ = [
    "PairTables",
    "composed_epsilons",
    "estimate_pair_tables",
    "pair_cells",
    "pair_dependences",
    "pair_mechanisms",
    "perturb_pairs",
]

Pair = tuple[int, int]


def pair_mechanisms(sizes: Sequence[int], p: float) -> list[JointMechanism]:
    """Keep-or-uniform(p) over each pair's joint domain, pairs ``(i < j)`` in order."""
    m = len(sizes)
    return [keep_or_uniform((sizes[i], sizes[j]), p) for i in range(m) for j in range(i + 1, m)]


def _check(layout: PairLayout, mechanisms: Sequence[JointMechanism]) -> None:
    if len(mechanisms) != len(layout.pairs):
        raise UsageError(
            f"need one mechanism per attribute pair ({len(layout.pairs)}), got {len(mechanisms)}"
        )
    for (i, j), mech in zip(layout.pairs, mechanisms, strict=True):
        want = (layout.sizes[i], layout.sizes[j])
        if tuple(mech.sizes) != want:
            raise UsageError(f"mechanism of pair ({i}, {j}) has sizes {mech.sizes}, need {want}")


def perturb_pairs(
    codes: np.ndarray,
    layout: PairLayout,
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator,
) -> np.ndarray:
    """Randomized pairs of every record: ``(n, pairs, 2)`` codes, drawn pair by pair."""
    c = np.asarray(codes)
    if c.ndim != 2 or c.shape[1] != len(layout.sizes):
        raise UsageError(f"codes must have shape (n, {len(layout.sizes)}), got {c.shape}")
    _check(layout, mechanisms)
    out = np.empty((c.shape[0], len(layout.pairs), 2), np.int64)
    for k, ((i, j), mech) in enumerate(zip(layout.pairs, mechanisms, strict=True)):
        out[:, k] = mech.perturb(c[:, [i, j]], rng)
    return out


def pair_cells(pairs: np.ndarray, layout: PairLayout) -> np.ndarray:
    """Cell index in the secure-sum vector of each randomized pair: ``(n, pairs)``."""
    j_sizes = np.array([layout.sizes[j] for _, j in layout.pairs], np.int64)
    cells: np.ndarray = layout.offsets[:-1] + pairs[..., 0] * j_sizes + pairs[..., 1]
    return cells


@dataclass(frozen=True)
class PairTables:
    """Eq. 2 estimates of every pair and the estimated count tables (distribution x reports)."""

    estimates: dict[Pair, Estimate]
    tables: dict[Pair, np.ndarray]


def estimate_pair_tables(
    observed: Mapping[Pair, np.ndarray],
    mechanisms: Sequence[JointMechanism],
    layout: PairLayout,
    method: str = "clip",
) -> PairTables:
    """Estimated tables of every pair from the counts of its randomized values.

    Eq. 2 (``P^T pi = lambda``) with ``method``'s repair, scaled by the number
    of reports of that pair.
    """
    _check(layout, mechanisms)
    ests: dict[Pair, Estimate] = {}
    tables: dict[Pair, np.ndarray] = {}
    for pair, mech in zip(layout.pairs, mechanisms, strict=True):
        table = np.asarray(observed[pair])
        ests[pair] = estimate_distribution(mech, table, method)
        tables[pair] = np.asarray(ests[pair].distribution).reshape(table.shape) * table.sum()
    return PairTables(ests, tables)


def pair_dependences(tables: Mapping[Pair, np.ndarray], schema: Schema) -> np.ndarray:
    """Dependence matrix from (estimated) pair tables; negative cells count as zero."""
    return dependence_matrix_from_tables(
        {k: np.clip(t, 0, None) for k, t in tables.items()}, schema
    )


def composed_epsilons(pair_epsilon: Mapping[Pair, float], m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-attribute epsilon under sequential (sum) and parallel (max) composition."""
    seq = np.zeros(m)
    par = np.zeros(m)
    for (i, j), eps in pair_epsilon.items():
        for a in (i, j):
            seq[a] += eps
            par[a] = max(par[a], eps)
    return seq, par
