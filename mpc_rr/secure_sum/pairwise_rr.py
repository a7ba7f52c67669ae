"""Randomized response on each pair of attributes with unlinkable submission (Sec. 4.3).

Domingo-Ferrer & Soria-Comas, Section 4.3: for every attribute pair
``(A_i, A_j)`` each party randomizes its pair value with that pair's matrix
``P_ij`` (any :class:`~mpc_rr.joint.JointMechanism` over the ``|A_i| x |A_j|``
joint domain), all randomized pairs are one-hot encoded into one vector
(:class:`~mpc_rr.pair_cells.PairLayout`) and submitted through a secure sum,
so the aggregator sees only the counts of randomized pairs -- never which pairs
came from the same party.  Each pair's distribution is then estimated with
Eq. 2 (``P_ij^T pi = lambda``) plus the chosen repair (DESIGN note 4), and
dependences come from the estimated tables.

Privacy accounting, per attribute ``A``, side by side:

* **sequential composition**: ``A`` is released ``m - 1`` times (once per pair
  containing it), so its epsilon is the *sum* of those pairs' epsilons;
* **parallel composition** (the paper's argument): the secure sum makes the
  ``m - 1`` releases unlinkable, so the paper takes the level of a single
  release, the *max* over the pairs containing ``A``.

Each pair's epsilon is the exact local epsilon of its matrix (DESIGN note 1),
which bounds the leakage about either attribute of the pair.  Whether
unlinkability really holds is measured by the adversary module (DESIGN note 7).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from mpc_rr.dependence import dependence_matrix_from_tables
from mpc_rr.errors import ProtocolAbort, UsageError
from mpc_rr.estimation import Estimate, estimate_distribution
from mpc_rr.joint import JointMechanism
from mpc_rr.pair_cells import PairLayout
from mpc_rr.schema import Schema
from mpc_rr.secure_sum.simulate import Protocol, SumReport, run_secure_sum

__all__ = ["PairwiseRR", "composed_epsilons", "pairwise_rr"]

Pair = tuple[int, int]


@dataclass(frozen=True)
class PairwiseRR:
    """Estimated pair tables (counts), their dependences and the privacy accounting."""

    tables: dict[Pair, np.ndarray]
    estimates: dict[Pair, Estimate]
    observed: dict[Pair, np.ndarray]
    dependence: np.ndarray
    epsilon_sequential: np.ndarray
    epsilon_parallel: np.ndarray
    report: SumReport


def composed_epsilons(pair_epsilon: Mapping[Pair, float], m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-attribute epsilon under sequential (sum) and parallel (max) composition."""
    seq = np.zeros(m)
    par = np.zeros(m)
    for (i, j), eps in pair_epsilon.items():
        for a in (i, j):
            seq[a] += eps
            par[a] = max(par[a], eps)
    return seq, par


def pairwise_rr(
    codes: np.ndarray,
    schema: Schema,
    mechanism: Callable[[tuple[int, int]], JointMechanism] | Mapping[Pair, JointMechanism],
    rng: np.random.Generator,
    *,
    protocol: Protocol = "secagg",
    method: str = "clip",
    **sum_options: object,
) -> PairwiseRR:
    """Run Section 4.3 over the harness.

    Parameters
    ----------
    mechanism:
        ``mechanism((|A_i|, |A_j|))`` builds each pair's matrix, or a mapping
        ``{(i, j): mechanism}`` for every pair ``i < j``.
    rng:
        Randomness of the perturbation (all parties' draws, vectorized).
    method:
        Repair of the Eq. 2 estimate: ``clip``, ``project``, ``ibu`` or ``none``.
    sum_options:
        Passed to :func:`~mpc_rr.secure_sum.simulate.run_secure_sum` (seed, dropout, ...).
    """
    lay = PairLayout(schema.sizes)
    c = np.asarray(codes)
    if c.ndim != 2 or c.shape[1] != len(schema):
        raise UsageError(f"codes must have shape (n, {len(schema)}), got {c.shape}")
    mechs: dict[Pair, JointMechanism] = {}
    for i, j in lay.pairs:
        sizes = (schema.sizes[i], schema.sizes[j])
        mech = mechanism[(i, j)] if isinstance(mechanism, Mapping) else mechanism(sizes)
        if tuple(mech.sizes) != sizes:
            raise UsageError(f"mechanism of pair ({i}, {j}) has sizes {mech.sizes}, need {sizes}")
        mechs[(i, j)] = mech
    idx = np.empty((c.shape[0], len(lay.pairs)), np.int64)
    for p, (i, j) in enumerate(lay.pairs):
        y = mechs[(i, j)].perturb(c[:, [i, j]], rng)
        idx[:, p] = lay.offsets[p] + y[:, 0] * schema.sizes[j] + y[:, 1]
    x = np.zeros((c.shape[0], lay.cells), np.uint8)
    np.put_along_axis(x, idx, 1, axis=1)
    rep = run_secure_sum(protocol, x, **sum_options)  # type: ignore[arg-type]
    if rep.aborted or rep.total is None or not rep.exact:
        raise ProtocolAbort(f"secure sum failed: {rep.aborted or 'not exact'}")
    observed = lay.decode(rep.total)
    estimates = {k: estimate_distribution(mechs[k], observed[k], method) for k in lay.pairs}
    n = rep.survivors
    tables = {k: e.distribution * n for k, e in estimates.items()}
    # dependence needs non-negative tables: with method="none" negatives are clipped for it
    dep = dependence_matrix_from_tables({k: np.clip(t, 0, None) for k, t in tables.items()}, schema)
    seq, par = composed_epsilons({k: float(m.epsilon) for k, m in mechs.items()}, len(schema))
    return PairwiseRR(tables, estimates, observed, dep, seq, par, rep)
