"""The pair-cell layout: Adult has 1,582 cells; aggregate == plaintext crosstabs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.mdrr import PairLayout
from mpc_rr.mdrr._pair_cells import crosstabs

ADULT_SIZES = (9, 16, 7, 15, 6, 5, 2, 2)


def test_adult_has_1582_cells_and_known_offsets() -> None:
    lay = PairLayout(ADULT_SIZES)
    assert lay.cells == 1582 and len(lay.pairs) == 28
    assert lay.block(0, 1) == slice(0, 144) and lay.block(0, 2) == slice(144, 207)
    assert lay.block(6, 7) == slice(1578, 1582)


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 6), min_size=2, max_size=5),
    n=st.integers(1, 60),
    seed=st.integers(0, 10**6),
)
def test_one_hot_aggregate_decodes_to_plaintext_crosstabs(sizes, n, seed) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, sizes, size=(n, len(sizes)))
    lay = PairLayout(tuple(sizes))
    x = lay.one_hot(codes)
    m = len(sizes)
    assert x.shape == (n, lay.cells) and (x.sum(axis=1) == m * (m - 1) // 2).all()
    agg = x.sum(axis=0)
    np.testing.assert_array_equal(agg, lay.aggregate(codes))
    tables = lay.decode(agg)
    ref = crosstabs(codes, sizes)
    assert tables.keys() == ref.keys()
    for key, tab in ref.items():
        np.testing.assert_array_equal(tables[key], tab)
        assert tables[key].sum() == n


def test_errors_name_the_problem() -> None:
    lay = PairLayout((2, 3))
    with pytest.raises(UsageError, match=r"codes\[1, 1\] = 3 outside 0\.\.2"):
        lay.encode(np.array([[0, 0], [1, 3]]))
    with pytest.raises(UsageError, match=r"vector must have shape \(6,\)"):
        lay.decode(np.zeros(5))
    with pytest.raises(UsageError, match="need >= 2 attributes"):
        PairLayout((4,))
    with pytest.raises(UsageError, match=r"pair \(1, 0\)"):
        lay.block(1, 0)
