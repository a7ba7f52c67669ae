"""Centralized forms of the RR protocols (Domingo-Ferrer & Soria-Comas, Sections 3-5).

These are the pure functions the distributed roles reuse: each party's step
is ``perturb`` on its own record(s), the collector's step is ``estimate`` on
the counts of what it received.

* RR-Independent (Protocol 1): every attribute randomized separately with its
  own mechanism; marginals estimated by Eq. 2; joint = product of marginals.
* RR-Joint (Protocol 2): the attributes of a subset randomized jointly with one
  mechanism over their product domain; the joint distribution estimated by
  Eq. 2.
* RR-Clusters (Section 4): RR-Joint on each cluster of Algorithm 1.
* Adjustment (Section 5) on top of either: see :mod:`mpc_rr.estimation._adjustment`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.estimation import AdjustmentResult, Estimate, estimate_distribution, rr_adjustment
from mpc_rr.estimation._models import FactorModel, WeightedRecords
from mpc_rr.mechanisms import JointMechanism, UniformMixture

__all__ = [
    "GroupRelease",
    "adjust",
    "joint_counts",
    "perturb_record",
    "release_groups",
    "rr_clusters",
    "rr_independent",
    "rr_joint",
]


@dataclass(frozen=True)
class GroupRelease:
    """A randomized release of a data set, group by group, and its estimate.

    ``randomized`` is the released data set Y (``(n, m)`` codes); ``groups``
    the attribute groups randomized jointly; ``estimates`` one
    :class:`Estimate` per group; ``model`` the product of the group estimates.
    """

    sizes: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    mechanisms: tuple[JointMechanism, ...]
    randomized: np.ndarray
    estimates: tuple[Estimate, ...]

    @property
    def model(self) -> FactorModel:
        return FactorModel(
            self.sizes,
            self.groups,
            tuple(
                e.distribution.reshape(tuple(self.sizes[i] for i in g))
                for g, e in zip(self.groups, self.estimates, strict=True)
            ),
        )

    @property
    def epsilon(self) -> float:
        """Per-party epsilon of the release: groups compose sequentially (sum)."""
        return float(sum(m.epsilon for m in self.mechanisms))

    def raw(self) -> WeightedRecords:
        """The randomized data taken at face value (the paper's "Randomized")."""
        n = self.randomized.shape[0]
        return WeightedRecords(self.sizes, self.randomized, np.full(n, 1.0 / n))


def joint_counts(codes: np.ndarray, group: Sequence[int], sizes: Sequence[int]) -> np.ndarray:
    """Counts of each value combination of ``group`` in ``codes``, shaped by their sizes."""
    dims = tuple(int(sizes[i]) for i in group)
    g = list(group)
    idx = np.ravel_multi_index(tuple(codes[:, g].T), dims) if len(g) > 1 else codes[:, g[0]]
    return np.bincount(idx, minlength=math.prod(dims)).reshape(dims).astype(float)


def release_groups(
    codes: np.ndarray,
    sizes: Sequence[int],
    groups: Sequence[Sequence[int]],
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator | Sequence[np.random.Generator],
    *,
    method: str = "clip",
) -> GroupRelease:
    """Randomize each group jointly with its mechanism and estimate each group (Eq. 2).

    Groups must partition the attributes.  ``rng`` is either one generator
    (vectorized over records, group by group) or one generator per record:
    then record ``i`` is randomized exactly as party ``i`` does it in the
    distributed protocol (:func:`perturb_record`), so both give identical
    releases and estimates for the same per-party seeds.
    """
    c = np.asarray(codes)
    sizes = tuple(int(s) for s in sizes)
    if c.ndim != 2 or c.shape[1] != len(sizes) or c.shape[0] == 0:
        raise UsageError(f"codes must be (n>0, {len(sizes)}), got {c.shape}")
    groups_t = tuple(tuple(int(i) for i in g) for g in groups)
    if sorted(i for g in groups_t for i in g) != list(range(len(sizes))):
        raise UsageError(f"groups {groups_t} must partition attributes 0..{len(sizes) - 1}")
    if len(mechanisms) != len(groups_t):
        raise UsageError(f"need one mechanism per group: {len(mechanisms)} for {len(groups_t)}")
    y = np.empty_like(c)
    ests = []
    for g, mech in zip(groups_t, mechanisms, strict=True):
        want = tuple(sizes[i] for i in g)
        if tuple(mech.sizes) != want and not (
            len(mech.sizes) == 1 and mech.sizes[0] == math.prod(want)
        ):
            raise UsageError(f"mechanism for group {g} has sizes {mech.sizes}, expected {want}")
        part = c[:, list(g)]
        if isinstance(rng, np.random.Generator):
            out = _perturb_group(mech, part, want, rng)
        else:
            if len(rng) != c.shape[0]:
                raise UsageError(f"need one generator per record: {len(rng)} for {c.shape[0]}")
            out = np.concatenate(
                [_perturb_group(mech, part[i : i + 1], want, r) for i, r in enumerate(rng)]
            )
        y[:, list(g)] = out.reshape(-1, len(g))
        counts = joint_counts(y, g, sizes)
        obs = counts if len(mech.sizes) == len(g) else counts.reshape(-1)
        ests.append(estimate_distribution(mech, obs, method))
    return GroupRelease(sizes, groups_t, tuple(mechanisms), y, tuple(ests))


def _perturb_group(
    mech: JointMechanism, part: np.ndarray, dims: tuple[int, ...], rng: np.random.Generator
) -> np.ndarray:
    """Perturb ``(n, len(dims))`` codes of one group; dense mechanisms act on the flat joint index."""
    if len(mech.sizes) == 1 and len(dims) > 1:
        flat = np.ravel_multi_index(tuple(part.T), dims)
        return np.stack(np.unravel_index(mech.perturb(flat, rng), dims), axis=1)
    return mech.perturb(part if len(dims) > 1 else part[:, 0], rng).reshape(-1, len(dims))


def perturb_record(
    record: np.ndarray,
    sizes: Sequence[int],
    groups: Sequence[Sequence[int]],
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator,
) -> np.ndarray:
    """One party's randomized record: each group perturbed jointly, in order, from ``rng``.

    When every mechanism is keep-or-uniform (:class:`~mpc_rr.mechanisms.UniformMixture`:
    the per-attribute release and the cluster matrix) the draws are made in one
    call -- ``rng.random(k)`` is the same stream as ``k`` calls of ``rng.random()``
    -- and the groups are decoded with Python arithmetic: the same output, about
    ten times cheaper per party (thousands of parties per core).
    """
    if all(type(m) is UniformMixture for m in mechanisms):
        return _perturb_record_mixtures(record, sizes, groups, mechanisms, rng)
    rec = np.asarray(record).reshape(1, -1)
    out = np.empty_like(rec)
    for g, mech in zip(groups, mechanisms, strict=True):
        g = list(g)
        out[:, g] = _perturb_group(mech, rec[:, g], tuple(int(sizes[i]) for i in g), rng)
    result: np.ndarray = out[0]
    return result


def _perturb_record_mixtures(
    record: np.ndarray,
    sizes: Sequence[int],
    groups: Sequence[Sequence[int]],
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator,
) -> np.ndarray:
    """:func:`perturb_record` for keep-or-uniform mechanisms (one uniform per group, in order)."""
    rec = np.asarray(record)
    vals = rec.reshape(-1).tolist()
    for j, (v, s) in enumerate(zip(vals, sizes, strict=True)):
        if not 0 <= v < s:
            raise UsageError(f"codes: record 0, attribute {j}: code {v} outside 0..{s - 1}")
    us = rng.random(len(mechanisms)).tolist()
    for g, mech, u in zip(groups, mechanisms, us, strict=True):
        assert isinstance(mech, UniformMixture)
        a = mech.keep
        if a >= 1.0 or u < a:
            continue
        n_cells = mech.N
        cell = min(int((u - a) * (n_cells / (1.0 - a))), n_cells - 1)
        for i in reversed(list(g)):  # the joint cell in C order over the group's attributes
            cell, vals[i] = divmod(cell, int(sizes[i]))
    return np.asarray(vals, dtype=rec.dtype).reshape(rec.shape)


def rr_independent(
    codes: np.ndarray,
    sizes: Sequence[int],
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator | Sequence[np.random.Generator],
    *,
    method: str = "clip",
) -> GroupRelease:
    """Protocol 1: each attribute randomized separately (one mechanism per attribute)."""
    return release_groups(
        codes, sizes, [(j,) for j in range(len(sizes))], mechanisms, rng, method=method
    )


def rr_joint(
    codes: np.ndarray,
    sizes: Sequence[int],
    attributes: Sequence[int],
    mechanism: JointMechanism,
    rng: np.random.Generator,
    *,
    method: str = "clip",
) -> Estimate:
    """Protocol 2 on a subset of attributes: the estimated joint distribution of ``attributes``."""
    c = np.asarray(codes)[:, list(attributes)]
    sub = tuple(int(sizes[i]) for i in attributes)
    rel = release_groups(c, sub, [tuple(range(len(sub)))], [mechanism], rng, method=method)
    return rel.estimates[0]


def rr_clusters(
    codes: np.ndarray,
    sizes: Sequence[int],
    clusters: Sequence[Sequence[int]],
    mechanisms: Sequence[JointMechanism],
    rng: np.random.Generator | Sequence[np.random.Generator],
    *,
    method: str = "clip",
) -> GroupRelease:
    """RR-Clusters: RR-Joint on every cluster (clusters from Algorithm 1)."""
    return release_groups(codes, sizes, clusters, mechanisms, rng, method=method)


def adjust(
    release: GroupRelease, *, tol: float = 1e-9, max_iter: int = 100, method: str = "anderson"
) -> tuple[WeightedRecords, AdjustmentResult]:
    """RR-Adjustment (Algorithm 2) of a release towards its own group estimates
    (``method``: ``anderson``, accelerated, or ``plain``; see :mod:`mpc_rr.estimation._adjustment`)."""
    res = rr_adjustment(
        release.randomized,
        release.sizes,
        release.groups,
        [e.distribution for e in release.estimates],
        tol=tol,
        max_iter=max_iter,
        method=method,
    )
    return WeightedRecords(release.sizes, release.randomized, res.weights), res
