"""The sparse communication graph of SecAgg+ (Bell et al. 2020): random, k-regular.

Construction: a random circulant.  Place the parties ``1..n`` on a ring in a
uniformly random order and draw ``k/2`` distinct random offsets ``s`` from
``1 .. floor((n-1)/2)``; each party is joined to the parties ``+-s`` ring
positions away (both the permutation and the offsets come from the injected
numpy ``Generator``: the graph is public, so a non-cryptographic source is
fine).  Every party has exactly ``k`` neighbours; random offsets (rather than
the ``k/2`` nearest) keep neighbourhoods from overlapping, so local dropouts
do not cascade through threshold pruning.
When ``k >= n - 1`` the graph is complete (the original SecAgg of Bonawitz et
al. 2017).  Each party's neighbour list is O(k) to read once the graph is
built (O(n k) total, vectorized).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["Graph"]


@dataclass(frozen=True, eq=False)
class Graph:
    """Neighbour lists of parties ``1..n``.

    Attributes
    ----------
    n, degree:
        Number of parties and the (common) degree.
    neighbors:
        ``(n + 1, degree)`` int64 array; row ``u`` lists the neighbours of ``u``
        in increasing order (row 0, the server, is unused and all zero).
    """

    n: int
    degree: int
    neighbors: np.ndarray

    @classmethod
    def random_regular(cls, n: int, degree: int, rng: np.random.Generator) -> Graph:
        """Random permuted-circulant ``degree``-regular graph (complete if ``degree >= n-1``).

        An odd ``degree < n - 1`` is rounded up to the next even number.
        """
        if n < 2:
            raise UsageError(f"graph: need n >= 2 parties, got {n}")
        if degree < 1:
            raise UsageError(f"graph: degree must be >= 1, got {degree}")
        if degree >= n - 1:
            ids = np.arange(1, n + 1)
            nb = np.broadcast_to(ids, (n, n))[~np.eye(n, dtype=bool)].reshape(n, n - 1)
            k = n - 1
        else:
            half = (degree + 1) // 2
            k = 2 * half
            if half > (n - 1) // 2:
                return cls.random_regular(n, n - 1, rng)
            order = rng.permutation(n) + 1  # ring position -> party id
            pos = np.empty(n + 1, np.int64)
            pos[order] = np.arange(n)
            steps = rng.choice(np.arange(1, (n - 1) // 2 + 1), size=half, replace=False)
            offs = np.concatenate([-steps, steps])
            nb = order[(pos[1:, None] + offs[None, :]) % n]
            nb.sort(axis=1)
        out = np.zeros((n + 1, k), np.int64)
        out[1:] = nb
        out.setflags(write=False)
        return cls(int(n), int(k), out)

    def of(self, u: int) -> np.ndarray:
        """Neighbours of party ``u`` (sorted)."""
        result: np.ndarray = self.neighbors[u]
        return result
