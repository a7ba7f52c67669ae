"""Views: covers of the attribute subsets by sets of disjoint subsets (Imran & Meo, Sec. 4).

The aggregator splits the ``d`` attributes into *views*; a view is a set of
pairwise disjoint ``k``-attribute subsets, so a client answering every
subset of one view never reports an attribute twice.  A *cover* is a list of
views in which every ``k``-subset of the ``d`` attributes appears in exactly
one view.

* ``k = 2``: a round-robin 1-factorization of the complete graph (the circle
  method).  For even ``d`` it gives ``d - 1`` views of ``d / 2`` pairs; for
  odd ``d`` a phantom attribute is added and the pair it joins is dropped, so
  each of the ``d`` views leaves one attribute out -- exactly the paper's
  running examples (``d = 6``: five views of three pairs; ``d = 5``: five
  views of two pairs).  This is optimal: no cover has fewer views.
* ``k = 1``: one view of all singletons; ``k = d``: one view of one subset.
* ``2 < k < d`` (the paper gives no construction): every ``k``-subset is
  placed exactly once by two greedy constructions (first fit in lexicographic
  order; largest remaining attribute degree first), vectorized with a
  subset-by-attribute membership matrix; the one with fewer views is kept.  Baranyai's theorem says a
  perfect resolution (every view with ``floor(d / k)`` subsets, the lower bound
  ``ceil(C(d, k) / floor(d / k))`` views) exists when ``k`` divides ``d``; the
  greedy one need not reach it, so :attr:`Cover.lower_bound` is reported next
  to :attr:`Cover.n_views`.  Covers of more than :data:`MAX_SUBSETS` subsets
  are refused: each subset would get a vanishing share of the clients.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["MAX_SUBSETS", "Cover", "assign_views", "check_exact", "cover", "pair_cover"]

MAX_SUBSETS = 10_000


@dataclass(frozen=True)
class Cover:
    """Views over ``d`` attributes; ``views[v]`` is a tuple of disjoint sorted subsets."""

    d: int
    k: int
    views: tuple[tuple[tuple[int, ...], ...], ...]

    def __post_init__(self) -> None:
        for v, view in enumerate(self.views):
            flat = [a for s in view for a in s]
            if len(flat) != len(set(flat)):
                raise UsageError(f"Cover: view {v} repeats an attribute: {view}")
            if any(not 0 <= a < self.d for a in flat):
                raise UsageError(f"Cover: view {v} names an attribute outside 0..{self.d - 1}")

    @cached_property
    def subsets(self) -> tuple[tuple[int, ...], ...]:
        """Every subset of the cover, in view order (the table index used everywhere)."""
        return tuple(s for view in self.views for s in view)

    @cached_property
    def view_tables(self) -> tuple[tuple[int, ...], ...]:
        """For each view, the indices into :attr:`subsets` of its subsets."""
        out, i = [], 0
        for view in self.views:
            out.append(tuple(range(i, i + len(view))))
            i += len(view)
        return tuple(out)

    @property
    def n_views(self) -> int:
        return len(self.views)

    @property
    def lower_bound(self) -> int:
        """Fewest views any exact cover of all ``k``-subsets can have."""
        return math.ceil(math.comb(self.d, self.k) / (self.d // self.k))

    def padded_tables(self) -> np.ndarray:
        """``(n_views, max view length)`` table indices, ``-1`` where a view is shorter."""
        width = max(len(v) for v in self.view_tables)
        out = np.full((self.n_views, width), -1, dtype=np.int64)
        for v, ids in enumerate(self.view_tables):
            out[v, : len(ids)] = ids
        return out


def assign_views(
    m: int, view_tables: np.ndarray, active: np.ndarray, offset: int, rng: np.random.Generator
) -> np.ndarray:
    """Views for the ``m`` clients of a block (the aggregator's draw).

    The paper assigns views "arbitrarily, changing per client".  We balance
    them: among the views with at least one subset still ``active``, client
    ``offset + i`` (a running count of clients assigned so far) gets view
    ``(offset + i) mod V`` and the block's list is shuffled with ``rng``, so
    every view receives ``floor`` or ``ceil`` of its share in every block.
    ``view_tables`` is :meth:`Cover.padded_tables`.
    """
    vt = np.asarray(view_tables)
    live = np.flatnonzero(((vt >= 0) & np.asarray(active)[np.maximum(vt, 0)]).any(axis=1))
    if live.size == 0:
        raise UsageError("assign_views: no view has an active subset")
    return np.asarray(live[rng.permutation((offset + np.arange(m)) % live.size)])


def _check(d: int, k: int) -> None:
    for name, val in (("d", d), ("k", k)):
        if isinstance(val, bool) or not isinstance(val, int | np.integer):
            raise UsageError(f"cover: {name} must be an int, got {val!r}")
    if d < 1:
        raise UsageError(f"cover: d (number of attributes) must be >= 1, got {d}")
    if k < 1:
        raise UsageError(f"cover: k (attributes per subset) must be >= 1, got {k}")
    if k > d:
        raise UsageError(f"cover: k must be <= d (number of attributes), got k={k} > d={d}")


def pair_cover(d: int) -> Cover:
    """Round-robin 1-factorization of K_d (circle method); see the module docstring."""
    _check(d, 2)
    m = d + (d % 2)  # add a phantom attribute m - 1 when d is odd
    views = []
    for r in range(m - 1):
        pairs = [(r, m - 1)] + [((r + i) % (m - 1), (r - i) % (m - 1)) for i in range(1, m // 2)]
        views.append(tuple(sorted(tuple(sorted(p)) for p in pairs if max(p) < d)))
    return Cover(d, 2, tuple(views))


def _greedy(d: int, k: int, by_degree: bool) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Place every k-subset once; each view takes free subsets until none fits.

    ``by_degree=False``: first free subset in lexicographic order.
    ``by_degree=True``: the free subset whose attributes have the most subsets
    still unplaced (ties: lexicographic), so that busy attributes are not left
    for the last, short views.
    """
    subsets = np.array(list(combinations(range(d), k)), dtype=np.int64)
    member = np.zeros((len(subsets), d), dtype=bool)
    member[np.arange(len(subsets))[:, None], subsets] = True
    weights = member.astype(np.float64)
    degree = member.sum(axis=0).astype(np.float64)
    remaining = np.ones(len(subsets), dtype=bool)
    views = []
    while remaining.any():
        free = remaining.copy()
        view = []
        while free.any():
            if by_degree:
                idx = np.flatnonzero(free)
                i = int(idx[np.argmax(weights[idx] @ degree)])
            else:
                i = int(np.argmax(free))
            view.append(tuple(int(a) for a in subsets[i]))
            remaining[i] = False
            degree[subsets[i]] -= 1
            free &= ~member[:, subsets[i]].any(axis=1)
        views.append(tuple(view))
    return tuple(views)


def cover(d: int, k: int = 2) -> Cover:
    """A cover of all ``k``-subsets of ``d`` attributes by views (see the module docstring).

    Raises :class:`UsageError` for ``k < 1``, ``d < 1``, ``k > d`` or more than
    :data:`MAX_SUBSETS` subsets.
    """
    _check(d, k)
    d, k = int(d), int(k)
    if k == 2:
        return pair_cover(d)
    if k == 1:
        return Cover(d, 1, (tuple((a,) for a in range(d)),))
    if k == d:
        return Cover(d, k, ((tuple(range(d)),),))
    n = math.comb(d, k)
    if n > MAX_SUBSETS:
        raise UsageError(
            f"cover: d={d}, k={k} has {n} subsets (> {MAX_SUBSETS}); each would get a "
            "vanishing share of the clients -- choose a smaller k or fewer attributes"
        )
    first_fit, by_degree = _greedy(d, k, False), _greedy(d, k, True)
    return Cover(d, k, min(first_fit, by_degree, key=len))


def check_exact(c: Cover, subsets: Sequence[Sequence[int]] | None = None) -> None:
    """Raise unless every ``k``-subset (or each of ``subsets``) is in exactly one view."""
    want = (
        set(combinations(range(c.d), c.k))
        if subsets is None
        else {tuple(sorted(s)) for s in subsets}
    )
    got = [tuple(sorted(s)) for s in c.subsets]
    if len(got) != len(set(got)):
        raise UsageError("Cover: a subset appears in two views")
    if set(got) != want:
        raise UsageError(
            f"Cover: missing {sorted(want - set(got))[:5]}, extra {sorted(set(got) - want)[:5]}"
        )
