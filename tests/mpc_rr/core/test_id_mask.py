"""IdMask: a set of party ids as a boolean mask behaves as the Python set it replaces."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core._id_mask import IdMask


@settings(max_examples=60, deadline=None)
@given(
    start=st.sets(st.integers(0, 50)), one=st.lists(st.integers(-3, 60)),
    many=st.sets(st.integers(0, 50)),
)  # fmt: skip
def test_id_mask_is_the_set_it_replaces(start: set[int], one: list[int], many: set[int]) -> None:
    ids = IdMask.of(50, sorted(start))
    ref = set(start)
    assert set(ids) == ref and len(ids) == len(ref) and bool(ids) == bool(ref)
    copy = ids.copy()
    for i in one:
        ids.discard(i)
        ref.discard(i)
    ids.discard_many(np.array(sorted(many), np.intp))
    ref -= many
    assert ids.ids() == sorted(ref) and len(ids) == len(ref) and bool(ids) == bool(ref)
    assert all((i in ids) == (i in ref) for i in range(-2, 55)) and "1" not in ids
    assert set(copy) == start  # a copy is independent
    assert ids == ref  # a Set: compares with sets
