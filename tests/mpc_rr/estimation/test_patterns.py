"""The histogram of distinct records: the same estimates as the rows, however they are split."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import UsageError
from mpc_rr.data import Attribute, Schema
from mpc_rr.estimation import dependence_matrix, rr_adjustment
from mpc_rr.estimation._patterns import PatternCounts
from mpc_rr.mdrr._release import joint_counts

SIZES = (3, 2, 4, 2)
SCHEMA = Schema(tuple(Attribute(f"a{j}", tuple(str(c) for c in range(s))) for j, s in enumerate(SIZES)))


def rows_of(seed: int, n: int, sizes: tuple[int, ...] = SIZES) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.stack([rng.integers(0, s, n) for s in sizes], axis=1)
    x[:, 1] = np.where(rng.random(n) < 0.7, x[:, 0] % sizes[1], x[:, 1])  # some dependence
    return x


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), shards=st.integers(1, 6))
def test_merged_parts_equal_the_histogram_of_all_rows(seed: int, n: int, shards: int) -> None:
    x = rows_of(seed, n)
    cut = np.sort(np.random.default_rng(seed + 1).integers(0, n + 1, shards - 1))
    parts = [PatternCounts.of(b, SIZES) for b in np.split(x, cut)]
    whole = PatternCounts.of(x, SIZES)
    merged = PatternCounts.merge(parts, SIZES)
    np.testing.assert_array_equal(merged.patterns, whole.patterns)
    np.testing.assert_array_equal(merged.counts, whole.counts)
    merged.check("merged")
    assert merged.total == n and len(np.unique(x, axis=0)) == len(merged)
    for g in [(0,), (1, 2), (0, 2, 3)]:
        np.testing.assert_array_equal(merged.joint_counts(g), joint_counts(x, g, SIZES))
    np.testing.assert_array_equal(merged.dependence_matrix(SCHEMA), dependence_matrix(x, SCHEMA))


def test_the_three_ways_to_count_give_the_same_histogram() -> None:
    """Dense over a small domain, int64 keys, and lexicographic unique past int64: one order."""
    x = rows_of(5, 400)
    dense = PatternCounts.of(x, SIZES)
    big = (3, 2, 4, 2, 2**20, 2**20, 2**20)  # 2**62 < domain: lexicographic unique on rows
    mid = (3, 2, 4, 2, 2**20, 2**20)  # int64 keys, too large to count densely
    pad = np.zeros((400, 3), np.int64)
    pad[:, 0] = np.arange(400) % 3
    for sizes in (mid, big):
        h = PatternCounts.of(np.hstack([x, pad[:, : len(sizes) - 4]]), sizes)
        h.check("wide")
        np.testing.assert_array_equal(h.counts, PatternCounts.merge([h], sizes).counts)
        assert h.total == 400 and len(h) >= len(dense)
        np.testing.assert_array_equal(h.index_of(h.patterns), np.arange(len(h)))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 300))
def test_adjustment_over_patterns_is_the_adjustment_over_rows(seed: int, n: int) -> None:
    """Algorithm 2 on the patterns weighted by their counts, each pattern's weight split over its
    copies: the weights of Algorithm 2 on the rows, to rounding (the sums run in another order).
    The targets are the marginals of some reweighting of the rows (consistent targets: a unique
    I-projection; conflicting ones leave some weights decaying towards 0 along either path)."""
    x = rows_of(seed, n)
    groups = [(0, 1), (2,), (3,)]
    v = np.random.default_rng(seed).random(n) + 0.1
    targets = []
    for g in groups:
        dims = tuple(SIZES[i] for i in g)
        idx = np.ravel_multi_index(tuple(x[:, list(g)].T), dims)
        targets.append(np.bincount(idx, weights=v, minlength=int(np.prod(dims))) / v.sum())
    h = PatternCounts.of(x, SIZES)
    rows = rr_adjustment(x, SIZES, groups, targets, max_iter=300)
    pats = h.adjust(groups, targets, max_iter=300)
    w = h.row_weights(x, pats.weights)
    np.testing.assert_allclose(w, rows.weights, rtol=1e-6, atol=1e-9)
    assert abs(pats.iterations - rows.iterations) <= 2 and pats.converged == rows.converged
    assert pats.max_marginal_gap == pytest.approx(rows.max_marginal_gap, abs=1e-9)


def test_without_removes_records_and_drops_empty_patterns() -> None:
    h = PatternCounts.of(np.array([[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]]), SIZES)
    less = h.without(np.array([0, 1]))
    assert less.counts.tolist() == [1] and less.patterns.tolist() == [[0, 0, 0, 0]]
    with pytest.raises(UsageError, match="more records removed than counted"):
        h.without(np.array([1, 1]))


@pytest.mark.parametrize(
    ("patterns", "counts", "match"),
    [
        ([[1, 0, 0, 0], [0, 0, 0, 0]], [1, 1], "not sorted"),
        ([[0, 0, 0, 0], [0, 0, 0, 0]], [1, 1], "not sorted"),
        ([[0, 0, 0, 0], [0, 2, 0, 0]], [1, 1], "outside its attribute's categories"),
        ([[0, 0, 0, 0]], [0], "count below 1"),
        ([[0, 0, 0, 0]], [1, 2], "do not match"),
        ([[0, 0, 0]], [1], "do not match"),
    ],
)
def test_a_malformed_histogram_is_refused_naming_where_it_came_from(
    patterns: list[list[int]], counts: list[int], match: str
) -> None:
    h = PatternCounts(SIZES, np.array(patterns, np.uint8), np.array(counts, np.int64))
    with pytest.raises(UsageError, match=f"shard 3's part: .*{match}"):
        h.check("shard 3's part")
