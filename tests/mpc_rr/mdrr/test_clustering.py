"""Algorithm 1 (attribute clustering by dependence within Tv) and its canonical digest."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.mdrr import cluster_attributes


def test_algorithm1_merges_by_dependence_within_tv() -> None:
    d = np.array(
        [
            [0, 0.9, 0.1, 0.0],
            [0.9, 0, 0.5, 0.0],
            [0.1, 0.5, 0, 0.05],
            [0.0, 0.0, 0.05, 0],
        ]
    )
    sizes = [2, 3, 4, 5]
    # Tv large: 0-1 merge (0.9), then {0,1}-{2} at max(0.1, 0.5) = 0.5; 3 stays (0.05 < Td)
    assert cluster_attributes(d, sizes, tv=1000, td=0.2).clusters == ((0, 1, 2), (3,))
    # Tv = 6 blocks the second merge (2*3*4 = 24 > 6) -> the loop moves to the next pair
    assert cluster_attributes(d, sizes, tv=6, td=0.2).clusters == ((0, 1), (2,), (3,))
    # Td above every dependence: no merge (RR-Independent)
    assert cluster_attributes(d, sizes, tv=1000, td=0.95).clusters == ((0,), (1,), (2,), (3,))
    # Td = 0 and Tv huge: everything merges
    assert cluster_attributes(d, sizes, tv=10**6, td=0.0).clusters == ((0, 1, 2, 3),)


def test_algorithm1_skips_a_blocked_pair_and_merges_the_next() -> None:
    d = np.array([[0, 0.8, 0.7], [0.8, 0, 0.1], [0.7, 0.1, 0]])
    # 0-1 too large (10*10 > 50), 0-2 fits (10*3 = 30)
    assert cluster_attributes(d, [10, 10, 3], tv=50, td=0.2).clusters == ((0, 2), (1,))


def test_clustering_digest_is_canonical() -> None:
    d = np.array([[0, 0.5], [0.5, 0]])
    a = cluster_attributes(d, [2, 2], 10, 0.1)
    b = cluster_attributes(d.copy(), [2, 2], 10, 0.1)
    assert a.digest() == b.digest()
    assert a.digest() != cluster_attributes(d, [2, 2], 10, 0.6).digest()
    with pytest.raises(UsageError, match="symmetric"):
        cluster_attributes(np.array([[0, 0.5], [0.4, 0]]), [2, 2], 10, 0.1)
