"""Pairwise-RR releases and what each channel delivers of them (Sec. 4.3).

Domingo-Ferrer & Soria-Comas, Sec. 4.3: every party randomizes each of its
``m(m-1)/2`` attribute pairs (:func:`release_pairs`, the project's pair
mechanisms) and submits them.  :func:`observe` turns a release into the view
of one channel -- ``direct`` (authenticated sender per report), ``anonymous``
(one message per report, no sender, a perfect mix) or ``secure-sum`` (per-cell
totals only) -- plus the ground truth the evaluation needs (who owns each
element), which the attacker never sees.

The totals of the secure sum *are* the multiset a perfect mix delivers
(:func:`expand_totals`): the two views carry the same information.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.adversary._choices import LINK_CHANNELS
from mpc_rr.adversary._stats import check_count
from mpc_rr.core import UsageError
from mpc_rr.mdrr import PairLayout
from mpc_rr.mdrr._pairwise import perturb_pairs
from mpc_rr.mechanisms import JointMechanism

__all__ = ["CHANNELS", "ChannelView", "PairwiseRelease", "expand_totals", "observe", "release_pairs"]

Pair = tuple[int, int]
CHANNELS = LINK_CHANNELS


@dataclass(frozen=True, eq=False)
class PairwiseRelease:
    """Every party's pairwise-RR reports; ``reports[i, t]`` is party ``i``'s cell of pair ``t``.

    Ground truth for evaluation; the aggregator sees a :class:`ChannelView` of it.
    Cells are row-major in the pair's domain (``a * |A_j| + b``), pairs in
    :class:`~mpc_rr.mdrr.PairLayout` order (``i < j``, lexicographic).
    """

    sizes: tuple[int, ...]
    pairs: tuple[Pair, ...]
    mechanisms: tuple[JointMechanism, ...]
    reports: np.ndarray

    @property
    def parties(self) -> int:
        return int(self.reports.shape[0])

    def cells(self, t: int) -> int:
        i, j = self.pairs[t]
        return self.sizes[i] * self.sizes[j]


def release_pairs(
    codes: np.ndarray,
    sizes: Sequence[int],
    mechanisms: Sequence[JointMechanism] | Mapping[Pair, JointMechanism] | Callable[[Pair], JointMechanism],
    rng: np.random.Generator,
) -> PairwiseRelease:
    """Randomize every attribute pair of every record (Sec. 4.3 step 3a), vectorized per pair.

    ``mechanisms``: one per pair in layout order (e.g.
    :func:`mpc_rr.mdrr.pair_mechanisms`), a mapping ``{(i, j): mechanism}``,
    or a callable ``(|A_i|, |A_j|) -> mechanism``.  The draws are those of
    :func:`mpc_rr.mdrr.perturb_pairs`, the pipeline's own.
    """
    lay = PairLayout(tuple(int(s) for s in sizes))
    c = np.asarray(codes)
    if c.ndim != 2 or c.shape[1] != len(lay.sizes):
        raise UsageError(f"codes must have shape (n, {len(lay.sizes)}), got {c.shape}")
    check_count(c.shape[0], "parties (rows of codes)", 2)
    mechs: list[JointMechanism] = []
    for t, (i, j) in enumerate(lay.pairs):
        if isinstance(mechanisms, Mapping):
            mechs.append(mechanisms[(i, j)])
        elif callable(mechanisms):
            mechs.append(mechanisms((lay.sizes[i], lay.sizes[j])))
        else:
            if len(mechanisms) != len(lay.pairs):
                raise UsageError(
                    f"need one mechanism per pair: {len(lay.pairs)} pairs, got {len(mechanisms)}"
                )
            mechs.append(mechanisms[t])
    # the one Sec. 4.3 implementation (the pipeline's parties use it too); it checks the sizes
    pairs = perturb_pairs(c, lay, mechs, rng)
    j_sizes = np.array([lay.sizes[j] for _, j in lay.pairs], np.int64)
    reports = pairs[..., 0] * j_sizes + pairs[..., 1]
    return PairwiseRelease(lay.sizes, lay.pairs, tuple(mechs), reports)


@dataclass(frozen=True, eq=False)
class ChannelView:
    """What the aggregator receives over one channel (and nothing else).

    ``elements[t]``: the pair-``t`` reports in arrival order (direct, anonymous);
    ``senders[t]``: the authenticated sender of each (direct only);
    ``totals[t]``: the count of each cell (secure-sum only).
    """

    channel: str
    parties: int
    sizes: tuple[int, ...]
    pairs: tuple[Pair, ...]
    elements: tuple[np.ndarray, ...] | None = None
    senders: tuple[np.ndarray, ...] | None = None
    totals: tuple[np.ndarray, ...] | None = None

    def counts(self, t: int) -> np.ndarray:
        """Cell counts of pair ``t`` (every channel reveals them)."""
        i, j = self.pairs[t]
        if self.totals is not None:
            return self.totals[t]
        assert self.elements is not None
        return np.asarray(np.bincount(self.elements[t], minlength=self.sizes[i] * self.sizes[j]))


def expand_totals(totals: np.ndarray) -> np.ndarray:
    """The multiset a histogram stands for, as elements sorted by cell."""
    return np.asarray(np.repeat(np.arange(totals.size), np.asarray(totals, dtype=np.int64)))


def observe(
    release: PairwiseRelease, channel: str, rng: np.random.Generator
) -> tuple[ChannelView, tuple[np.ndarray, ...]]:
    """The aggregator's view of a release, and the owners of its elements (ground truth).

    ``owners[t][e]`` is the party of element ``e`` of pair ``t`` in the order
    the attack enumerates them (for ``secure-sum``, the sorted expansion of the
    totals; parties sharing a cell are exchangeable, so they are assigned to
    those elements in a random order).  Arrival orders are random permutations
    drawn from ``rng``.
    """
    if channel not in CHANNELS:
        raise UsageError(f"channel must be one of {CHANNELS}, got {channel!r}")
    n, npairs = release.reports.shape
    owners: list[np.ndarray] = []
    if channel == "secure-sum":
        totals = []
        for t in range(npairs):
            y = release.reports[:, t]
            totals.append(np.bincount(y, minlength=release.cells(t)))
            owners.append(np.lexsort((rng.random(size=int(n)), y)))  # sorted by cell, random within
        view = ChannelView(channel, n, release.sizes, release.pairs, totals=tuple(totals))
        return view, tuple(owners)
    elements, senders = [], []
    for t in range(npairs):
        perm = rng.permutation(n)
        owners.append(perm)
        elements.append(release.reports[perm, t])
        senders.append(perm)
    view = ChannelView(
        channel, n, release.sizes, release.pairs, elements=tuple(elements),
        senders=tuple(senders) if channel == "direct" else None,
    )
    return view, tuple(owners)
