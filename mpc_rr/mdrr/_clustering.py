"""Algorithm 1 of Domingo-Ferrer & Soria-Comas: clustering attributes by dependence.

Start from singleton clusters.  Repeatedly take cluster pairs in descending
order of dependence (dependence between clusters = the maximum dependence of
an attribute pair across them); while the current dependence is ``>= Td``:
merge the pair if the merged cluster has at most ``Tv`` value combinations
(then recompute and restart from the top), else move to the next pair.

Ties are broken deterministically by the attribute indices of the pair, so
the same dependence matrix always yields the same clustering on every party
(the distributed protocol compares digests of it).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["Clustering", "cluster_attributes"]


@dataclass(frozen=True)
class Clustering:
    """Clusters as sorted tuples of attribute indices, in order of first attribute."""

    clusters: tuple[tuple[int, ...], ...]
    merges: tuple[tuple[tuple[int, ...], tuple[int, ...], float], ...]

    def names(self, attribute_names: Sequence[str]) -> list[list[str]]:
        return [[attribute_names[i] for i in c] for c in self.clusters]

    def digest(self) -> str:
        """SHA-256 of a canonical encoding (for the broadcast check)."""
        text = ";".join(",".join(map(str, c)) for c in self.clusters)
        return hashlib.sha256(text.encode()).hexdigest()


def cluster_attributes(
    dependences: np.ndarray, sizes: Sequence[int], tv: float, td: float
) -> Clustering:
    """Run Algorithm 1.

    Parameters
    ----------
    dependences:
        Symmetric ``m x m`` matrix of pairwise dependences in [0, 1].
    sizes:
        Category count of each attribute.
    tv:
        Maximum number of value combinations allowed in a cluster.
    td:
        Minimum dependence between two clusters for them to be merged.
    """
    d = np.asarray(dependences, dtype=float)
    m = len(sizes)
    if d.shape != (m, m):
        raise UsageError(f"cluster_attributes: dependences must be {m}x{m}, got {d.shape}")
    if not np.allclose(d, d.T, atol=1e-12) or not np.isfinite(d).all():
        raise UsageError("cluster_attributes: dependence matrix must be finite and symmetric")
    if tv < 1:
        raise UsageError(f"cluster_attributes: tv must be >= 1, got {tv}")
    clusters: list[tuple[int, ...]] = [(i,) for i in range(m)]
    merges = []

    def ranked() -> list[tuple[float, tuple[int, ...], tuple[int, ...]]]:
        pairs = []
        for x in range(len(clusters)):
            for y in range(x + 1, len(clusters)):
                a, b = clusters[x], clusters[y]
                dep = float(d[np.ix_(a, b)].max())
                pairs.append((dep, a, b))
        pairs.sort(key=lambda t: (-t[0], t[1], t[2]))
        return pairs

    order = ranked()
    k = 0
    while k < len(order) and order[k][0] >= td:
        dep, a, b = order[k]
        if math.prod(sizes[i] for i in a + b) <= tv:
            clusters = [c for c in clusters if c not in (a, b)] + [tuple(sorted(a + b))]
            clusters.sort()
            merges.append((a, b, dep))
            order = ranked()
            k = 0
        else:
            k += 1
    return Clustering(tuple(clusters), tuple(merges))
